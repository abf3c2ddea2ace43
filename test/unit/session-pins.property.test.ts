import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionPins } from '../../src/shared-state/session-pins.js';

type Operation = { kind: 'lookup' | 'pin'; session: string; advance: number };

/** A plain model of the same rules: a list in recency order, each entry with its last use and its pins. */
class Model {
  entries: Array<{ session: string; usedAt: number; pins: Map<string, string> }> = [];
  constructor(
    readonly capacity: number,
    readonly idleMs: number,
  ) {}
  lookup(session: string, now: number) {
    const at = this.entries.findIndex((entry) => entry.session === session);
    if (at === -1) return undefined;
    const [entry] = this.entries.splice(at, 1);
    if (now - entry!.usedAt > this.idleMs) return undefined;
    entry!.usedAt = now;
    this.entries.push(entry!);
    return entry!.pins;
  }
  pin(session: string, field: string, choice: string, now: number) {
    const at = this.entries.findIndex((entry) => entry.session === session);
    const entry = at === -1 ? { session, usedAt: now, pins: new Map<string, string>() } : this.entries.splice(at, 1)[0]!;
    entry.usedAt = now;
    entry.pins.set(field, choice);
    this.entries.push(entry);
    while (this.entries.length && (this.entries.length > this.capacity || now - this.entries[0]!.usedAt > this.idleMs)) this.entries.shift();
  }
}

describe('session pins: a bounded map keyed by client sessions', () => {
  it('behaves as a least-recently-used map with an idle time, and never holds more than its capacity', () => {
    const operation = fc.record({
      kind: fc.constantFrom<Operation['kind']>('lookup', 'pin'),
      // Few names, so sessions come back; prototype names among them, as a client could send any id.
      session: fc.constantFrom('a', 'b', 'c', 'd', 'e', '__proto__', 'constructor', 'toString'),
      advance: fc.nat({ max: 40 }),
    });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 100 }), fc.array(operation, { maxLength: 60 }), (capacity, idleMs, operations) => {
        const pins = new SessionPins(capacity, idleMs);
        const model = new Model(capacity, idleMs);
        let now = 1_000;
        operations.forEach(({ kind, session, advance }, step) => {
          now += advance;
          if (kind === 'pin') {
            pins.pin(session, 't:chain', `target-${step}`, now);
            model.pin(session, 't:chain', `target-${step}`, now);
          } else {
            const got = pins.lookup(session, now)?.pins;
            const want = model.lookup(session, now);
            expect(got ? Object.fromEntries(got) : undefined).toEqual(want ? Object.fromEntries(want) : undefined);
          }
          expect(pins.size).toBeLessThanOrEqual(capacity);
        });
      }),
    );
  });

  it('keeps a pin this router made since it asked the shared store over the store’s older answer', () => {
    const pins = new SessionPins();
    pins.adopt('s', { 't:chain': 'heavy' }, 1, 0);
    const asked = pins.lookup('s', 2)!.version;
    // Another router's answer arrives after this router moved the session: the move stands.
    pins.pin('s', 't:chain', 'light', 3);
    pins.adopt('s', { 't:chain': 'heavy' }, 4, asked);
    expect(pins.lookup('s', 5)!.pins.get('t:chain')).toBe('light');
    // An answer asked for after the move wins: the store is the authority between routers.
    pins.adopt('s', { 't:chain': 'other' }, 6, pins.lookup('s', 6)!.version);
    expect(pins.lookup('s', 7)!.pins.get('t:chain')).toBe('other');
  });
});
