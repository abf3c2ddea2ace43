import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { KeyPoolSettings } from '../../src/config/settings.js';
import { startKeyedUpstream, type KeyedUpstream } from '../fakes/keyed-upstream.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { bodyFor, callFormat, expectErrorReply, headersFor, send, type ClientFormatName } from '../reliability/support.js';
import { redisAvailable, startRouters, startTestRedis, type RouterGroup } from './support.js';

const SKU = 'svc.intelligent-pro';
const KEYS = ['sk-pool-key-aaaaaaaaaaaaaaaaaaaa-1', 'sk-pool-key-bbbbbbbbbbbbbbbbbbbb-2', 'sk-pool-key-cccccccccccccccccccc-3'] as const;

let pools = 0;

/** A backend over the fake with a pool of fresh keys (fresh per test: rests are shared by key); returns those keys. */
function configurePool(config: TestRouter['config'], upstream: KeyedUpstream, strategy: KeyPoolSettings['strategy']): string[] {
  const run = ++pools;
  const keys = KEYS.map((key) => `${key}-${run}`);
  config.update((settings) => {
    settings.backends.pooled = { type: 'openai-chat', baseUrl: upstream.url, keyPool: { strategy, keys: keys.map((apiKey) => ({ apiKey })) } };
    settings.routes[SKU] = ['pooled:gpt-4o-mini'];
  });
  return keys;
}

const ask = (router: Pick<TestRouter, 'origin' | 'key'>, format: ClientFormatName = 'chat') => callFormat(router, format, bodyFor(format, SKU, false, 'hello pool'));

describe('key pools on one router', () => {
  let router: TestRouter;
  let upstream: KeyedUpstream;
  beforeAll(async () => {
    router = await startRouter();
  });
  afterAll(() => router.close());
  beforeEach(async () => {
    upstream = await startKeyedUpstream();
  });
  afterEach(() => upstream.close());

  it('round-robin sends each call with the next key', async () => {
    const keys = configurePool(router.config, upstream, 'round-robin');
    for (let i = 0; i < 6; i++) expect((await ask(router)).status).toBe(200);
    expect(upstream.keysSeen).toEqual([...keys, ...keys]);
  });

  it('fill-first stays on the first key until it is refused, then moves on at once, within the same request', async () => {
    const keys = configurePool(router.config, upstream, 'fill-first');
    expect((await ask(router)).status).toBe(200);
    expect((await ask(router)).status).toBe(200);
    upstream.treat(keys[0]!, { status: 429, headers: { 'retry-after': '30' } });
    const moved = await ask(router);
    expect(moved.status, moved.text).toBe(200);
    // The refused key and its successor, in one client request: the client never saw the 429.
    expect(moved.json.svc_meta.attempts).toBe(2);
    expect((await ask(router)).status).toBe(200);
    // The resting key is not tried again while it rests.
    expect(upstream.keysSeen).toEqual([keys[0], keys[0], keys[0], keys[1], keys[1]]);
  });

  it.each([
    ['retry-after', () => ({ 'retry-after': '30' })],
    ['x-ratelimit-reset-requests', () => ({ 'x-ratelimit-reset-requests': '30s', 'x-ratelimit-reset-tokens': '1s' })],
    ['anthropic-ratelimit-requests-reset', () => ({ 'anthropic-ratelimit-requests-reset': new Date(Date.now() + 30_000).toISOString() })],
  ])('rests a key for the time the upstream’s %s says', async (_name, headers) => {
    const keys = configurePool(router.config, upstream, 'fill-first');
    upstream.treat(keys[0]!, { status: 429, headers: headers() });
    expect((await ask(router)).status).toBe(200);
    for (const key of keys.slice(1)) upstream.treat(key, { status: 429, headers: { 'retry-after': '120' } });
    const refused = await ask(router);
    expectErrorReply('chat', refused, 429, 'rate_limit', 'upstream_rate_limited');
    // The soonest key is the first, free again in about 30 s.
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(28);
    expect(retryAfter).toBeLessThanOrEqual(30);
  });

  it('rests a key whose account is out of credit (402) and serves from the next', async () => {
    const keys = configurePool(router.config, upstream, 'round-robin');
    upstream.treat(keys[0]!, { status: 402 });
    for (let i = 0; i < 4; i++) expect((await ask(router)).status).toBe(200);
    expect(upstream.keysSeen.filter((key) => key === keys[0])).toHaveLength(1);
  });

  it.each(['chat', 'messages', 'responses'] as const)(
    'answers a %s client with a 429 in its own format and the soonest retry-after when every key rests, without calling the upstream',
    async (format) => {
      const keys = configurePool(router.config, upstream, 'round-robin');
      const waits = [90, 40, 70];
      keys.forEach((key, i) => upstream.treat(key, { status: 429, headers: { 'retry-after': String(waits[i]) } }));
      const first = await ask(router, format);
      expectErrorReply(format, first, 429, 'rate_limit');
      expect(upstream.keysSeen).toHaveLength(3);
      const second = await ask(router, format);
      expectErrorReply(format, second, 429, 'rate_limit');
      const retryAfter = Number(second.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(38);
      expect(retryAfter).toBeLessThanOrEqual(40);
      // Every key rests: the second request never reached the upstream.
      expect(upstream.keysSeen).toHaveLength(3);
      // No key leaks: not in the body, the message or the headers.
      const everything = first.text + second.text + JSON.stringify([...first.headers, ...second.headers]);
      for (const key of keys) expect(everything).not.toContain(key);
    },
  );

  it('takes pooled keys from environment variables, read at call time', async () => {
    const run = ++pools;
    process.env[`POOL_KEY_A_${run}`] = `sk-env-pool-aaaaaaaaaaaaaaaa-${run}`;
    process.env[`POOL_KEY_B_${run}`] = `sk-env-pool-bbbbbbbbbbbbbbbb-${run}`;
    router.config.update((settings) => {
      settings.backends.pooled = {
        type: 'openai-chat',
        baseUrl: upstream.url,
        keyPool: { strategy: 'round-robin', keys: [{ apiKeyEnv: `POOL_KEY_A_${run}` }, { apiKeyEnv: `POOL_KEY_B_${run}` }] },
      };
      settings.routes[SKU] = ['pooled:gpt-4o-mini'];
    });
    for (let i = 0; i < 2; i++) expect((await ask(router)).status).toBe(200);
    expect(upstream.keysSeen).toEqual([process.env[`POOL_KEY_A_${run}`], process.env[`POOL_KEY_B_${run}`]]);
  });
});

describe.skipIf(!redisAvailable)('key rests shared through Redis by two routers', () => {
  let redis: Awaited<ReturnType<typeof startTestRedis>>;
  let group: RouterGroup;
  let upstream: KeyedUpstream;
  let key: string;
  beforeAll(async () => {
    redis = await startTestRedis();
    group = await startRouters(2, redis.url);
    upstream = await startKeyedUpstream();
    key = group.issueKey('pooler');
  });
  afterAll(async () => {
    await group?.close();
    await upstream?.close();
    await redis?.dispose();
  });

  it('a key one router saw refused is skipped by the other', async () => {
    const keys = configurePool(group.config, upstream, 'fill-first');
    const [a, b] = group.routers as [RouterGroup['routers'][0], RouterGroup['routers'][0]];
    upstream.treat(keys[0]!, { status: 429, headers: { 'retry-after': '60' } });
    const onA = await callFormat({ origin: a.origin, key }, 'chat', bodyFor('chat', SKU, false, 'from a'));
    expect(onA.status, onA.text).toBe(200);
    const seenAfterA = upstream.keysSeen.length;
    // The key is fine again upstream, but rests for its 60 s: B, which never saw the 429, skips it too.
    upstream.treat(keys[0]!, {});
    const onB = await callFormat({ origin: b.origin, key }, 'chat', bodyFor('chat', SKU, false, 'from b'));
    expect(onB.status, onB.text).toBe(200);
    expect(onB.json.svc_meta.attempts).toBe(1);
    expect(upstream.keysSeen.slice(seenAfterA)).toEqual([keys[1]]);
    const whoami = await send(b, '/whoami', { headers: headersFor('chat', key) });
    expect(whoami.status).toBe(200);
  });
});
