import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryState } from '../../src/shared-state/memory-state.js';
import { RedisState } from '../../src/shared-state/redis-state.js';
import { SESSION_IDLE_MS } from '../../src/shared-state/session-pins.js';
import type { SharedState } from '../../src/shared-state/shared-state.js';
import { SpendCounters } from '../../src/shared-state/spend-counters.js';
import type { SpendCaps } from '../../src/shared-state/spend.js';
import { redisAvailable, startTestRedis } from './support.js';

/**
 * What a session has spent and holds, as the session cap asks it (SharedState.reserveSpend): in one
 * router's memory, and through Redis for two routers, played against a plain model of the rule
 * the usage cap follows (hold the request's whole want if it fits, what is left if only its
 * minimum does, nothing otherwise), for tokens and dollars at once.
 */

const TTL = 60_000;

type Step =
  | { kind: 'reserve'; on: 0 | 1; tokens: number; output: number; nano: number; extraNano: number }
  | { kind: 'settle'; pick: number; fraction: number }
  | { kind: 'release'; pick: number };

const steps = fc.array(
  fc.oneof(
    fc.record({
      kind: fc.constant('reserve' as const),
      on: fc.constantFrom(0 as const, 1 as const),
      // Small amounts against small caps, so a request that fits exactly, or misses by one, is common.
      tokens: fc.integer({ min: 1, max: 20 }),
      output: fc.integer({ min: 0, max: 30 }),
      nano: fc.integer({ min: 0, max: 20 }),
      extraNano: fc.integer({ min: 0, max: 30 }),
    }),
    fc.record({ kind: fc.constant('settle' as const), pick: fc.nat(), fraction: fc.double({ min: 0, max: 1, noNaN: true }) }),
    fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
  ),
  { minLength: 1, maxLength: 40 },
);

const capsArb = fc.oneof(
  fc.record({ tokens: fc.integer({ min: 1, max: 100 }) }),
  fc.record({ nanoUsd: fc.integer({ min: 1, max: 100 }) }),
  fc.record({ tokens: fc.integer({ min: 1, max: 100 }), nanoUsd: fc.integer({ min: 1, max: 100 }) }),
);

/** The rule, written out plainly for the model: per limit in force, refuse when the minimum does not fit, else hold what fits of the want. */
function expected(caps: SpendCaps, used: { tokens: number; nanoUsd: number }, held: { tokens: number; nanoUsd: number }, minimum: { tokens: number; nanoUsd: number }, wanted: { tokens: number; nanoUsd: number }) {
  const took = { tokens: wanted.tokens, nanoUsd: wanted.nanoUsd };
  for (const limit of ['tokens', 'nanoUsd'] as const) {
    const cap = caps[limit];
    if (cap === undefined) continue;
    const left = cap - used[limit] - held[limit];
    if (left <= 0 || minimum[limit] > left) return undefined;
    took[limit] = Math.min(wanted[limit], left);
  }
  return took;
}

async function play(states: [SharedState, SharedState], caps: SpendCaps, script: Step[]): Promise<void> {
  const scope = `scope-${randomUUID()}`;
  const open: Array<{ id: string; on: 0 | 1; took: { tokens: number; nanoUsd: number }; minimum: { tokens: number; nanoUsd: number } }> = [];
  const used = { tokens: 0, nanoUsd: 0 };
  const held = { tokens: 0, nanoUsd: 0 };
  let next = 0;
  for (const step of script) {
    if (step.kind === 'reserve') {
      const id = `req-${++next}`;
      const minimum = { tokens: step.tokens, nanoUsd: step.nano };
      const wanted = { tokens: step.tokens + step.output, nanoUsd: step.nano + step.extraNano };
      const verdict = await states[step.on].reserveSpend(scope, { requestId: id, caps, minimum, wanted, holdTtlMs: TTL });
      expect(verdict.used).toEqual(used);
      expect(verdict.held).toEqual(held);
      const took = expected(caps, used, held, minimum, wanted);
      expect(verdict.granted).toBe(took !== undefined);
      if (!took) continue;
      expect(verdict.took).toEqual(took);
      open.push({ id, on: step.on, took, minimum });
      held.tokens += took.tokens;
      held.nanoUsd += took.nanoUsd;
      // Whatever the interleaving, what is used plus what is held stays within every cap.
      for (const limit of ['tokens', 'nanoUsd'] as const) if (caps[limit] !== undefined) expect(used[limit] + held[limit]).toBeLessThanOrEqual(caps[limit]!);
    } else if (open.length) {
      const [request] = open.splice(step.pick % open.length, 1);
      held.tokens -= request!.took.tokens;
      held.nanoUsd -= request!.took.nanoUsd;
      // Settled or released on either router: the hold is let go of wherever it lands.
      const on = states[(request!.on + step.pick) % 2]!;
      if (step.kind === 'settle') {
        // Each uses no more than it held (the bound is about what it uses beyond that).
        const spent = {
          tokens: Math.min(request!.took.tokens, request!.minimum.tokens + Math.floor(request!.took.tokens * step.fraction)),
          nanoUsd: Math.floor(request!.took.nanoUsd * step.fraction),
        };
        on.settleSpend(scope, request!.id, spent);
        used.tokens += spent.tokens;
        used.nanoUsd += spent.nanoUsd;
      } else {
        on.releaseSpend(scope, request!.id);
      }
      // Sent without waiting, as the router sends them; a round trip on the same connection comes after it.
      await on.claimOnce(`barrier:${randomUUID()}`, 1_000);
    }
  }
}

describe('session spending in one router’s memory', () => {
  it('holds and settles as the rule says, for tokens and dollars at once, and never lets use plus holds pass a cap', async () => {
    const state = new MemoryState();
    await fc.assert(fc.asyncProperty(capsArb, steps, (caps, script) => play([state, state], caps, script)), { numRuns: 150 });
  });

  it('keeps a bounded number of sessions, forgets one idle for an hour, and lets a dead router’s hold lapse', () => {
    const counters = new SpendCounters(3, SESSION_IDLE_MS);
    const ask = (requestId: string) => ({ requestId, caps: { tokens: 100 }, minimum: { tokens: 10, nanoUsd: 0 }, wanted: { tokens: 60, nanoUsd: 0 }, holdTtlMs: TTL });
    const t0 = 1_000_000;
    for (const scope of ['a', 'b', 'c', 'd', 'constructor', '__proto__']) counters.reserve(scope, ask(`${scope}-1`), t0);
    expect(counters.size).toBe(3);
    expect(counters.peek('a', t0)).toBeUndefined();
    expect(counters.peek('__proto__', t0)).toEqual({ used: { tokens: 0, nanoUsd: 0 }, holding: 1 });
    // A hold that is never settled lapses after its ttl: the session's room comes back.
    expect(counters.reserve('d', ask('d-2'), t0).took.tokens).toBe(40);
    expect(counters.reserve('d', ask('d-3'), t0).granted).toBe(false);
    expect(counters.reserve('d', ask('d-4'), t0 + TTL).took.tokens).toBe(60);
    counters.settle('d', 'd-4', { tokens: 95, nanoUsd: 0 }, t0 + TTL);
    expect(counters.reserve('d', ask('d-5'), t0 + TTL).granted).toBe(false);
    // Idle for an hour, the session starts again at nothing.
    expect(counters.reserve('d', ask('d-6'), t0 + TTL + SESSION_IDLE_MS + 1)).toMatchObject({ granted: true, used: { tokens: 0 }, took: { tokens: 60 } });
  });
});

if (!redisAvailable) console.warn("skipping the Redis half of the session spending suite: 'redis-server' is not installed (apt-get install redis-server)");

describe.skipIf(!redisAvailable)('session spending through Redis, for two routers', () => {
  let redis: Awaited<ReturnType<typeof startTestRedis>>;
  let a: RedisState;
  let b: RedisState;
  beforeAll(async () => {
    redis = await startTestRedis();
    a = new RedisState(redis.url);
    b = new RedisState(redis.url);
    // Both connected before the first step: a step decided while Redis is away stays in its router.
    await Promise.all([a.sessionPins('warm-up'), b.sessionPins('warm-up')]);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.dispose();
  });

  it('decides exactly as the rule says, whichever router each step lands on (the Lua script and the TypeScript agree)', async () => {
    await fc.assert(fc.asyncProperty(capsArb, steps, (caps, script) => play([a, b], caps, script)), { numRuns: 60 });
  });

  it('keeps a session under its hash only, expiring after an idle hour, and lets a dead router’s hold lapse', async () => {
    const scope = `hash-${randomUUID()}`;
    const now = Date.now();
    const ask = (requestId: string) => ({ requestId, caps: { tokens: 100 }, minimum: { tokens: 10, nanoUsd: 0 }, wanted: { tokens: 60, nanoUsd: 0 }, holdTtlMs: 1_000 });
    expect((await a.reserveSpend(scope, ask('r1'), now)).took.tokens).toBe(60);
    expect((await b.reserveSpend(scope, ask('r2'), now)).took.tokens).toBe(40);
    expect((await b.reserveSpend(scope, ask('r3'), now)).granted).toBe(false);
    // Router a dies holding r1: past its lapse time its tokens are free again.
    expect(await b.reserveSpend(scope, ask('r4'), now + 1_000)).toMatchObject({ granted: true, held: { tokens: 0 }, took: { tokens: 60 } });
    const client = new Redis(redis.url);
    try {
      const key = `svc-router:spend:${scope}`;
      expect(Object.keys(await client.hgetall(key)).sort()).toEqual(['h:r4']);
      const ttl = await client.pttl(key);
      expect(ttl).toBeGreaterThan(SESSION_IDLE_MS - 60_000);
      expect(ttl).toBeLessThanOrEqual(SESSION_IDLE_MS);
    } finally {
      client.disconnect();
    }
  });
});
