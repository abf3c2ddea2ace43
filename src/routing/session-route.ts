import type { SharedState } from '../shared-state/shared-state.js';
import type { Pins } from '../shared-state/session-pins.js';
import { drawLead, leading } from './chain-lead.js';
import type { PickedKey } from './key-pool.js';
import { formatTarget, type Target } from './target.js';

/**
 * Providers cache a prompt per upstream and per key (or organisation): a session that hops between
 * targets or pooled keys pays for its whole prefix again at each hop. So a session stays where its
 * first request went while that answers: the weighted draw and round-robin choose once per new
 * session, and only a failure moves it. A moved session stays where it went, even once the old
 * target is healthy again: moving back would lose the cache a second time.
 *
 * One request's part in that: the chain led by the session's target, the key it asks each pool
 * for, and what it moved (for the request log).
 */
export class SessionRoute {
  /** What this request moved, for the request log: `heavy → light`, `pooled key 1 → key 2`. */
  readonly moves: string[] = [];

  private constructor(
    private readonly state: SharedState,
    private readonly session: string,
    private readonly pins: Pins | undefined,
    /** The field the chain's lead is pinned under; undefined for a chain of one target. */
    private readonly field: string | undefined,
    /** The target text the session is on now: pinned earlier, or drawn (and pinned) by this request. */
    private lead: string,
    /** Whether an earlier request pinned it (a change is then a move, worth a line in the log). */
    private readonly pinnedBefore: boolean,
    readonly chain: Target[],
  ) {}

  /** The chain for a request of `session`: its pinned target first, or a new draw, pinned at once so the session's concurrent requests agree. */
  static async open(state: SharedState, session: string, targets: Target[]): Promise<SessionRoute> {
    const pins = await state.sessionPins(session);
    const field = targets.length > 1 ? chainField(targets) : undefined;
    const pinned = field === undefined ? undefined : pins?.get(field);
    const at = pinned === undefined ? undefined : targets.find((target) => formatTarget(target) === pinned);
    const chain = leading(targets, at ?? drawLead(targets));
    const lead = formatTarget(chain[0]!);
    if (field !== undefined && lead !== pinned) state.pinSession(session, field, lead);
    return new SessionRoute(state, session, pins, field, lead, pinned !== undefined, chain);
  }

  /** The id of the key this session uses on a pooled backend, if it has one. */
  keyFor(backend: string): string | undefined {
    return this.pins?.get(keyField(backend));
  }

  /** Pins the key a call is about to use, when the session had none there or its own rests (a move). */
  keyPicked(backend: string, picked: PickedKey): void {
    const field = keyField(backend);
    if (this.pins?.get(field) === picked.id) return;
    if (picked.instead !== undefined) this.moves.push(`${backend} key ${picked.instead === -1 ? '(gone)' : picked.instead + 1} → key ${picked.index + 1}`);
    this.state.pinSession(this.session, field, picked.id);
  }

  /** The target that answered: the session moves there if it is not where the session was. */
  served(target: Target): void {
    const text = formatTarget(target);
    if (this.field === undefined || text === this.lead) return;
    if (this.pinnedBefore) this.moves.push(`${this.lead} → ${text}`);
    this.state.pinSession(this.session, this.field, text);
    this.lead = text;
  }
}

/** A chain's pin is kept per chain (its targets), so a session's side requests on another route leave its main chain's pin alone. */
const chainField = (targets: readonly Target[]): string => `t:${targets.map(formatTarget).join(',')}`;
const keyField = (backend: string): string => `k:${backend}`;
