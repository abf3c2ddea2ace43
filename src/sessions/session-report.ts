import type { CacheBreak, PoolKey } from './cache-breaks.js';

/** What `GET /admin/sessions` answers. */
export interface SessionsReport {
  generated_at: string;
  /** The most sessions this router keeps; the least recently active leave first. */
  capacity: number;
  /** Turns the view could not read (none is expected): counted, so that none goes missing unsaid. */
  unread_turns: number;
  /** One entry per session, most recently active first. */
  sessions: SessionView[];
}

/** What a session, or one model of it, used: all its turns summed. */
export interface SessionTotals {
  turns: number;
  /** All input, cached or not; of it, read from the upstream's cache, and written to it. */
  input_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  output_tokens: number;
  /** cached_tokens / input_tokens; null before any input. */
  cached_share: number | null;
  /** The priced turns' cost; null when none was priced. */
  cost_usd: number | null;
  unpriced_turns: number;
  started_at: string;
  last_at: string;
  /** Turns that read less from the cache than their conversation's previous turn left in it. */
  dropped_turns: number;
}

/**
 * One client session: who it is, what it used in all, and each model it asked for. An agent asks
 * more than one (Claude Code's side requests go to a small model), and a prompt cache is per
 * model, so its turns are compared, and its cache drops found, per model.
 */
export interface SessionView extends SessionTotals {
  id: string;
  caller: string;
  format: string;
  agent?: string;
  duration_ms: number;
  /** In the order the session first asked for them (at most MODELS_KEPT, the least recently used leaving first; the totals above count them all). */
  models: SessionModelView[];
}

/** One model a session asked for: where its turns went, and every turn whose cached share dropped. */
export interface SessionModelView extends SessionTotals {
  model: string;
  /** The configured route that served it (the model's, or a pattern's). */
  route: string;
  /** Where its latest turn went. */
  target: string;
  key?: PoolKey;
  /** The latest of them (at most DROPS_KEPT), oldest first, each with the reasons the router saw. */
  drops: CacheDrop[];
}

/** A turn whose cached share dropped, and why, as far as the router can see. */
export interface CacheDrop {
  /** Its place among the session's turns (on every model), from 1: the session's requests in the log are in this order. */
  turn: number;
  time: string;
  target: string;
  key?: PoolKey;
  input_tokens: number;
  cached_tokens: number;
  /** What the previous turn of its conversation read from and wrote to the cache: what this one could have read. */
  cacheable_tokens: number;
  cached_share: number | null;
  previous_cached_share: number | null;
  /** Empty when the router saw no cause (the provider dropped the prefix on its own). */
  reasons: CacheBreak[];
}

/** Running sums, as the book keeps them (nano-dollars, ms since the epoch). */
export interface Tally {
  turns: number;
  input: number;
  cached: number;
  written: number;
  output: number;
  costNanoUsd: number;
  priced: number;
  dropped: number;
  firstAt: number;
  lastAt: number;
}

export const newTally = (firstAt: number, lastAt: number): Tally => ({ turns: 0, input: 0, cached: 0, written: 0, output: 0, costNanoUsd: 0, priced: 0, dropped: 0, firstAt, lastAt });

export function totalsView(tally: Tally): SessionTotals {
  return {
    turns: tally.turns,
    input_tokens: tally.input,
    cached_tokens: tally.cached,
    cache_write_tokens: tally.written,
    output_tokens: tally.output,
    cached_share: tally.input > 0 ? tally.cached / tally.input : null,
    cost_usd: tally.priced > 0 ? tally.costNanoUsd / 1e9 : null,
    unpriced_turns: tally.turns - tally.priced,
    started_at: new Date(tally.firstAt).toISOString(),
    last_at: new Date(tally.lastAt).toISOString(),
    dropped_turns: tally.dropped,
  };
}
