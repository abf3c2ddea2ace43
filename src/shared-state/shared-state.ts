import type { Pins } from './session-pins.js';

/**
 * State several routers must agree on beyond usage: sliding-window counters (rate limits),
 * cooldowns (pooled upstream keys) and where each client session is pinned. In memory for one
 * router; through Redis when the usage store is Redis, so every router behind a load balancer
 * counts and rests the same keys and sends a session to the same target.
 */
export interface SharedState {
  /**
   * Adds `cost` to the window named `key` if what the window holds plus `cost` stays within
   * `limit`, in one atomic step across routers; otherwise adds nothing.
   */
  take(key: string, cost: number, limit: number, windowMs: number, now?: number): Promise<WindowVerdict>;
  /** Adds to the window unconditionally (negative to give back what an estimate over-counted). */
  add(key: string, amount: number, windowMs: number, now?: number): void;
  /** Rests `key` until `untilMs` (ms since the epoch); a later rest never shortens an earlier one. */
  coolDown(key: string, untilMs: number): void;
  /** When each key rests until (0 for a key that is not resting). */
  restingUntil(keys: readonly string[], now?: number): Promise<number[]>;
  /**
   * Where a session (a hash, never the client's id) is pinned: field → choice, or undefined when no
   * router has pinned it. Answered from this process's memory; Redis is asked only when this router
   * has not seen the session yet (the request waits) or last asked a while ago (it does not).
   */
  sessionPins(session: string, now?: number): Promise<Pins | undefined>;
  /** Pins a session's choice for one field, here at once and, through Redis, for every router. */
  pinSession(session: string, field: string, choice: string, now?: number): void;
  close(): Promise<void>;
}

/** What a sliding window said of one request. */
export interface WindowVerdict {
  allowed: boolean;
  /** What the window holds now, this request included when allowed. */
  used: number;
  /** How long until `cost` would fit (0 when allowed; the window's length when it never fits). */
  retryAfterMs: number;
  /** How long until the window is empty again, if nothing more is added. */
  resetMs: number;
}

/**
 * The sliding-window counter: the current fixed window's count plus the previous one's, weighted
 * by how much of it still overlaps the last `windowMs`. Two numbers per key, and within a few
 * percent of an exact log of every request (the approximation Cloudflare and nginx-style limiters use).
 */
export function windowVerdict(previous: number, current: number, now: number, windowMs: number, cost: number, limit: number, taken: boolean): WindowVerdict {
  const elapsed = now % windowMs;
  const overlap = 1 - elapsed / windowMs;
  const estimate = previous * overlap + current;
  const used = Math.ceil(estimate);
  const resetMs = current > 0 ? windowMs - elapsed + windowMs : previous > 0 ? windowMs - elapsed : 0;
  if (taken) return { allowed: true, used, retryAfterMs: 0, resetMs: Math.max(resetMs, windowMs - elapsed + windowMs) };
  let retryAfterMs: number;
  if (cost > limit) retryAfterMs = windowMs;
  else if (current + cost <= limit && previous > 0) {
    // Within this window, as the previous one's share fades.
    retryAfterMs = Math.ceil(((estimate + cost - limit) / previous) * windowMs);
  } else {
    // Not before the next window, as this one's count fades in turn.
    retryAfterMs = Math.ceil(windowMs - elapsed + Math.max(0, 1 - (limit - cost) / current) * windowMs);
  }
  return { allowed: false, used, retryAfterMs: Math.max(1, retryAfterMs), resetMs };
}

/** The weighted count is a float: a request that fits exactly must not be refused for a rounding error. */
export const FIT_EPSILON = 1e-9;

/** The fixed window a time falls in, for a window length. */
export const windowIndex = (now: number, windowMs: number): number => Math.floor(now / windowMs);
