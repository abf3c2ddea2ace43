import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { keyRecord } from '../../src/cli/commands/keys.js';
import { ConfigStore } from '../../src/config/store.js';
import { generateKey } from '../../src/core/router-keys.js';
import { startServer, type Server } from '../processes.js';
import { createRouterHome } from '../router-home.js';

const ROUTER_READY = /listening on http:\/\/127\.0\.0\.1:(\d+)/;

/** One key per measurement, so each one's /whoami counts only its own requests. */
export interface ScaleKeys {
  [developer: string]: string;
}

/**
 * The routers' shared configuration: backends on the fake upstream, and a key per developer
 * (`caps` gives a developer a cap; the others have none they could reach). Each router gets its
 * own copy in its own home (its own state file and ledger outbox), as separate machines would.
 */
export function prepareHomes(upstreamOrigin: string, count: number, caps: Record<string, number>, developers: string[]): { homes: string[]; keys: ScaleKeys; remove(): void } {
  const first = createRouterHome(upstreamOrigin);
  const config = new ConfigStore(first.dir);
  const keys: ScaleKeys = {};
  config.update((settings) => {
    for (const developer of developers) {
      const key = generateKey(developer);
      keys[developer] = key;
      settings.keys[developer] = keyRecord(key, developer, { organisation: 'scale', tier: 'pro', capTokens: caps[developer] ?? Number.MAX_SAFE_INTEGER });
    }
  });
  const homes = [first.dir];
  for (let i = 1; i < count; i++) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-router-scale-'));
    fs.copyFileSync(config.path, path.join(dir, path.basename(config.path)));
    homes.push(dir);
  }
  return { homes, keys, remove: () => homes.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })) };
}

export interface Router {
  home: string;
  server: Server;
  origin: string;
}

/** `svc-router serve` on the shared Redis ledger, without a request log (it would cost the router). */
export async function startRouter(cli: string, home: string, redisUrl: string, port = 0): Promise<Router> {
  const server = await startServer({
    name: `router (${path.basename(home)})`,
    command: [process.execPath, cli, 'serve', '--port', String(port), '--quiet', '--usage-store', redisUrl],
    env: { SVC_ROUTER_HOME: home },
    ready: ROUTER_READY,
  });
  return { home, server, origin: server.origin };
}

/** SIGKILL: no chance to finish a request, flush a queue or remove its state file. */
export async function killRouter(router: Router): Promise<void> {
  const exited = new Promise((resolve) => router.server.child.once('exit', resolve));
  router.server.child.kill('SIGKILL');
  await exited;
}
