import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { FileLedger } from '../../src/usage/file-ledger.js';
import type { Leases } from '../../src/usage/leases.js';
import { worstTotal } from '../helpers/ledger-file-order.js';
import { tempHome } from '../helpers/router.js';

const CAP = 1_000_000;
const ROUTERS = 3;
const homes: string[] = [];
afterAll(() => {
  for (const home of homes) fs.rmSync(home, { recursive: true, force: true });
});

/** A turn of the event loop: asks spread over the routers (each its own ledger on one file), and which earlier requests end in it. */
const turn = fc.record({
  asks: fc.array(fc.record({ on: fc.integer({ min: 0, max: ROUTERS - 1 }), input: fc.integer({ min: 1, max: 4_000 }), output: fc.integer({ min: 0, max: 8_000 }) }), { minLength: 1, maxLength: 8 }),
  ends: fc.array(fc.record({ pick: fc.nat(), fraction: fc.double({ min: 0, max: 1, noNaN: true }), fails: fc.boolean() }), { maxLength: 6 }),
});

const leasesOf = (ledger: FileLedger): Leases => (ledger as unknown as { leases: Leases }).leases;
const leasesTaken = (ledger: FileLedger): number => (leasesOf(ledger) as unknown as { taken: number }).taken;

let leased = 0;

describe('file ledgers with leases, several routers over one file', () => {
  it('never admit past the cap, and refuse only when the input does not fit beside the other routers\' lease slack', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: CAP }), fc.array(turn, { minLength: 1, maxLength: 12 }), async (usedBefore, turns) => {
        const home = tempHome();
        homes.push(home);
        const file = path.join(home, 'usage.jsonl');
        const ledgers = Array.from({ length: ROUTERS }, () => new FileLedger(file, undefined, { leases: true }));
        await ledgers[0]!.record({ ts: Date.now(), developer: 'dev', inputTokens: usedBefore, outputTokens: 0, requests: 1, requestId: 'before' });
        let used = usedBefore;
        const open: Array<{ id: string; on: number; granted: number; minimum: number }> = [];
        let next = 0;
        let granted = 0;
        try {
          for (const { asks, ends } of turns) {
            const slackBefore = ledgers.reduce((sum, ledger) => sum + leasesOf(ledger).slack('dev'), 0);
            const heldBefore = open.reduce((sum, request) => sum + request.granted, 0);
            // Requests end in the same turn as the next ones are asked, as on a busy router.
            const ending: Array<Promise<void> | void> = [];
            for (const end of ends) {
              if (!open.length) break;
              const [request] = open.splice(end.pick % open.length, 1);
              if (end.fails) ending.push(ledgers[request!.on]!.release('dev', request!.id));
              else {
                const tokens = request!.minimum + Math.floor((request!.granted - request!.minimum) * end.fraction);
                ending.push(ledgers[request!.on]!.record({ ts: Date.now(), developer: 'dev', inputTokens: request!.minimum, outputTokens: tokens - request!.minimum, requests: 1, requestId: request!.id }));
                used += tokens;
              }
            }
            const asked = asks.map((ask) => {
              const id = `r${++next}`;
              const reservation = ledgers[ask.on]!.reserve({ developer: 'dev', requestId: id, capTokens: CAP, minimum: ask.input, tokens: ask.input + ask.output, ttlMs: 60_000 });
              return { ask, id, reservation };
            });
            await Promise.all(ending);
            const answers = await Promise.all(asked.map(async ({ ask, id, reservation }) => ({ ask, id, reservation: await reservation })));
            const inFlight = () => open.reduce((sum, request) => sum + request.granted, 0);
            for (const { ask, id, reservation } of answers) {
              if (!reservation.granted) continue;
              expect(reservation.tokens).toBeGreaterThanOrEqual(ask.input);
              expect(reservation.tokens).toBeLessThanOrEqual(ask.input + ask.output);
              open.push({ id, on: ask.on, granted: reservation.tokens, minimum: ask.input });
              granted++;
            }
            // The ceiling: what is used and held by requests admitted never passes the cap.
            expect(used + inFlight()).toBeLessThanOrEqual(Math.max(CAP, usedBefore));
            // The floor: a refusal means the input did not fit beside usage, requests in flight and the
            // leases' unused slack (those alive before the turn, and those taken in it by a router that wrote first).
            // A router deciding before another's write in the same turn still counts what that write
            // settles or gives back (held as before the turn), and a reservation that loses a race
            // holds for the lines below it until it is given back: at most all this turn asked.
            const slackAfter = ledgers.reduce((sum, ledger) => sum + leasesOf(ledger).slack('dev'), 0);
            const grantedNow = asks.reduce((sum, ask) => sum + ask.input + ask.output, 0);
            for (const { ask, reservation } of answers) {
              if (!reservation.granted) expect(ask.input).toBeGreaterThan(CAP - used - heldBefore - grantedNow - slackBefore - slackAfter);
            }
          }
        } finally {
          leased += ledgers.reduce((sum, ledger) => sum + leasesTaken(ledger), 0);
          for (const ledger of ledgers) await ledger.close();
        }
        // Replayed in the file's order, as every process reads it: leases given back, the rest counted.
        const { worst, reservations } = worstTotal(file);
        expect(worst).toBeLessThanOrEqual(Math.max(CAP, usedBefore));
        // A lease admits without a line per request.
        if (leasesTakenIn(file) > 0) expect(reservations).toBeLessThanOrEqual(granted + leasesTakenIn(file) + ROUTERS);
      }),
      { numRuns: 150 },
    );
    // The runs took leases: the property was tested with them, not around them.
    expect(leased).toBeGreaterThan(0);
  }, 120_000);
});

const leasesTakenIn = (file: string): number => (fs.readFileSync(file, 'utf8').match(/"reserve":\{"id":"lease-/g) ?? []).length;
