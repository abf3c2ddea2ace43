import { RecentEntries } from './recent-entries.js';
import { SESSION_CAPACITY, SESSION_IDLE_MS } from './session-pins.js';
import { decideSpend, type Spend, type SpendAsk, type SpendVerdict } from './spend.js';

interface Entry {
  used: Spend;
  /** Request id → what it holds, and when the hold lapses (a router that died never settles it). */
  holds: Map<string, { spend: Spend; until: number }>;
}

/**
 * What each scope (a session's hash) has used and holds, in this process: bounded by a count (the
 * scope unused longest leaves first) and an idle time, after which a scope starts again at nothing.
 * Keyed by hashes only, never a client's words.
 */
export class SpendCounters {
  private readonly entries: RecentEntries<Entry>;

  constructor(capacity = SESSION_CAPACITY, idleMs = SESSION_IDLE_MS) {
    this.entries = new RecentEntries(capacity, idleMs);
  }

  get size(): number {
    return this.entries.size;
  }

  reserve(scope: string, ask: SpendAsk, now = Date.now()): SpendVerdict {
    const entry = this.entryOf(scope, now);
    const held: Spend = { tokens: 0, nanoUsd: 0 };
    for (const [requestId, hold] of entry.holds) {
      if (hold.until <= now || requestId === ask.requestId) entry.holds.delete(requestId);
      else {
        held.tokens += hold.spend.tokens;
        held.nanoUsd += hold.spend.nanoUsd;
      }
    }
    const verdict = decideSpend(ask, { ...entry.used }, held);
    if (verdict.granted) entry.holds.set(ask.requestId, { spend: verdict.took, until: now + ask.holdTtlMs });
    return verdict;
  }

  /** Counts what the request used, and lets go of what it held, in one step. */
  settle(scope: string, requestId: string, spent: Spend, now = Date.now()): void {
    const entry = this.entryOf(scope, now);
    entry.holds.delete(requestId);
    entry.used.tokens += spent.tokens;
    entry.used.nanoUsd += spent.nanoUsd;
  }

  release(scope: string, requestId: string, now = Date.now()): void {
    this.entries.peek(scope, now)?.holds.delete(requestId);
  }

  /** The scope's use and holds, for tests and reports (undefined once it has idled out). */
  peek(scope: string, now = Date.now()): { used: Spend; holding: number } | undefined {
    const entry = this.entries.peek(scope, now);
    if (!entry) return undefined;
    return { used: { ...entry.used }, holding: entry.holds.size };
  }

  /** A scope idle too long starts again at nothing (its holds lapsed long before). */
  private entryOf(scope: string, now: number): Entry {
    return this.entries.useOrCreate(scope, now, () => ({ used: { tokens: 0, nanoUsd: 0 }, holds: new Map() }));
  }
}
