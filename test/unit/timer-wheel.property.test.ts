import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TimerWheel } from '../../src/core/timer-wheel.js';
import { FakeClock } from '../helpers/fake-clock.js';

const TICK = 50;

describe('TimerWheel', () => {
  it('fires a deadline no earlier than asked and within one tick of it, then stops its timer', () => {
    const clock = new FakeClock(1_003);
    const wheel = new TimerWheel(TICK, clock);
    const fired: number[] = [];
    wheel.after(120, () => fired.push(clock.now()));
    clock.advance(119);
    expect(fired).toEqual([]);
    clock.advance(TICK + 1);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toBeGreaterThanOrEqual(1_123);
    expect(fired[0]).toBeLessThanOrEqual(1_123 + TICK);
    expect(wheel.size).toBe(0);
    expect(clock.armed, 'no timer once nothing is pending').toBeUndefined();
  });

  it('never fires a cancelled deadline, and cancelling twice or after firing is harmless', () => {
    const clock = new FakeClock();
    const wheel = new TimerWheel(TICK, clock);
    let fired = 0;
    const deadline = wheel.after(10, () => fired++);
    deadline.cancel();
    deadline.cancel();
    expect(clock.armed).toBeUndefined();
    clock.advance(1_000);
    expect(fired).toBe(0);
    const other = wheel.after(10, () => fired++);
    clock.advance(1_000);
    other.cancel();
    expect(fired).toBe(1);
    expect(wheel.size).toBe(0);
  });

  it('uses one timer for any number of deadlines', () => {
    const clock = new FakeClock();
    const wheel = new TimerWheel(TICK, clock);
    for (let i = 0; i < 1_000; i++) wheel.after(60_000 + i, () => {});
    expect(clock.arms).toBe(1);
    expect(wheel.size).toBe(1_000);
  });

  it('after a stall fires everything that fell due, in deadline order', () => {
    const clock = new FakeClock();
    const wheel = new TimerWheel(TICK, clock);
    const order: number[] = [];
    for (const ms of [5_000, 200, 90_000, 1_000]) wheel.after(ms, () => order.push(ms));
    // The event loop was blocked: the timer wakes once, long after every deadline.
    const { wake } = clock.armed!;
    clock.armed = undefined;
    clock.time = 100_000;
    wake();
    expect(order).toEqual([200, 1_000, 5_000, 90_000]);
  });

  it('a deadline that throws does not stop the others in its slot', () => {
    const clock = new FakeClock();
    const wheel = new TimerWheel(TICK, clock);
    let fired = 0;
    wheel.after(10, () => {
      throw new Error('boom');
    });
    wheel.after(10, () => fired++);
    expect(() => clock.advance(TICK)).toThrow('boom');
    expect(fired).toBe(1);
    expect(wheel.size).toBe(0);
  });

  it('after a stall over several slots, every deadline fires and the first error is the one rethrown', () => {
    const clock = new FakeClock();
    const wheel = new TimerWheel(TICK, clock);
    let fired = 0;
    wheel.after(10, () => {
      throw new Error('first');
    });
    wheel.after(3 * TICK, () => fired++);
    wheel.after(6 * TICK, () => {
      throw new Error('later');
    });
    const { wake } = clock.armed!;
    clock.armed = undefined;
    clock.time += 10 * TICK;
    expect(wake).toThrow('first');
    expect(fired).toBe(1);
    expect(wheel.size).toBe(0);
  });

  it('reschedule moves a deadline, pending or already fired', () => {
    const clock = new FakeClock();
    const wheel = new TimerWheel(TICK, clock);
    const fired: number[] = [];
    const deadline = wheel.after(100, () => fired.push(clock.now()));
    clock.advance(90);
    wheel.reschedule(deadline, 100);
    clock.advance(60);
    expect(fired).toEqual([]);
    clock.advance(100);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toBeGreaterThanOrEqual(190);
    wheel.reschedule(deadline, 0);
    clock.advance(TICK);
    expect(fired).toHaveLength(2);
  });

  type Step =
    | { kind: 'add'; ms: number; rescheduleFrom?: number }
    | { kind: 'cancel'; pick: number }
    | { kind: 'advance'; ms: number }
    | { kind: 'add-in-callback'; ms: number; then: number; work: number };

  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ kind: fc.constant('add' as const), ms: fc.integer({ min: -5, max: 2_000 }) }),
    fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }),
    fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 700 }) }),
    // A callback that takes `work` ms (the clock moves while it runs) and then sets another deadline.
    fc.record({ kind: fc.constant('add-in-callback' as const), ms: fc.integer({ min: 0, max: 300 }), then: fc.integer({ min: 0, max: 300 }), work: fc.constantFrom(0, 0, 1, 30, 120) }),
  );

  it('property: every deadline not cancelled fires exactly once, in [asked, asked + tick] (plus what slow callbacks took); cancelled ones never; the timer runs only while some are pending', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.constantFrom(0, 0.5, 0.75),
        fc.constantFrom(3, 7, 50, 250),
        fc.array(step, { maxLength: 60 }),
        (start, earlyMs, tick, steps) => {
          const clock = new FakeClock(start, earlyMs);
          const wheel = new TimerWheel(tick, clock);
          interface Expect {
            due: number;
            firedAt: number[];
            cancelled: boolean;
            cancel(): void;
          }
          const all: Expect[] = [];
          /** Time callbacks spent: a deadline may be late by that much more than a tick. */
          let worked = 0;
          const add = (ms: number, onFire?: () => void): void => {
            const entry: Expect = { due: clock.now() + Math.max(0, ms), firedAt: [], cancelled: false, cancel: () => {} };
            const deadline = wheel.after(ms, () => {
              entry.firedAt.push(clock.now());
              onFire?.();
            });
            entry.cancel = () => {
              entry.cancelled ||= deadline.pending;
              deadline.cancel();
            };
            all.push(entry);
          };
          for (const s of steps) {
            if (s.kind === 'add') add(s.ms);
            else if (s.kind === 'add-in-callback')
              add(s.ms, () => {
                clock.time += s.work;
                worked += s.work;
                add(s.then);
              });
            else if (s.kind === 'cancel' && all.length) all[s.pick % all.length]!.cancel();
            else if (s.kind === 'advance') clock.advance(s.ms);
            const pending = all.filter((entry) => !entry.cancelled && entry.firedAt.length === 0).length;
            expect(wheel.size).toBe(pending);
            expect(clock.armed !== undefined).toBe(pending > 0);
          }
          // Long enough for everything left (and what its callbacks add) to fall due.
          for (let i = 0; i < 4; i++) clock.advance(2_000 + tick);
          expect(wheel.size).toBe(0);
          expect(clock.armed).toBeUndefined();
          for (const entry of all) {
            if (entry.cancelled) expect(entry.firedAt).toEqual([]);
            else {
              expect(entry.firedAt).toHaveLength(1);
              expect(entry.firedAt[0]).toBeGreaterThanOrEqual(entry.due);
              expect(entry.firedAt[0]).toBeLessThanOrEqual(entry.due + tick + worked);
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
