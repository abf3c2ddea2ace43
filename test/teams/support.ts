import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { initialise } from '../../src/cli/commands/init.js';
import { keyRecord } from '../../src/cli/commands/keys.js';
import type { RateLimitSettings } from '../../src/config/settings.js';
import { ConfigStore } from '../../src/config/store.js';
import { createApp, type App, type AppOptions } from '../../src/handlers/app.js';
import { generateKey } from '../../src/core/router-keys.js';
import { createHttpServer, type HttpServerOptions } from '../../src/server/http-server.js';
import { tempHome } from '../helpers/router.js';
import { unusedPort } from '../helpers/unused-port.js';
import { redisAvailable, startRedis, type RedisServer } from '../reliability/redis-process.js';

export { redisAvailable };

export interface RouterInstance {
  origin: string;
  app: App;
  close(): Promise<void>;
}

/** Routers sharing one home (config and, for `file`, ledger) and one usage store, as processes behind a load balancer would. */
export interface RouterGroup {
  config: ConfigStore;
  home: string;
  routers: RouterInstance[];
  /** Issues a key for a new developer on the shared configuration. */
  issueKey(developer: string, options?: { capTokens?: number; rateLimit?: RateLimitSettings }): string;
  close(): Promise<void>;
}

/** `count` routers on real sockets, each with its own app (its own ledger handle and Redis connections). */
export async function startRouters(count: number, usageStore: string, options: { app?: Omit<AppOptions, 'config' | 'usageStore'>; http?: HttpServerOptions } = {}): Promise<RouterGroup> {
  const home = tempHome();
  const config = new ConfigStore(home);
  initialise(config, { developer: 'alice', org: 'acme', tier: 'pro' });
  const start = async (): Promise<RouterInstance> => {
    const app = createApp({ ...options.app, config, usageStore });
    const server: http.Server = createHttpServer(app, options.http);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return {
      origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      app,
      async close() {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
        await app.close();
      },
    };
  };
  const routers: RouterInstance[] = [];
  for (let i = 0; i < count; i++) routers.push(await start());
  return {
    config,
    home,
    routers,
    issueKey(developer, options = {}) {
      const key = generateKey(developer);
      config.update((settings) => {
        const record = keyRecord(key, developer, { organisation: 'acme', tier: 'standard', capTokens: options.capTokens ?? 1_000_000 });
        settings.keys[developer] = options.rateLimit ? { ...record, rateLimit: options.rateLimit } : record;
      });
      return key;
    },
    async close() {
      for (const router of routers) await router.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

/** A redis-server of the suite's own, on a free port, with its data in a temporary directory. */
export async function startTestRedis(): Promise<RedisServer & { dispose(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(tempHome(), 'redis-'));
  const redis = await startRedis(await unusedPort(), dir);
  return {
    ...redis,
    async dispose() {
      await redis.kill();
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    },
  };
}
