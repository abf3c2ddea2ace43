import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { initialise } from '../../src/cli/commands/init.js';
import { ConfigStore } from '../../src/config/store.js';
import { RedisState, SESSION_RECHECK_MS } from '../../src/shared-state/redis-state.js';
import { SESSION_IDLE_MS } from '../../src/shared-state/session-pins.js';
import { startKeyedUpstream, type KeyedUpstream } from '../fakes/keyed-upstream.js';
import { tempHome } from '../helpers/router.js';
import { killRouterProcesses, startRouterProcess, type RouterProcess } from '../reliability/router-processes.js';
import { bodyFor, headersFor, PATHS, send } from '../reliability/support.js';
import { redisAvailable, startTestRedis } from './support.js';

if (!redisAvailable) console.warn("skipping the shared session suite: 'redis-server' is not installed (apt-get install redis-server)");

const WEIGHTED = 'svc.intelligent-basic';
const POOLED = 'svc.intelligent-pro';
const FALLBACK = 'svc.intelligent-lite';
const KEYS = { heavy: 'sk-shared-heavy', light: 'sk-shared-light', first: 'sk-shared-first', second: 'sk-shared-second' };
const POOL = ['sk-shared-pool-1', 'sk-shared-pool-2', 'sk-shared-pool-3'];

describe.skipIf(!redisAvailable)('sessions shared through Redis', () => {
  let redis: Awaited<ReturnType<typeof startTestRedis>>;
  let upstream: KeyedUpstream;
  let home: string;
  let key: string;
  let routers: RouterProcess[];

  beforeAll(async () => {
    redis = await startTestRedis();
    upstream = await startKeyedUpstream();
    home = tempHome();
    const config = new ConfigStore(home);
    key = initialise(config, { developer: 'alice', org: 'acme', tier: 'pro' }).key;
    config.update((settings) => {
      for (const [name, apiKey] of Object.entries(KEYS)) settings.backends[name] = { type: 'openai-chat', baseUrl: upstream.url, apiKey };
      settings.backends.pooled = { type: 'openai-chat', baseUrl: upstream.url, keyPool: { strategy: 'round-robin', keys: POOL.map((apiKey) => ({ apiKey })) } };
      settings.routes[WEIGHTED] = ['heavy:gpt-4o', 'light:gpt-4o'];
      settings.routePolicies[WEIGHTED] = { weights: { 'heavy:gpt-4o': 1, 'light:gpt-4o': 1 } };
      settings.routes[POOLED] = ['pooled:gpt-4o-mini'];
      settings.routes[FALLBACK] = ['first:gpt-4o', 'second:gpt-4o'];
    });
    // Two router processes behind no balancer but the test, each with its own memory, one Redis.
    routers = await Promise.all([startRouterProcess(home, redis.url), startRouterProcess(home, redis.url)]);
  }, 60_000);
  afterAll(async () => {
    killRouterProcesses();
    await upstream?.close();
    await redis?.dispose();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  /** One turn of `session` on router `index`; the upstream key that served it. */
  async function turn(index: number, model: string, session: string): Promise<string> {
    const reply = await send(routers[index]!, PATHS.messages, {
      headers: { ...headersFor('messages', key), 'x-claude-code-session-id': session },
      body: bodyFor('messages', model, false, 'next turn'),
    });
    expect(reply.status, reply.text).toBe(200);
    return upstream.keysSeen.at(-1)!;
  }

  it.each([
    ['target of a weighted route', WEIGHTED],
    ['key of a round-robin pool', POOLED],
  ])('two routers send one session to one %s, whichever router sees it first', async (_label, model) => {
    // A request naming no session on one router only: the two routers' own draws are out of step, as behind a balancer.
    const reply = await send(routers[0]!, PATHS.messages, { headers: headersFor('messages', key), body: bodyFor('messages', model, false, 'no session') });
    expect(reply.status, reply.text).toBe(200);
    for (let s = 0; s < 6; s++) {
      const session = randomUUID();
      const served = new Set<string>();
      // Sessions begin on either router; their turns then alternate between the two.
      for (let i = 0; i < 20; i++) served.add(await turn((s + i) % 2, model, session));
      expect(served.size).toBe(1);
    }
  });

  it('a failover on one router moves the session for the other too', async () => {
    const session = randomUUID();
    expect(await turn(0, FALLBACK, session)).toBe(KEYS.first);
    upstream.treat(KEYS.first, { status: 429, headers: { 'retry-after': '60' } });
    expect(await turn(0, FALLBACK, session)).toBe(KEYS.second);
    upstream.treat(KEYS.first, {});
    for (let i = 1; i <= 10; i++) expect(await turn(i % 2, FALLBACK, session)).toBe(KEYS.second);
    // What Redis holds of sessions is hashes and target names: no session id, no key.
    const client = new Redis(redis.url);
    try {
      const stored = await client.keys('svc-router:session:*');
      expect(stored.length).toBeGreaterThan(0);
      const everything = JSON.stringify(await Promise.all(stored.map(async (name) => [name, await client.hgetall(name)])));
      expect(everything).not.toContain(session);
      for (const secret of [...Object.values(KEYS), ...POOL]) expect(everything).not.toContain(secret);
    } finally {
      client.disconnect();
    }
  });

  it('a router that knew a session learns of another router’s move within the recheck interval, and Redis holds only hashes, for an idle hour', async () => {
    const a = new RedisState(redis.url);
    const b = new RedisState(redis.url);
    const client = new Redis(redis.url);
    try {
      const session = `session-${randomUUID()}`;
      // Both connected before the first pin (a pin made while Redis is away stays in its router).
      await Promise.all([a.sessionPins('warm-up'), b.sessionPins('warm-up')]);
      a.pinSession(session, 't:chain', 'heavy:gpt-4o');
      const now = Date.now();
      expect((await b.sessionPins(session, now))?.get('t:chain')).toBe('heavy:gpt-4o');
      a.pinSession(session, 't:chain', 'light:gpt-4o');
      // Within the interval B answers from its memory, without asking Redis.
      expect((await b.sessionPins(session, now + 1))?.get('t:chain')).toBe('heavy:gpt-4o');
      // Past it, B still answers at once, and asks Redis in the background.
      expect((await b.sessionPins(session, now + SESSION_RECHECK_MS))?.get('t:chain')).toBe('heavy:gpt-4o');
      await vi.waitFor(async () => expect((await b.sessionPins(session, now + SESSION_RECHECK_MS))?.get('t:chain')).toBe('light:gpt-4o'));
      const stored = `svc-router:session:${session}`;
      expect(await client.hgetall(stored)).toEqual({ 't:chain': 'light:gpt-4o' });
      const ttl = await client.pttl(stored);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(SESSION_IDLE_MS);
    } finally {
      client.disconnect();
      await Promise.all([a.close(), b.close()]);
    }
  });
});
