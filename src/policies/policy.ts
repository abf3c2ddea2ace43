import type { Settings } from '../config/settings.js';
import type { Usage } from '../core/reply.js';
import type { CanonicalRequest } from '../core/request.js';
import type { StreamEvent } from '../core/stream-events.js';
import type { SvcMeta } from '../formats/client-format.js';
import type { Identity } from '../identity/identity.js';
import type { SharedState } from '../shared-state/shared-state.js';
import type { Ledger } from '../usage/ledger.js';

/**
 * A per-request rule between the doors: after a request is decoded and routed, before any upstream
 * sees it. Each lives in one file of this folder; registry.ts lists them in the order they run.
 * A policy refuses by throwing a RouterError (rendered in the client's format and status), or
 * admits: with nothing to do later (undefined, which costs nothing), or with an Admission.
 */
export interface Policy {
  /** Names the policy's note in the request record. */
  readonly name: string;
  /**
   * Also run on token counts (/v1/messages/count_tokens), whose request reaches an upstream too but
   * is neither answered nor billed: for rules about what a request holds, not what it costs. Its
   * admissions are released when the count is done.
   */
  readonly onCounts?: boolean;
  /** A value, or a promise only when the policy must wait (a shared counter, the ledger): the pipeline awaits promises only. */
  admit(input: PolicyInput): Admission | undefined | Promise<Admission | undefined>;
}

/** What a policy sees of the request. */
export interface PolicyInput {
  /**
   * The request as decoded. A policy may rewrite its text with core/request-text.ts, which changes
   * the canonical request and the client's body a same-format upstream is sent alike.
   */
  readonly request: CanonicalRequest;
  readonly stream: boolean;
  readonly requestId: string;
  readonly identity: Identity;
  /** The settings in force for this whole request. */
  readonly settings: Settings;
  /** The configured route serving the request (its name in `settings.routes`), when one does. */
  readonly route: string | undefined;
  /** The request's input, estimated (about four characters a token). */
  readonly estimatedTokens: number;
  readonly ledger: Ledger;
  /** Counters shared by every router on the same usage store. */
  readonly shared: SharedState;
}

/** A request let through, and what the policy still has to do for it. Every member is optional. */
export interface Admission {
  /** Headers for the reply, whatever its shape (JSON or stream, forwarded or translated). */
  readonly headers?: Record<string, string>;
  /**
   * Called once, when the request's usage is recorded, with its price in nano-dollars when known,
   * and the reply's report (svc_meta) being written, which the policy may add to. Never throws.
   */
  settle?(usage: Usage, costNanoUsd: number | undefined, report: SvcMeta): void;
  /** Called once instead of settle when no usage will be recorded: the request failed, or a later policy refused it. Never throws. */
  release?(): void;
  /**
   * Reads the reply as canonical events, batch by batch (a JSON reply as one batch). Its presence
   * turns same-format forwarding off for the request, since a forwarded reply is never decoded.
   * Throwing a RouterError ends the reply with that error.
   */
  inspect?(batch: readonly StreamEvent[]): void;
  /** For the request record, under the policy's name: what it decided, never a value it found. */
  readonly note?: string;
}
