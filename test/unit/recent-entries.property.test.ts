import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RecentEntries } from '../../src/shared-state/recent-entries.js';

/** A plain model: every key's last use, in order; the live ones are the last `capacity` used within `idleMs`. */
describe('RecentEntries', () => {
  it('keeps at most its capacity, forgets what idled, and starts an idle key again from nothing', () => {
    const op = fc.record({ key: fc.constantFrom('a', 'b', 'c', 'd', 'e', '__proto__'), advance: fc.nat(40), create: fc.boolean() });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 10, max: 60 }), fc.array(op, { maxLength: 60 }), (capacity, idleMs, ops) => {
        const entries = new RecentEntries<{ born: number }>(capacity, idleMs);
        const model = new Map<string, { born: number; usedAt: number }>();
        let now = 0;
        for (const { key, advance, create } of ops) {
          now += advance;
          const known = model.get(key);
          const live = known && now - known.usedAt <= idleMs ? known : undefined;
          model.delete(key);
          const got = create ? entries.useOrCreate(key, now, () => ({ born: now })) : entries.use(key, now);
          if (live) {
            expect(got?.born).toBe(live.born);
            model.set(key, { born: live.born, usedAt: now });
          } else if (create) {
            expect(got?.born).toBe(now);
            model.set(key, { born: now, usedAt: now });
            // Past the bounds, the front of the order leaves: over capacity, or idle.
            for (const [old, entry] of model) {
              if (model.size <= capacity && now - entry.usedAt <= idleMs) break;
              model.delete(old);
            }
          } else expect(got).toBeUndefined();
          expect(entries.size).toBeLessThanOrEqual(capacity);
          for (const [name, entry] of model) if (now - entry.usedAt <= idleMs) expect(entries.peek(name, now)?.born).toBe(entry.born);
        }
      }),
    );
  });
});
