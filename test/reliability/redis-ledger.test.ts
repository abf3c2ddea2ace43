import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import type { App } from '../../src/handlers/app.js';
import { DAY_MS } from '../../src/usage/ledger.js';
import { READ_TIMEOUT_MS } from '../../src/usage/redis-ledger.js';
import { tempHome } from '../helpers/router.js';
import { unusedPort } from '../helpers/unused-port.js';
import { startRouters } from '../teams/support.js';
import { redisAvailable, startRedis, type RedisServer } from './redis-process.js';
import { bodyFor, callFormat, eventually, headersFor, parseSse, send, type Reply } from './support.js';

if (!redisAvailable) console.warn(`skipping the Redis ledger suite: 'redis-server' is not installed (apt-get install redis-server)`);

const SKU = 'svc.intelligent-basic';

interface RouterInstance {
  origin: string;
  app: App;
  close(): Promise<void>;
}

interface Pair {
  config: ConfigStore;
  a: RouterInstance;
  b: RouterInstance;
  /** Issues a key for a new developer on the shared configuration. */
  issueKey(developer: string, capTokens?: number): string;
  close(): Promise<void>;
}

/** Two routers, as two processes would be: one home and config, each with its own app, ledger connection and server. */
async function startRouterPair(usageStore: string): Promise<Pair> {
  const group = await startRouters(2, usageStore);
  const [a, b] = group.routers as [RouterInstance, RouterInstance];
  return { config: group.config, a, b, issueKey: (developer, capTokens) => group.issueKey(developer, { capTokens }), close: () => group.close() };
}

/** A chat request with `key`, streamed or not; returns the reply and its svc_meta total. */
/** Prompts differ per request but keep one length, so every request is billed the same estimate. */
let prompts = 0;

async function chat(router: RouterInstance, key: string, stream: boolean): Promise<{ reply: Reply; total: number }> {
  const reply = await callFormat({ origin: router.origin, key }, 'chat', bodyFor('chat', SKU, stream, `count me ${String(++prompts).padStart(6, '0')}`));
  if (reply.status !== 200) return { reply, total: 0 };
  const meta = stream ? JSON.parse(parseSse(reply.text).filter((frame) => frame.data !== '[DONE]').at(-1)!.data).svc_meta : reply.json.svc_meta;
  return { reply, total: meta.usage.total_tokens };
}

async function whoami(router: RouterInstance, key: string): Promise<{ tokens_used: number; requests: number }> {
  const reply = await send(router, '/whoami', { headers: headersFor('chat', key) });
  expect(reply.status, reply.text).toBe(200);
  return reply.json.usage;
}

/** What Redis itself holds for a developer today: input + output tokens and requests. */
async function storedInRedis(port: number, developer: string): Promise<{ tokens: number; requests: number }> {
  const client = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await client.connect();
    const day = Math.floor(Date.now() / DAY_MS);
    const [input, output, requests] = await client.hmget(`svc-router:usage:${developer}:${day}`, 'in', 'out', 'n');
    return { tokens: Number(input ?? 0) + Number(output ?? 0), requests: Number(requests ?? 0) };
  } finally {
    client.disconnect();
  }
}

describe.skipIf(!redisAvailable)('the Redis usage ledger shared by two routers', () => {
  let dataDir: string;
  let redis: RedisServer;
  let pair: Pair;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(tempHome(), 'redis-'));
    redis = await startRedis(await unusedPort(), dataDir);
    pair = await startRouterPair(redis.url);
  });
  afterAll(async () => {
    await pair?.close();
    await redis?.stop();
    if (dataDir) fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
  });

  it('adds up concurrent requests on both routers exactly, and either router reports the total', async () => {
    const key = pair.issueKey('carol');
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => chat(i % 2 === 0 ? pair.a : pair.b, key, i % 4 < 2)),
    );
    for (const { reply } of results) expect(reply.status, reply.text).toBe(200);
    const expected = results.reduce((sum, { total }) => sum + total, 0);
    expect(expected).toBeGreaterThan(0);
    // Each router writes its records as they come; a summary waits for its own writes to land.
    await pair.a.app.ledger.summary('carol');
    await pair.b.app.ledger.summary('carol');

    for (const router of [pair.a, pair.b]) {
      const usage = await whoami(router, key);
      expect(usage.tokens_used).toBe(expected);
      expect(usage.requests).toBe(40);
    }
    expect(await storedInRedis(redis.port, 'carol')).toEqual({ tokens: expected, requests: 40 });
  });

  it('enforces one cap across both routers', async () => {
    const key = pair.issueKey('bob');
    const first = await chat(pair.a, key, false);
    expect(first.reply.status).toBe(200);
    await pair.a.app.ledger.summary('bob');
    // The cap is just above what router A has used, with room for one short prompt's input: A alone is under it.
    const cap = first.total + 10;
    pair.config.update((settings) => {
      settings.keys.bob!.capTokens = cap;
    });

    // Router B has served nothing for bob, and still sees A's usage: under the cap, so it serves.
    const second = await chat(pair.b, key, true);
    expect(second.reply.status, second.reply.text).toBe(200);
    expect(second.total).toBeLessThan(cap);
    await pair.b.app.ledger.summary('bob');

    // Together they are past it: both refuse, in each format's shape, though neither is alone.
    for (const router of [pair.a, pair.b]) {
      for (const stream of [false, true]) {
        const { reply } = await chat(router, key, stream);
        expect(reply.status, reply.text).toBe(429);
        expect(reply.json.error.code).toBe('usage_cap_exceeded');
      }
      const messages = await send(router, '/v1/messages', { headers: headersFor('messages', key), body: bodyFor('messages', SKU, false) });
      expect(messages.status).toBe(429);
      expect(messages.json.error.type).toBe('rate_limit_error');
      const usage = await whoami(router, key);
      expect(usage.tokens_used).toBe(first.total + second.total);
      expect(usage.tokens_used).toBeGreaterThanOrEqual(cap);
    }
  });

  it('keeps serving while Redis is down, then writes the queued usage once it is back', async () => {
    const key = pair.issueKey('erin');
    const before = await chat(pair.a, key, false);
    expect(before.reply.status).toBe(200);
    await pair.a.app.ledger.summary('erin');
    await pair.b.app.ledger.summary('erin');

    await redis.stop();

    // Both routers serve on, queueing what they record.
    const during = await Promise.all(Array.from({ length: 6 }, (_, i) => chat(i % 2 === 0 ? pair.a : pair.b, key, i % 3 === 0)));
    for (const { reply } of during) expect(reply.status, reply.text).toBe(200);
    const duringTotal = (router: RouterInstance) => during.filter((_, i) => (i % 2 === 0 ? pair.a : pair.b) === router).reduce((sum, { total }) => sum + total, 0);
    // Meanwhile each router reports what it last read plus its own queue.
    expect((await whoami(pair.a, key)).tokens_used).toBe(before.total + duringTotal(pair.a));
    expect((await whoami(pair.b, key)).tokens_used).toBe(before.total + duringTotal(pair.b));

    redis = await startRedis(redis.port, dataDir);
    const expected = before.total + duringTotal(pair.a) + duringTotal(pair.b);
    // The routers reconnect on their own schedule; wait (bounded) until Redis holds everything.
    const stored = await eventually(
      async () => {
        const now = await storedInRedis(redis.port, 'erin');
        return now.requests === 1 + during.length ? now : undefined;
      },
      15_000,
      'the queued usage to reach Redis',
    );
    expect(stored).toEqual({ tokens: expected, requests: 1 + during.length });
    for (const router of [pair.a, pair.b]) {
      const usage = await whoami(router, key);
      expect(usage.tokens_used).toBe(expected);
      expect(usage.requests).toBe(1 + during.length);
    }
  });

  it('keeps serving, within a bound, while Redis accepts connections but answers nothing', async () => {
    const key = pair.issueKey('frank');
    const before = await chat(pair.a, key, false);
    expect(before.reply.status).toBe(200);
    await pair.a.app.ledger.summary('frank');

    redis.pause();
    let during: Array<{ reply: Reply; total: number }>;
    try {
      during = await Promise.all(Array.from({ length: 6 }, (_, i) => chat(i % 2 === 0 ? pair.a : pair.b, key, i % 3 === 0)));
      for (const { reply } of during) {
        expect(reply.status, reply.text).toBe(200);
        // The cap check waited for Redis at most its bound, not until Redis came back.
        expect(reply.elapsedMs).toBeLessThan(READ_TIMEOUT_MS + 2_000);
      }
      const usage = await whoami(pair.a, key);
      const servedByA = during.filter((_, i) => i % 2 === 0).reduce((sum, { total }) => sum + total, 0);
      expect(usage.tokens_used).toBe(before.total + servedByA);
    } finally {
      redis.resume();
    }

    // What was sent while Redis was frozen is applied once, not lost and not twice.
    const expected = before.total + during.reduce((sum, { total }) => sum + total, 0);
    const stored = await eventually(
      async () => {
        const now = await storedInRedis(redis.port, 'frank');
        return now.requests === 1 + during.length ? now : undefined;
      },
      15_000,
      'the usage written during the freeze to reach Redis',
    );
    expect(stored).toEqual({ tokens: expected, requests: 1 + during.length });
    expect((await whoami(pair.b, key)).tokens_used).toBe(expected);
  });
});
