import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Reservation } from '../../src/usage/ledger.js';
import { RedisLedger } from '../../src/usage/redis-ledger.js';
import { redisAvailable, startTestRedis } from './support.js';

const CAP = 1_000;

/** The calls that reach Redis: one pipeline is one round trip, a script call outside one is one more (a pipeline calls the same function, on itself). */
function countRoundTrips(ledger: RedisLedger): { pipelines: () => number; lone: () => number; restore(): void } {
  const redis = (ledger as unknown as { redis: { pipeline(): unknown; reserveCap(...args: unknown[]): unknown } }).redis;
  const pipeline = vi.spyOn(redis, 'pipeline');
  const lone = vi.spyOn(redis, 'reserveCap');
  return { pipelines: () => pipeline.mock.calls.length, lone: () => lone.mock.contexts.filter((context) => context === redis).length, restore: () => (pipeline.mockRestore(), lone.mockRestore()) };
}

describe.skipIf(!redisAvailable)('the Redis ledger: reservations asked in one turn of the event loop', () => {
  let redis: Awaited<ReturnType<typeof startTestRedis>>;
  let ledger: RedisLedger;
  beforeAll(async () => {
    redis = await startTestRedis();
    ledger = new RedisLedger(redis.url, { log: () => undefined });
    expect(await ledger.ready(10_000)).toBe(true);
  });
  afterAll(async () => {
    await ledger?.close();
    await redis?.dispose();
  });

  it('go to Redis in one round trip, decided as if asked one after another', async () => {
    const asks = fc.array(fc.record({ input: fc.integer({ min: 1, max: 300 }), output: fc.integer({ min: 0, max: 300 }) }), { minLength: 1, maxLength: 12 });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(asks, async (burst) => {
        run++;
        const ask = (developer: string, n: number, { input, output }: { input: number; output: number }): Promise<Reservation> =>
          ledger.reserve({ developer, requestId: `${developer}-${n}`, capTokens: CAP, minimum: input, tokens: input + output, ttlMs: 60_000 });
        const calls = countRoundTrips(ledger);
        let together: Reservation[];
        try {
          together = await Promise.all(burst.map((one, n) => ask(`together-${run}`, n, one)));
          expect(calls.pipelines()).toBe(1);
          expect(calls.lone()).toBe(0);
        } finally {
          calls.restore();
        }
        const oneByOne: Reservation[] = [];
        for (const [n, one] of burst.entries()) oneByOne.push(await ask(`one-by-one-${run}`, n, one));
        expect(together).toEqual(oneByOne);
      }),
      { numRuns: 30 },
    );
  });

  it('write the turn\'s records first, so Redis counts them', async () => {
    const records = [1, 2, 3].map((n) => ledger.record({ ts: Date.now(), developer: 'recorded', inputTokens: 100, outputTokens: 0, requests: 1, requestId: `recorded-${n}` }));
    const decided = await Promise.all([1, 2].map((n) => ledger.reserve({ developer: 'recorded', requestId: `after-${n}`, capTokens: CAP, minimum: 10, tokens: 500, ttlMs: 60_000 })));
    await Promise.all(records);
    expect(decided).toEqual([
      { granted: true, tokens: 500, used: 300, reserved: 0 },
      { granted: true, tokens: 200, used: 300, reserved: 500 },
    ]);
  });
});
