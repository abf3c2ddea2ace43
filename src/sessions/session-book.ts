import { redactText, rememberedSecrets } from '../core/redact.js';
import type { Usage } from '../core/reply.js';
import type { CanonicalRequest } from '../core/request.js';
import { RecentEntries } from '../shared-state/recent-entries.js';
import { cacheBreaks, type CacheBreak, type PoolKey, type TurnMark } from './cache-breaks.js';
import { cacheLifetime } from './cache-lifetime.js';
import { fingerprintPrompt, leadingParts } from './prompt-fingerprint.js';

/** One finished turn of a session, as the pipeline hands it over (when its usage is recorded). */
export interface SessionTurn {
  /** The session's id: the hash it is kept under (src/routing/session-key.ts). */
  session: string;
  caller: string;
  /** The client format: chat, responses, messages. */
  format: string;
  /** The client's own name for itself: the first word of its User-Agent (`claude-cli/2.1.3`). */
  agent?: string;
  /** The model the client asked for: a session's turns are compared per model (its side requests on a small model are apart). */
  model: string;
  /** The configured route that served it (the model's, or a pattern's). */
  route: string;
  /** `BACKEND:MODEL` that answered. */
  target: string;
  /** Its backend's type, which says whose cache rules apply. */
  backendType?: string;
  /** The pooled key it used, when its backend has a pool. */
  key?: PoolKey;
  /** When it arrived and when its usage was recorded, ms since the epoch. */
  startedAt: number;
  endedAt: number;
  usage: Usage;
  costNanoUsd?: number;
  /** Read once, for its fingerprint, and not kept. */
  request: CanonicalRequest;
}

/** What `GET /admin/sessions` answers. */
export interface SessionsReport {
  generated_at: string;
  /** The most sessions this router keeps; the least recently active leave first. */
  capacity: number;
  /** Turns the view could not read (none is expected): counted, so that none goes missing unsaid. */
  unread_turns: number;
  /** Most recently active first. */
  sessions: SessionView[];
}

/** One session on one model (a session's side requests on another model are a row of their own). */
export interface SessionView {
  id: string;
  model: string;
  route: string;
  caller: string;
  format: string;
  agent?: string;
  /** Where its latest turn went. */
  target: string;
  key?: PoolKey;
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
  duration_ms: number;
  /** Turns that read less from the cache than their conversation's previous turn left in it. */
  dropped_turns: number;
  /** The latest of them (at most DROPS_KEPT), oldest first, each with the reasons the router saw. */
  drops: CacheDrop[];
}

/** A turn whose cached share dropped, and why, as far as the router can see. */
export interface CacheDrop {
  /** Its place among the session's turns on this route, from 1. */
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

/** Sessions kept at once, by default. */
export const SESSIONS_KEPT = 1_000;
/** Conversations compared per session: an agent runs subagents beside its main conversation. */
export const CONVERSATIONS_KEPT = 3;
/** Drops listed per session (the count covers them all). */
export const DROPS_KEPT = 20;
/** Turns queued before they are read at once rather than on the next turn of the event loop. */
const MAX_PENDING = 64;

/** One conversation of a session: its latest turn, and what it left in the cache. */
interface Conversation extends TurnMark {
  cached: number;
  written: number;
  share: number | null;
}

interface Lane {
  id: string;
  model: string;
  route: string;
  caller: string;
  format: string;
  agent?: string;
  target: string;
  key?: PoolKey;
  turns: number;
  input: number;
  cached: number;
  written: number;
  output: number;
  costNanoUsd: number;
  priced: number;
  firstAt: number;
  lastAt: number;
  dropped: number;
  drops: CacheDrop[];
  /** Most recently continued last. */
  conversations: Conversation[];
}

/**
 * Each session this router served, in memory: totals, where it went, and each turn whose cache
 * dropped with the reason the router can see. Never a word of a prompt, nor a key: a prompt is
 * kept as a hash per part (prompt-fingerprint.ts), a pooled key as its place in the pool.
 *
 * Bounded: at most `capacity` sessions (the least recently active leave first), each with at most
 * CONVERSATIONS_KEPT fingerprints of at most MAX_HASHED_ITEMS hashes and DROPS_KEPT drops.
 * Cheap for a request: `record` queues the turn; fingerprints are taken on the next turn of the
 * event loop (or when the report is read), off the request's path, and only for requests that
 * name a session.
 */
export class SessionBook {
  /** A turn moves its session to the back; past the capacity, the one unused longest leaves (no idle time: a view keeps what it saw). */
  private readonly lanes: RecentEntries<Lane>;
  private pending: SessionTurn[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  private unread = 0;

  constructor(readonly capacity = SESSIONS_KEPT) {
    this.lanes = new RecentEntries(capacity, Infinity);
  }

  get size(): number {
    this.flush();
    return this.lanes.size;
  }

  record(turn: SessionTurn): void {
    this.pending.push(turn);
    if (this.pending.length >= MAX_PENDING) this.flush();
    else this.scheduled ??= setImmediate(() => this.flush());
  }

  /** Reads every queued turn now. */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const turns = this.pending;
    this.pending = [];
    for (const turn of turns) {
      try {
        this.read(turn);
      } catch {
        // A view of the traffic, read off the requests' path: what it cannot read costs it that
        // turn (counted in the report), never the process (this runs on its own turn of the event loop).
        this.unread++;
      }
    }
  }

  report(now = Date.now()): SessionsReport {
    this.flush();
    const sessions = [...this.lanes.values()].reverse().map(view);
    return { generated_at: new Date(now).toISOString(), capacity: this.capacity, unread_turns: this.unread, sessions };
  }

  private read(turn: SessionTurn): void {
    const lane = this.lanes.useOrCreate(`${turn.session}\0${turn.model}`, turn.endedAt, () => newLane(turn));

    const { usage } = turn;
    const cached = usage.cachedInputTokens ?? 0;
    const written = usage.cacheWriteInputTokens ?? 0;
    const share = usage.inputTokens > 0 ? cached / usage.inputTokens : null;
    const mark: Conversation = {
      fingerprint: fingerprintPrompt(turn.request),
      startedAt: turn.startedAt,
      target: turn.target,
      ...(turn.key ? { key: turn.key } : {}),
      ...withLifetime(turn),
      ...(turn.request.unreadReasoning ? { unreadReasoning: { ...turn.request.unreadReasoning } } : {}),
      cached,
      written,
      share,
    };
    lane.turns++;
    const previous = continued(lane.conversations, mark);
    // Less read than the previous turn read and wrote: part of its cached prefix was lost.
    if (previous && cached < previous.cached + previous.written) {
      lane.dropped++;
      lane.drops.push({
        turn: lane.turns,
        time: new Date(turn.startedAt).toISOString(),
        target: turn.target,
        ...(turn.key ? { key: turn.key } : {}),
        input_tokens: usage.inputTokens,
        cached_tokens: cached,
        cacheable_tokens: previous.cached + previous.written,
        cached_share: share,
        previous_cached_share: previous.share,
        reasons: cacheBreaks(previous, mark),
      });
      if (lane.drops.length > DROPS_KEPT) lane.drops.shift();
    }
    keepConversation(lane.conversations, previous, mark);
    lane.route = turn.route;
    lane.target = turn.target;
    if (turn.key) lane.key = turn.key;
    else delete lane.key;
    lane.input += usage.inputTokens;
    lane.cached += cached;
    lane.written += written;
    lane.output += usage.outputTokens;
    if (turn.costNanoUsd !== undefined) {
      lane.costNanoUsd += turn.costNanoUsd;
      lane.priced++;
    }
    lane.lastAt = Math.max(lane.lastAt, turn.endedAt);
  }
}

function newLane(turn: SessionTurn): Lane {
  return {
    id: turn.session,
    model: turn.model,
    route: turn.route,
    caller: turn.caller,
    format: turn.format,
    // The client's own words: scrubbed of anything shaped like a credential.
    ...(turn.agent ? { agent: redactText(turn.agent, rememberedSecrets()) } : {}),
    target: turn.target,
    turns: 0,
    input: 0,
    cached: 0,
    written: 0,
    output: 0,
    costNanoUsd: 0,
    priced: 0,
    firstAt: turn.startedAt,
    lastAt: turn.endedAt,
    dropped: 0,
    drops: [],
    conversations: [],
  };
}

function withLifetime(turn: SessionTurn): Pick<TurnMark, 'lifetime'> {
  const lifetime = cacheLifetime(turn.backendType, turn.request);
  return lifetime ? { lifetime } : {};
}

/** The conversation a turn continues: the one whose prompt it repeats furthest (the latest on a tie). */
function continued(conversations: readonly Conversation[], mark: TurnMark): Conversation | undefined {
  let best: Conversation | undefined;
  let bestShared = -1;
  for (const conversation of conversations) {
    const shared = leadingParts(conversation.fingerprint, mark.fingerprint);
    if (shared >= bestShared) {
      best = conversation;
      bestShared = shared;
    }
  }
  return best;
}

/**
 * The turn becomes its conversation's latest. A turn that does not share the tools, the system
 * prompt and the first item with the one it was compared with starts a conversation of its own (a
 * subagent, a compacted history), so the one it was compared with stays for its own next turn.
 */
function keepConversation(conversations: Conversation[], previous: Conversation | undefined, mark: Conversation): void {
  const sameConversation = previous !== undefined && leadingParts(previous.fingerprint, mark.fingerprint) >= 2 + Math.min(1, previous.fingerprint.items.length, mark.fingerprint.items.length);
  if (sameConversation) conversations.splice(conversations.indexOf(previous), 1);
  conversations.push(mark);
  if (conversations.length > CONVERSATIONS_KEPT) conversations.shift();
}

function view(lane: Lane): SessionView {
  return {
    id: lane.id,
    model: lane.model,
    route: lane.route,
    caller: lane.caller,
    format: lane.format,
    ...(lane.agent ? { agent: lane.agent } : {}),
    target: lane.target,
    ...(lane.key ? { key: lane.key } : {}),
    turns: lane.turns,
    input_tokens: lane.input,
    cached_tokens: lane.cached,
    cache_write_tokens: lane.written,
    output_tokens: lane.output,
    cached_share: lane.input > 0 ? lane.cached / lane.input : null,
    cost_usd: lane.priced > 0 ? lane.costNanoUsd / 1e9 : null,
    unpriced_turns: lane.turns - lane.priced,
    started_at: new Date(lane.firstAt).toISOString(),
    last_at: new Date(lane.lastAt).toISOString(),
    duration_ms: Math.max(0, lane.lastAt - lane.firstAt),
    dropped_turns: lane.dropped,
    drops: lane.drops.slice(),
  };
}
