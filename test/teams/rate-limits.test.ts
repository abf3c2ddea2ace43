import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDuration } from '../../src/policies/rate-limit.js';
import { MemoryState } from '../../src/shared-state/memory-state.js';
import { bodyFor, callFormat, expectErrorReply, type ClientFormatName, type Reply } from '../reliability/support.js';
import { redisAvailable, startRouters, startTestRedis, type RouterGroup, type RouterInstance } from './support.js';

if (!redisAvailable) console.warn(`skipping the cross-router rate-limit suite: 'redis-server' is not installed (apt-get install redis-server)`);

const SKU = 'svc.intelligent-basic';

describe.skipIf(!redisAvailable)('per-key rate limits across two routers sharing one redis-server', () => {
  let redis: Awaited<ReturnType<typeof startTestRedis>>;
  let group: RouterGroup;
  let a: RouterInstance;
  let b: RouterInstance;
  beforeAll(async () => {
    redis = await startTestRedis();
    group = await startRouters(2, redis.url);
    [a, b] = group.routers as [RouterInstance, RouterInstance];
  });
  afterAll(async () => {
    await group?.close();
    await redis?.dispose();
  });

  const ask = (router: RouterInstance, key: string, format: ClientFormatName, text = 'hello limits'): Promise<Reply> =>
    callFormat({ origin: router.origin, key }, format, bodyFor(format, SKU, false, text));

  it('lets exactly the requests-per-minute through, whichever router each lands on, and refuses the rest in each format’s own 429', async () => {
    const key = group.issueKey('rpm-user', { rateLimit: { requestsPerMinute: 5 } });
    const formats: ClientFormatName[] = ['chat', 'messages', 'responses'];
    const replies = await Promise.all(Array.from({ length: 9 }, (_, i) => ask(i % 2 ? b : a, key, formats[i % 3]!)));
    const served = replies.filter((reply) => reply.status === 200);
    expect(served).toHaveLength(5);
    replies.forEach((reply, i) => {
      if (reply.status === 200) return;
      expectErrorReply(formats[i % 3]!, reply, 429, 'rate_limit');
      expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(reply.headers.get('retry-after'))).toBeLessThanOrEqual(120);
      expect(reply.headers.get('x-ratelimit-limit-requests')).toBe('5');
      expect(reply.headers.get('x-ratelimit-remaining-requests')).toBe('0');
      expect(reply.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+m)?\d+s$/);
    });
    // The ones served said how many were left, counting down across both routers.
    const remaining = served.map((reply) => Number(reply.headers.get('x-ratelimit-remaining-requests'))).sort();
    expect(remaining).toEqual([0, 1, 2, 3, 4]);
  });

  it('counts tokens per minute across routers: estimated on arrival, corrected to the real usage', async () => {
    const key = group.issueKey('tpm-user', { rateLimit: { tokensPerMinute: 120 } });
    const first = await ask(a, key, 'chat');
    expect(first.status, first.text).toBe(200);
    const used = first.json.svc_meta.usage.total_tokens as number;
    expect(used).toBeGreaterThan(0);
    expect(first.headers.get('x-ratelimit-limit-tokens')).toBe('120');
    // Each request uses `used` tokens; they keep being served on either router until the minute's tokens run out.
    let served = 1;
    let refused: Reply | undefined;
    for (let i = 0; i < 20 && !refused; i++) {
      const reply = await ask(i % 2 ? a : b, key, 'chat');
      if (reply.status === 200) served++;
      else refused = reply;
    }
    expect(refused).toBeDefined();
    expectErrorReply('chat', refused!, 429, 'rate_limit', 'rate_limit_exceeded');
    expect(refused!.json.error.message).toContain('120 tokens per minute');
    // Settled to the real usage, the count of requests served is what 120 tokens allow, give or take the last request's estimate.
    expect(served * used).toBeLessThanOrEqual(120 + used);
    expect(served * used).toBeGreaterThan(120 - 2 * used);
  });

  it('refuses at once a request larger than a whole minute’s tokens, and says so', async () => {
    const key = group.issueKey('tpm-small', { rateLimit: { tokensPerMinute: 50 } });
    const reply = await ask(b, key, 'messages', 'x'.repeat(400));
    expectErrorReply('messages', reply, 429, 'rate_limit');
    expect(reply.json.error.message).toMatch(/needs about 100 input tokens, and the key may use 50 tokens per minute/);
  });

  it('leaves a key without limits alone: no rate-limit headers', async () => {
    const key = group.issueKey('free-user');
    const reply = await ask(a, key, 'chat');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-ratelimit-limit-requests')).toBeNull();
  });
});

describe('the sliding window', () => {
  it('tells an honest retry-after: retrying then is let through, when nothing else arrived', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.integer({ min: 0, max: 170_000 }), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 10 }),
        async (limit, offsets, cost) => {
          fc.pre(cost <= limit);
          const state = new MemoryState();
          const start = 1_000_000_000_000;
          const times = [...offsets].sort((x, y) => x - y).map((offset) => start + offset);
          for (const now of times) {
            const verdict = await state.take('k', cost, limit, 60_000, now);
            if (verdict.allowed) continue;
            // A fresh copy of the state: did the same request fit at the time we told it to come back?
            const copy = new MemoryState();
            for (const earlier of times.filter((t) => t <= now)) await copy.take('k', cost, limit, 60_000, earlier);
            expect((await copy.take('k', cost, limit, 60_000, now + verdict.retryAfterMs)).allowed).toBe(true);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('never lets more than the limit through in any window-aligned minute', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 20 }), fc.array(fc.integer({ min: 0, max: 240_000 }), { maxLength: 200 }), async (limit, offsets) => {
        const state = new MemoryState();
        const start = 1_000_000_020_000;
        const allowed: number[] = [];
        for (const now of [...offsets].sort((x, y) => x - y).map((offset) => start + offset)) {
          if ((await state.take('k', 1, limit, 60_000, now)).allowed) allowed.push(now);
        }
        const byWindow = new Map<number, number>();
        for (const at of allowed) byWindow.set(Math.floor(at / 60_000), (byWindow.get(Math.floor(at / 60_000)) ?? 0) + 1);
        for (const count of byWindow.values()) expect(count).toBeLessThanOrEqual(limit);
      }),
    );
  });

  it('writes reset durations as OpenAI does', () => {
    expect(formatDuration(1)).toBe('1s');
    expect(formatDuration(360_000)).toBe('6m0s');
    expect(formatDuration(3_723_000)).toBe('1h2m3s');
  });
});
