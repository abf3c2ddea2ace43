import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import type { ScriptedTurn } from '../../src/backends/offline/script.js';
import { ConfigStore } from '../../src/config/store.js';
import { initialise } from '../../src/cli/commands/init.js';
import { keyRecord } from '../../src/cli/commands/keys.js';
import { generateKey } from '../../src/core/router-keys.js';
import { createApp, type App } from '../../src/handlers/app.js';
import type { Policy } from '../../src/policies/policy.js';
import type { SessionBook } from '../../src/sessions/session-book.js';
import { createHttpServer, type HttpServerOptions } from '../../src/server/http-server.js';

export interface TestRouter {
  /** http://127.0.0.1:PORT */
  origin: string;
  /** origin + /v1, the base URL OpenAI-style clients use */
  baseURL: string;
  /** the local developer's key (developer 'alice', organisation 'acme') */
  key: string;
  home: string;
  config: ConfigStore;
  app: App;
  /** Issues another key; returns it. */
  issueKey(developer: string, identity?: { organisation?: string; tier?: string; capTokens?: number }): string;
  close(): Promise<void>;
}

export function tempHome(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'svc-router-test-'));
}

/** A real router on a real socket (port 0), with its own temporary home. */
export async function startRouter(
  options: { offlineScript?: ScriptedTurn[]; capTokens?: number; http?: HttpServerOptions; policies?: readonly Policy[]; sessions?: SessionBook } = {},
): Promise<TestRouter> {
  const home = tempHome();
  const config = new ConfigStore(home);
  const { key } = initialise(config, { developer: 'alice', org: 'acme', tier: 'pro', ...(options.capTokens ? { cap: String(options.capTokens) } : {}) });
  const metrics = options.http?.metrics;
  const app = createApp({ config, offlineScript: options.offlineScript, ...(metrics ? { wrapBackend: metrics.wrapBackend } : {}), ...(options.policies ? { policies: options.policies } : {}), ...(options.sessions ? { sessions: options.sessions } : {}) });
  const server = createHttpServer(app, options.http);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    baseURL: `${origin}/v1`,
    key,
    home,
    config,
    app,
    issueKey(developer, identity = {}) {
      const issued = generateKey(developer);
      config.update((settings) => {
        settings.keys[developer] = keyRecord(issued, developer, {
          organisation: identity.organisation ?? 'acme',
          tier: identity.tier ?? 'standard',
          capTokens: identity.capTokens ?? 1_000_000,
        });
      });
      return issued;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await app.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}
