import { RecentEntries } from './recent-entries.js';

/** What one session is pinned to: a choice per field (a chain's lead target, a pool's key). */
export type Pins = ReadonlyMap<string, string>;

interface Entry {
  pins: Map<string, string>;
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
  private readonly entries: RecentEntries<Entry>;

  constructor(capacity = SESSION_CAPACITY, idleMs = SESSION_IDLE_MS) {
    this.entries = new RecentEntries(capacity, idleMs);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The session's entry, if it is known and has not been idle too long. */
  lookup(session: string, now: number): KnownSession | undefined {
    return this.entries.use(session, now);
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

  /** A session idle too long starts again with no pins. */
  private entryOf(session: string, now: number): Entry {
    return this.entries.useOrCreate(session, now, () => ({ pins: new Map(), checkedAt: now, version: 0 }));
  }
}
