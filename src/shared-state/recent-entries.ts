/**
 * Entries by key (hashes, never a client's words), most recently used last: bounded by a count (the
 * one unused longest leaves first) and an idle time, after which a key starts again from nothing.
 * A use is one Map read plus moving the entry to the back of the order.
 */
export class RecentEntries<E> {
  /** Insertion order is recency order: every use moves its entry to the back. */
  private readonly entries = new Map<string, { entry: E; usedAt: number }>();

  constructor(
    private readonly capacity: number,
    private readonly idleMs: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The key's live entry, used now; undefined (and forgotten) when absent or idle too long. */
  use(key: string, now: number): E | undefined {
    const slot = this.entries.get(key);
    if (!slot) return undefined;
    this.entries.delete(key);
    if (now - slot.usedAt > this.idleMs) return undefined;
    slot.usedAt = now;
    this.entries.set(key, slot);
    return slot.entry;
  }

  /** The key's live entry, or a new one from `create`, used now; what is past the bounds leaves. */
  useOrCreate(key: string, now: number, create: () => E): E {
    const entry = this.use(key, now);
    if (entry !== undefined) return entry;
    const slot = { entry: create(), usedAt: now };
    this.entries.set(key, slot);
    this.evict(now);
    return slot.entry;
  }

  /** The key's live entry, left where it is in the order. */
  peek(key: string, now: number): E | undefined {
    const slot = this.entries.get(key);
    return slot && now - slot.usedAt <= this.idleMs ? slot.entry : undefined;
  }

  /** The entries, least recently used first (idle ones included until something evicts them). */
  *values(): IterableIterator<E> {
    for (const slot of this.entries.values()) yield slot.entry;
  }

  /** Drops entries past the capacity, and idle ones at the front of the order (the oldest are there). */
  private evict(now: number): void {
    for (const [key, slot] of this.entries) {
      if (this.entries.size <= this.capacity && now - slot.usedAt <= this.idleMs) return;
      this.entries.delete(key);
    }
  }
}
