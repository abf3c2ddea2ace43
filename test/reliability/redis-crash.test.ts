import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initialise } from '../../src/cli/commands/init.js';
import { ConfigStore } from '../../src/config/store.js';
import { createApp, type App } from '../../src/handlers/app.js';
import { DAY_MS } from '../../src/usage/ledger.js';
import { RedisLedger } from '../../src/usage/redis-ledger.js';
import { createHttpServer } from '../../src/server/http-server.js';
import { tempHome } from '../helpers/router.js';
import { unusedPort } from '../helpers/unused-port.js';
import { redisAvailable, startDurableRedis, storedInRedis, type DurableRedis } from './redis-process.js';
import { bodyFor, callFormat, eventually, parseSse } from './support.js';

if (!redisAvailable) console.warn("skipping the Redis crash suite: 'redis-server' is not installed (apt-get install redis-server)");

const SKU = 'svc.intelligent-basic';
/** Kill-and-restart cycles, and client loops sending meanwhile: enough that some kill lands on a write in flight. */
const CYCLES = 8;
const LOOPS = 12;

interface Router {
  origin: string;
  app: App;
  close(): Promise<void>;
}

async function startRouter(config: ConfigStore, usageStore: string): Promise<Router> {
  const app = createApp({ config, usageStore });
  const server = createHttpServer(app);
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
}

let prompts = 0;

/** One chat request; the tokens its svc_meta reports, or undefined when it was not answered in full. */
async function chatTotal(origin: string, key: string, stream: boolean): Promise<number | undefined> {
  const reply = await callFormat({ origin, key }, 'chat', bodyFor('chat', SKU, stream, `crash load ${String(++prompts).padStart(6, '0')}`));
  if (reply.status !== 200) return undefined;
  const meta = stream ? JSON.parse(parseSse(reply.text).filter((frame) => frame.data !== '[DONE]').at(-1)!.data).svc_meta : reply.json.svc_meta;
  return meta?.usage?.total_tokens;
}

describe.skipIf(!redisAvailable)('the Redis ledger across Redis crashes', () => {
  let home: string;
  let dataDir: string;
  let redis: DurableRedis;
  let config: ConfigStore;
  let key: string;
  const routers: Router[] = [];

  beforeAll(async () => {
    home = tempHome();
    dataDir = fs.mkdtempSync(path.join(home, 'redis-'));
    redis = await startDurableRedis(await unusedPort(), dataDir);
    config = new ConfigStore(home);
    key = initialise(config, { developer: 'crashy', org: 'acme', tier: 'pro', cap: '1000000000' }).key;
    routers.push(await startRouter(config, redis.url), await startRouter(config, redis.url));
  });
  afterAll(async () => {
    for (const router of routers) await router.close();
    await redis?.kill();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  it('holds exactly what clients were told after Redis is SIGKILLed and restarted again and again under load', async () => {
    const served: number[] = [];
    const failed: string[] = [];
    let stop = false;
    const loop = async (index: number) => {
      for (let n = 0; !stop; n++) {
        const total = await chatTotal(routers[index % 2]!.origin, key, (n + index) % 2 === 0).catch((error: Error) => {
          failed.push(error.message);
          return undefined;
        });
        if (total === undefined) failed.push(`request ${n} of loop ${index} was not answered`);
        else served.push(total);
      }
    };
    const load = Promise.all(Array.from({ length: LOOPS }, (_, index) => loop(index)));
    const servedAtLeast = (count: number, what: string) => eventually(() => (served.length >= count ? true : undefined), 30_000, what);

    try {
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        await servedAtLeast(served.length + 60, `requests served before kill ${cycle + 1}`);
        await redis.kill();
        await servedAtLeast(served.length + 20, `requests served while Redis is down (${cycle + 1})`);
        redis = await startDurableRedis(redis.port, dataDir);
      }
      await servedAtLeast(served.length + 60, 'requests served after the last restart');
    } finally {
      stop = true;
      await load;
    }

    expect(failed).toEqual([]);
    const expected = { tokens: served.reduce((sum, total) => sum + total, 0), requests: served.length };
    // The routers reconnect on their own schedule; wait (bounded) until Redis holds every request.
    await eventually(
      async () => ((await storedInRedis(redis.port, 'crashy')).requests >= expected.requests ? true : undefined),
      20_000,
      'the queued usage to reach Redis',
    );
    // A summary writes whatever its router still queues: after it, nothing more is on its way.
    for (const router of routers) await router.app.ledger.summary('crashy');
    expect(await storedInRedis(redis.port, 'crashy')).toEqual(expected);
  }, 120_000);

  it('does not apply again a write that Redis applied but whose answer was lost', async () => {
    // Between the ledger and Redis: a relay that, once told to, passes the ledger's bytes on but
    // holds back Redis's answers, then drops the connection, as a Redis killed right after a write would.
    let swallow = false;
    const sockets = new Set<net.Socket>();
    const relay = net.createServer((client) => {
      const upstream = net.connect(redis.port, '127.0.0.1');
      sockets.add(client).add(upstream);
      client.on('data', (chunk) => upstream.write(chunk));
      upstream.on('data', (chunk) => {
        if (!swallow) client.write(chunk);
      });
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('close', end).on('error', end);
      upstream.on('close', end).on('error', end);
    });
    relay.listen(0, '127.0.0.1');
    await once(relay, 'listening');
    const ledger = new RedisLedger(`redis://127.0.0.1:${(relay.address() as AddressInfo).port}`, { log: () => undefined });
    try {
      const entry = { ts: Date.now(), developer: 'unanswered', inputTokens: 30, outputTokens: 14, requests: 1, requestId: 'req_unanswered' };
      ledger.record({ ...entry, requestId: 'req_answered' });
      await eventually(async () => ((await storedInRedis(redis.port, 'unanswered')).requests === 1 ? true : undefined), 10_000, 'the first write');
      // …and the ledger has heard Redis's answer to it (its flush is over), so only the next write's answer is held back.
      const flushing = ledger as unknown as { flushing?: Promise<void> };
      await eventually(async () => (flushing.flushing === undefined ? true : undefined), 10_000, 'the first answer');

      swallow = true;
      ledger.record(entry);
      await eventually(async () => ((await storedInRedis(redis.port, 'unanswered')).requests === 2 ? true : undefined), 10_000, 'Redis to apply the write');
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      swallow = false;

      // The ledger never heard back, so it writes the record again once it has reconnected.
      const summary = await eventually(
        async () => {
          const seen = await ledger.summary('unanswered');
          return seen.requests >= 2 ? seen : undefined;
        },
        10_000,
        'the ledger to reconnect and settle',
      );
      expect(summary).toMatchObject({ totalTokens: 88, requests: 2 });
      expect(await storedInRedis(redis.port, 'unanswered')).toEqual({ tokens: 88, requests: 2 });
    } finally {
      await ledger.close();
      relay.close();
      for (const socket of sockets) socket.destroy();
    }
  });

  it('counts a record replayed with the same request id once', async () => {
    const ledger = new RedisLedger(redis.url, { log: () => undefined });
    try {
      const entry = { ts: Date.now(), developer: 'replayed', inputTokens: 30, outputTokens: 12, requests: 1, requestId: 'req_replayed_once' };
      ledger.record(entry);
      // The ledger connects on its own schedule; the first write lands once it has.
      await eventually(async () => ((await storedInRedis(redis.port, 'replayed')).requests === 1 ? true : undefined), 10_000, 'the first write');
      ledger.record({ ...entry });
      const summary = await ledger.summary('replayed');
      expect(await storedInRedis(redis.port, 'replayed')).toEqual({ tokens: 42, requests: 1 });
      expect(summary).toMatchObject({ totalTokens: 42, requests: 1 });

      // A different request with the same numbers is a second request.
      ledger.record({ ...entry, requestId: 'req_replayed_twice' });
      await ledger.summary('replayed');
      expect(await storedInRedis(redis.port, 'replayed')).toEqual({ tokens: 84, requests: 2 });

      // The mark outlives the day's bucket by nothing: both expire with the 30-day window.
      const client = new Redis(redis.port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
      await client.connect();
      const day = Math.floor(Date.now() / DAY_MS);
      const [markTtl, bucketTtl] = await Promise.all([client.ttl('svc-router:applied:req_replayed_once'), client.ttl(`svc-router:usage:replayed:${day}`)]);
      client.disconnect();
      expect(markTtl).toBeGreaterThan(30 * 86_400);
      expect(markTtl).toBeLessThanOrEqual(31 * 86_400);
      expect(bucketTtl).toBeGreaterThan(30 * 86_400);
    } finally {
      await ledger.close();
    }
  });
});
