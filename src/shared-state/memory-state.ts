import { SessionPins, type Pins } from './session-pins.js';
import { FIT_EPSILON, windowIndex, windowVerdict, type SharedState, type WindowVerdict } from './shared-state.js';

/** One router's own state: exact within the process, shared with nobody. */
export class MemoryState implements SharedState {
  /** Window key → counts by fixed-window index (only the last two are kept). */
  private readonly windows = new Map<string, Map<number, number>>();
  private readonly resting = new Map<string, number>();
  readonly sessions = new SessionPins();

  async take(key: string, cost: number, limit: number, windowMs: number, now = Date.now()): Promise<WindowVerdict> {
    return this.takeNow(key, cost, limit, windowMs, now);
  }

  /** The same decision, synchronously (the Redis state falls back on it when Redis is away). */
  takeNow(key: string, cost: number, limit: number, windowMs: number, now = Date.now()): WindowVerdict {
    const counts = this.countsOf(key, windowMs, now);
    const index = windowIndex(now, windowMs);
    const previous = counts.get(index - 1) ?? 0;
    const current = counts.get(index) ?? 0;
    const verdict = windowVerdict(previous, current, now, windowMs, cost, limit, false);
    const fits = previous * (1 - (now % windowMs) / windowMs) + current + cost <= limit + FIT_EPSILON;
    if (!fits) return verdict;
    counts.set(index, current + cost);
    return windowVerdict(previous, current + cost, now, windowMs, cost, limit, true);
  }

  add(key: string, amount: number, windowMs: number, now = Date.now()): void {
    const counts = this.countsOf(key, windowMs, now);
    const index = windowIndex(now, windowMs);
    counts.set(index, Math.max(0, (counts.get(index) ?? 0) + amount));
  }

  coolDown(key: string, untilMs: number): void {
    if ((this.resting.get(key) ?? 0) < untilMs) this.resting.set(key, untilMs);
  }

  async restingUntil(keys: readonly string[], now = Date.now()): Promise<number[]> {
    return this.restingNow(keys, now);
  }

  restingNow(keys: readonly string[], now = Date.now()): number[] {
    return keys.map((key) => {
      const until = this.resting.get(key) ?? 0;
      if (until > now) return until;
      this.resting.delete(key);
      return 0;
    });
  }

  async sessionPins(session: string, now = Date.now()): Promise<Pins | undefined> {
    return this.sessions.lookup(session, now)?.pins;
  }

  pinSession(session: string, field: string, choice: string, now = Date.now()): void {
    this.sessions.pin(session, field, choice, now);
  }

  async close(): Promise<void> {}

  private countsOf(key: string, windowMs: number, now: number): Map<number, number> {
    let counts = this.windows.get(key);
    if (!counts) this.windows.set(key, (counts = new Map()));
    const index = windowIndex(now, windowMs);
    for (const seen of counts.keys()) if (seen < index - 1) counts.delete(seen);
    return counts;
  }
}
