import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileLedger } from '../../src/usage/file-ledger.js';
import type { Ledger } from '../../src/usage/ledger.js';
import { RedisLedger } from '../../src/usage/redis-ledger.js';
import { tempHome } from '../helpers/router.js';
import { redisAvailable, startTestRedis } from './support.js';

const CAP = 1_000;
const TTL = 60_000;

/** One step two routers might take: reserve (input, max output) on one of them, then settle or release an earlier one. */
type Step =
  | { kind: 'reserve'; on: 0 | 1; input: number; output: number }
  | { kind: 'settle'; pick: number; fraction: number }
  | { kind: 'release'; pick: number };

const steps = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('reserve' as const), on: fc.constantFrom(0 as const, 1 as const), input: fc.integer({ min: 1, max: 200 }), output: fc.integer({ min: 0, max: 300 }) }),
    fc.record({ kind: fc.constant('settle' as const), pick: fc.nat(), fraction: fc.double({ min: 0, max: 1, noNaN: true }) }),
    fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
  ),
  { minLength: 1, maxLength: 40 },
);

/**
 * Plays the steps on two ledgers over one store and checks the rule the cap rests on: whatever
 * interleaving, what is used plus what is held never passes the cap, as long as each settled
 * request used no more than it was granted. Returns the worst total seen.
 */
async function play(ledgers: [Ledger, Ledger], developer: string, script: Step[]): Promise<void> {
  const open: Array<{ id: string; on: 0 | 1; granted: number; minimum: number }> = [];
  let used = 0;
  let held = 0;
  let next = 0;
  for (const step of script) {
    if (step.kind === 'reserve') {
      const id = `${developer}-${++next}`;
      const reservation = await ledgers[step.on].reserve({ developer, requestId: id, capTokens: CAP, minimum: step.input, tokens: step.input + step.output, ttlMs: TTL });
      // The ledger saw exactly what the two have used and hold between them.
      expect(reservation.used).toBe(used);
      expect(reservation.reserved).toBe(held);
      const left = CAP - used - held;
      expect(reservation.granted).toBe(step.input <= left && left > 0);
      if (reservation.granted) {
        expect(reservation.tokens).toBe(Math.min(step.input + step.output, left));
        open.push({ id, on: step.on, granted: reservation.tokens, minimum: step.input });
        held += reservation.tokens;
      }
    } else if (open.length) {
      const [request] = open.splice(step.pick % open.length, 1);
      held -= request!.granted;
      if (step.kind === 'settle') {
        const tokens = request!.minimum + Math.floor((request!.granted - request!.minimum) * step.fraction);
        // Settled on the other router half the time: the record settles the reservation wherever it lands.
        const settler = ledgers[(request!.on + (tokens % 2)) % 2];
        settler!.record({ ts: Date.now(), developer, inputTokens: request!.minimum, outputTokens: tokens - request!.minimum, requests: 1, requestId: request!.id });
        // A record is queued and written at once; its writing is done when a summary has waited for it.
        await settler!.summary(developer);
        used += tokens;
      } else {
        await ledgers[request!.on].release(developer, request!.id);
      }
    }
    expect(used + held).toBeLessThanOrEqual(CAP);
  }
}

describe('reservations on two file ledgers over one file', () => {
  let home: string;
  let ledgers: [FileLedger, FileLedger];
  beforeAll(() => {
    home = tempHome();
    const file = path.join(home, 'usage.jsonl');
    ledgers = [new FileLedger(file), new FileLedger(file)];
  });
  afterAll(async () => {
    for (const ledger of ledgers ?? []) await ledger.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('never let what is used and held pass the cap, whatever the interleaving', async () => {
    let run = 0;
    await fc.assert(fc.asyncProperty(steps, (script) => play(ledgers, `file-dev-${++run}`, script)), { numRuns: 60 });
  });

  it('let a reservation of a dead router lapse at its time-to-live', async () => {
    const now = Date.now();
    const first = await ledgers[0].reserve({ developer: 'lapse', requestId: 'r1', capTokens: 100, minimum: 10, tokens: 100, ttlMs: 1_000, now });
    expect(first).toMatchObject({ granted: true, tokens: 100 });
    expect((await ledgers[1].reserve({ developer: 'lapse', requestId: 'r2', capTokens: 100, minimum: 10, tokens: 10, ttlMs: 1_000, now: now + 999 })).granted).toBe(false);
    expect(await ledgers[1].reserve({ developer: 'lapse', requestId: 'r3', capTokens: 100, minimum: 10, tokens: 10, ttlMs: 1_000, now: now + 1_000 })).toMatchObject({ granted: true, reserved: 0 });
  });
});

describe.skipIf(!redisAvailable)('reservations on two Redis ledgers over one Redis', () => {
  let redis: Awaited<ReturnType<typeof startTestRedis>>;
  let ledgers: [RedisLedger, RedisLedger];
  beforeAll(async () => {
    redis = await startTestRedis();
    ledgers = [new RedisLedger(redis.url), new RedisLedger(redis.url)];
    // Both connected before the first step, so no step is decided from memory.
    for (const ledger of ledgers) expect(await ledger.ready(10_000)).toBe(true);
  });
  afterAll(async () => {
    for (const ledger of ledgers ?? []) await ledger.close();
    await redis?.dispose();
  });

  it('never let what is used and held pass the cap, whatever the interleaving', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(steps, async (script) => {
        const developer = `redis-dev-${++run}`;
        await play(ledgers, developer, script);
      }),
      { numRuns: 40 },
    );
  });
});

describe('a file ledger serving alone', () => {
  it('keeps no per-request state once its reservations are settled, however many it served', async () => {
    const home = tempHome();
    const ledger = new FileLedger(path.join(home, 'usage.jsonl'));
    try {
      for (let n = 0; n < 2_000; n++) {
        const requestId = `alone-${n}`;
        const reservation = await ledger.reserve({ developer: 'alone', requestId, capTokens: 1e12, minimum: 5, tokens: 50, ttlMs: TTL });
        expect(reservation.granted).toBe(true);
        if (n % 10 === 0) await ledger.release('alone', requestId);
        else ledger.record({ ts: Date.now(), developer: 'alone', inputTokens: 5, outputTokens: 7, requests: 1, requestId });
      }
      // What the ledger remembers per request (ids to skip when read back, reservations held) is
      // dropped at the next look at the file: a serving process must not grow with its traffic.
      const state = ledger as unknown as Record<'ownIds' | 'ownReservations' | 'ownReleases' | 'held', { size: number }>;
      expect(state.held.size).toBe(0);
      expect(Math.max(state.ownIds.size, state.ownReservations.size, state.ownReleases.size)).toBeLessThanOrEqual(2);
      expect((await ledger.summary('alone')).totalTokens).toBe(1_800 * 12);
    } finally {
      await ledger.close();
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
