/** What one session is pinned to: a choice per field (a chain's lead target, a pool's key). */
export type Pins = ReadonlyMap<string, string>;

interface Entry {
  pins: Map<string, string>;
  /** When a request of the session last looked: the entry leaves after `idleMs` without one. */
  usedAt: number;
  /** When the entry last agreed with the shared store (Redis); this router's own store never asks. */
  checkedAt: number;
  /** Counts this router's own pins: an answer asked for before the latest of them is older than it. */
  version: number;
}

/** A session as this router knows it. */
export interface KnownSession {
  readonly pins: Pins;
  readonly checkedAt: number;
  readonly version: number;
}

/** Sessions kept at once, by default: past it, the one unused longest leaves. */
export const SESSION_CAPACITY = 50_000;
/** A session unused this long is forgotten (an agent's session idle for an hour has lost its upstream cache anyway). */
export const SESSION_IDLE_MS = 3_600_000;

/**
 * Each session's pins, in this process: keyed by a hash of caller and session (never the client's
 * words), bounded by a count (least recently used leaves first) and an idle time. A lookup is one
 * Map read plus moving the entry to the back of the order.
 */
export class SessionPins {
  /** Insertion order is recency order: every lookup moves its entry to the back. */
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly capacity = SESSION_CAPACITY,
    private readonly idleMs = SESSION_IDLE_MS,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The session's entry, if it is known and has not been idle too long. */
  lookup(session: string, now: number): KnownSession | undefined {
    const entry = this.entries.get(session);
    if (!entry) return undefined;
    this.entries.delete(session);
    if (now - entry.usedAt > this.idleMs) return undefined;
    entry.usedAt = now;
    this.entries.set(session, entry);
    return entry;
  }

  pin(session: string, field: string, choice: string, now: number): void {
    const entry = this.entryOf(session, now);
    entry.pins.set(field, choice);
    entry.version++;
  }

  /**
   * Takes what the shared store held for the session when asked (it wins a disagreement), unless
   * this router pinned the session since it asked (`askedAt`: the version it knew then, 0 for none):
   * that pin is on its way to the store and newer than the answer.
   */
  adopt(session: string, shared: Readonly<Record<string, string>>, now: number, askedAt: number): Pins {
    const entry = this.entryOf(session, now);
    if (entry.version !== askedAt) return entry.pins;
    for (const [field, choice] of Object.entries(shared)) entry.pins.set(field, choice);
    entry.checkedAt = now;
    return entry.pins;
  }

  private entryOf(session: string, now: number): Entry {
    let entry = this.entries.get(session);
    if (entry) {
      this.entries.delete(session);
      entry.usedAt = now;
    } else entry = { pins: new Map(), usedAt: now, checkedAt: now, version: 0 };
    this.entries.set(session, entry);
    this.evict(now);
    return entry;
  }

  /** Drops entries past the capacity, and idle ones at the front of the order (the oldest are there). */
  private evict(now: number): void {
    for (const [session, entry] of this.entries) {
      if (this.entries.size <= this.capacity && now - entry.usedAt <= this.idleMs) return;
      this.entries.delete(session);
    }
  }
}
