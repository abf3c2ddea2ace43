import { redactText, rememberedSecrets } from '../core/redact.js';
import type { Usage } from '../core/reply.js';
import type { CanonicalRequest } from '../core/request.js';
import { RecentEntries } from '../shared-state/recent-entries.js';
import { cacheBreaks, type PoolKey, type TurnMark } from './cache-breaks.js';
import { cacheLifetime } from './cache-lifetime.js';
import { fingerprintPrompt, leadingParts } from './prompt-fingerprint.js';
import { newTally, totalsView, type CacheDrop, type SessionModelView, type SessionsReport, type SessionView, type Tally } from './session-report.js';

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

export type { CacheDrop, SessionModelView, SessionsReport, SessionTotals, SessionView } from './session-report.js';

/** Sessions kept at once, by default. */
export const SESSIONS_KEPT = 1_000;
/** Models kept apart per session (an agent asks a main and a small model, a few at most); past it the least recently used leaves, its turns still in the session's totals. */
export const MODELS_KEPT = 8;
/** Conversations compared per model of a session: an agent runs subagents beside its main conversation. */
export const CONVERSATIONS_KEPT = 3;
/** Drops listed per model of a session (the count covers them all). */
export const DROPS_KEPT = 20;
/** Turns queued before they are read at once rather than on the next turn of the event loop. */
const MAX_PENDING = 64;

/** One conversation of a session: its latest turn, and what it left in the cache. */
interface Conversation extends TurnMark {
  cached: number;
  written: number;
  share: number | null;
}

/** One session: who it is, its totals, and each model it asked for. */
interface Entry {
  id: string;
  caller: string;
  format: string;
  agent?: string;
  tally: Tally;
  /** By model, in the order first asked for. */
  models: Map<string, Lane>;
}

/** One model of a session: its turns are compared with each other (a prompt cache is per model). */
interface Lane {
  model: string;
  route: string;
  target: string;
  key?: PoolKey;
  tally: Tally;
  drops: CacheDrop[];
  /** Most recently continued last. */
  conversations: Conversation[];
}

/**
 * Each session this router served, in memory: one entry per session with its totals, and per
 * model it asked for where it went and each turn whose cache dropped, with the reason the router
 * can see. Never a word of a prompt, nor a key: a prompt is kept as a hash per part
 * (prompt-fingerprint.ts), a pooled key as its place in the pool.
 *
 * Bounded: at most `capacity` sessions (the least recently active leave first), each with at most
 * MODELS_KEPT models, each with CONVERSATIONS_KEPT fingerprints of at most MAX_HASHED_ITEMS
 * hashes and DROPS_KEPT drops. Cheap for a request: `record` queues the turn; fingerprints are
 * taken on the next turn of the event loop (or when the report is read), off the request's path,
 * and only for requests that name a session.
 */
export class SessionBook {
  /** A turn moves its session to the back; past the capacity, the one unused longest leaves (no idle time: a view keeps what it saw). */
  private readonly entries: RecentEntries<Entry>;
  private pending: SessionTurn[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  private unread = 0;

  constructor(readonly capacity = SESSIONS_KEPT) {
    this.entries = new RecentEntries(capacity, Infinity);
  }

  /** Sessions held. */
  get size(): number {
    this.flush();
    return this.entries.size;
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
    const sessions = [...this.entries.values()].reverse().map(view);
    return { generated_at: new Date(now).toISOString(), capacity: this.capacity, unread_turns: this.unread, sessions };
  }

  private read(turn: SessionTurn): void {
    const entry = this.entries.useOrCreate(turn.session, turn.endedAt, () => newEntry(turn));
    const lane = laneOf(entry, turn);

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
    add(entry.tally, turn);
    add(lane.tally, turn);
    const previous = continued(lane.conversations, mark);
    // Less read than the previous turn read and wrote: part of its cached prefix was lost.
    if (previous && cached < previous.cached + previous.written) {
      entry.tally.dropped++;
      lane.tally.dropped++;
      lane.drops.push({
        turn: entry.tally.turns,
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
  }
}

function newEntry(turn: SessionTurn): Entry {
  return {
    id: turn.session,
    caller: turn.caller,
    format: turn.format,
    // The client's own words: scrubbed of anything shaped like a credential.
    ...(turn.agent ? { agent: redactText(turn.agent, rememberedSecrets()) } : {}),
    tally: newTally(turn.startedAt, turn.endedAt),
    models: new Map(),
  };
}

/** The session's lane for the turn's model, made on its first turn; past MODELS_KEPT the least recently used lane leaves. */
function laneOf(entry: Entry, turn: SessionTurn): Lane {
  const known = entry.models.get(turn.model);
  if (known) return known;
  const lane: Lane = { model: turn.model, route: turn.route, target: turn.target, tally: newTally(turn.startedAt, turn.endedAt), drops: [], conversations: [] };
  if (entry.models.size >= MODELS_KEPT) {
    let idlest: Lane | undefined;
    for (const candidate of entry.models.values()) if (!idlest || candidate.tally.lastAt < idlest.tally.lastAt) idlest = candidate;
    entry.models.delete(idlest!.model);
  }
  entry.models.set(turn.model, lane);
  return lane;
}

/** A turn into a tally (its drop, if any, is counted by the caller). */
function add(tally: Tally, turn: SessionTurn): void {
  const { usage } = turn;
  tally.turns++;
  tally.input += usage.inputTokens;
  tally.cached += usage.cachedInputTokens ?? 0;
  tally.written += usage.cacheWriteInputTokens ?? 0;
  tally.output += usage.outputTokens;
  if (turn.costNanoUsd !== undefined) {
    tally.costNanoUsd += turn.costNanoUsd;
    tally.priced++;
  }
  tally.firstAt = Math.min(tally.firstAt, turn.startedAt);
  tally.lastAt = Math.max(tally.lastAt, turn.endedAt);
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

function view(entry: Entry): SessionView {
  return {
    id: entry.id,
    caller: entry.caller,
    format: entry.format,
    ...(entry.agent ? { agent: entry.agent } : {}),
    ...totalsView(entry.tally),
    duration_ms: Math.max(0, entry.tally.lastAt - entry.tally.firstAt),
    models: [...entry.models.values()].map(modelView),
  };
}

function modelView(lane: Lane): SessionModelView {
  return {
    model: lane.model,
    route: lane.route,
    target: lane.target,
    ...(lane.key ? { key: lane.key } : {}),
    ...totalsView(lane.tally),
    drops: lane.drops.slice(),
  };
}
