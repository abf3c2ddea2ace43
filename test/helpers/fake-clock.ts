import { expect } from 'vitest';
import type { WheelClock } from '../../src/core/timer-wheel.js';

/**
 * A clock the test moves by hand. Its one timer may wake up to `earlyMs` before it was asked to
 * (real timer clocks round to whole milliseconds), never after.
 */
export class FakeClock implements WheelClock {
  time: number;
  armed: { wake: () => void; at: number } | undefined;
  arms = 0;

  constructor(
    start = 0,
    private readonly earlyMs = 0,
  ) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  arm(wake: () => void, ms: number): unknown {
    expect(this.armed, 'the wheel never holds two timers').toBeUndefined();
    expect(ms).toBeGreaterThan(0);
    this.arms++;
    // Like setTimeout: never less than 1 ms.
    this.armed = { wake, at: this.time + Math.max(1, ms) - this.earlyMs };
    return this.armed;
  }

  disarm(timer: unknown): void {
    expect(timer).toBe(this.armed);
    this.armed = undefined;
  }

  /** Moves time forward by `ms`, waking the timer at each moment it is due. */
  advance(ms: number): void {
    const until = this.time + ms;
    while (this.armed && this.armed.at <= until) {
      const { wake, at } = this.armed;
      this.armed = undefined;
      this.time = Math.max(this.time, at);
      wake();
    }
    this.time = until;
  }
}
