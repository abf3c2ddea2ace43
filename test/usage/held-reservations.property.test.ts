import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HeldReservations, type Held } from '../../src/usage/held-reservations.js';

type Step =
  | { kind: 'set'; id: string; developer: string; tokens: number; until: number; seq: number }
  | { kind: 'delete'; id: string }
  | { kind: 'total'; developer: string; now: number }
  | { kind: 'above'; developer: string; now: number; before: number; own: string };

const id = fc.constantFrom('a', 'b', 'c', 'd', 'e');
const developer = fc.constantFrom('dev', 'other');
const time = fc.integer({ min: 0, max: 100 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), id, developer, tokens: fc.integer({ min: 1, max: 50 }), until: time, seq: fc.integer({ min: 0, max: 10 }) }),
  fc.record({ kind: fc.constant('delete' as const), id }),
  fc.record({ kind: fc.constant('total' as const), developer, now: time }),
  fc.record({ kind: fc.constant('above' as const), developer, now: time, before: fc.integer({ min: 0, max: 11 }), own: id }),
);

describe('HeldReservations', () => {
  it('totals what the live reservations hold, as a walk over all of them would', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const held = new HeldReservations();
        // The plain model: every reservation, swept of lapsed ones when the time is read.
        const model = new Map<string, Held>();
        const sweep = (now: number) => {
          for (const [key, one] of model) if (one.until <= now) model.delete(key);
        };
        for (const s of steps) {
          if (s.kind === 'set') {
            const one = { developer: s.developer, tokens: s.tokens, until: s.until, seq: s.seq };
            held.set(s.id, one);
            model.set(s.id, { ...one });
          } else if (s.kind === 'delete') {
            expect(held.delete(s.id)).toBe(model.delete(s.id));
          } else if (s.kind === 'total') {
            sweep(s.now);
            const expected = [...model.values()].filter((one) => one.developer === s.developer).reduce((sum, one) => sum + one.tokens, 0);
            expect(held.total(s.developer, s.now)).toBe(expected);
          } else {
            sweep(s.now);
            const expected = [...model].filter(([key, one]) => one.developer === s.developer && one.seq < s.before && key !== s.own).reduce((sum, [, one]) => sum + one.tokens, 0);
            expect(held.totalAbove(s.developer, s.now, s.before, s.own)).toBe(expected);
          }
        }
      }),
      { numRuns: 1000 },
    );
  });
});
