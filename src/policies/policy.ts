import type { Settings } from '../config/settings.js';
import type { ClientSignal } from '../core/client-signal.js';
import type { ProviderMetadata } from '../core/provider-metadata.js';
import type { Reply, Usage } from '../core/reply.js';
import type { CanonicalRequest } from '../core/request.js';
import type { StreamEvent } from '../core/stream-events.js';
import type { SvcMeta } from '../formats/client-format.js';
import type { Identity } from '../identity/identity.js';
import type { Session } from '../routing/session-key.js';
import type { Target } from '../core/target.js';
import type { SharedState } from '../shared-state/shared-state.js';
import type { Ledger } from '../usage/ledger.js';
import type { UsageWebhook } from '../usage/usage-webhook.js';

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
  /** The chain of targets that may serve it, in order (a task rule's, when one chose). */
  readonly targets: readonly Target[];
  /** The client session it belongs to (src/routing/session-key.ts), when it names one. */
  readonly session: Session | undefined;
  /** The backend that answered, once one has: set before the reply's first batch is inspected. */
  readonly answeringBackend?: { readonly name: string; readonly wireFormat?: string };
  /**
   * Asks another route of this router a question on the caller's behalf (a classifier's verdict),
   * unstreamed, past the policies: its usage is recorded in the ledger as a request of its own,
   * by the same developer, under that route's name. Rejects with the route's error, or when
   * `signal` aborts; the client going away aborts it too. Absent on a token count.
   */
  consult?(route: string, request: CanonicalRequest, signal: ClientSignal): Promise<Reply>;
  /** The request's input, estimated (about four characters a token). */
  readonly estimatedTokens: number;
  readonly ledger: Ledger;
  /** Counters shared by every router on the same usage store. */
  readonly shared: SharedState;
  /** Where usage notices go beyond the reply (`notify.webhook`), sent off the request path. */
  readonly notices: UsageWebhook;
  /**
   * The key's tokens used in the 30-day window, as the usage cap's reservation found them: set by
   * the usage cap when it admits, for the policies after it (the budget notices), so the window is
   * read once per request.
   */
  windowUsed?: number;
}

/** A request let through, and what the policy still has to do for it. Every member is optional. */
export interface Admission {
  /** Headers for the reply, whatever its shape (JSON or stream, forwarded or translated). */
  readonly headers?: Record<string, string>;
  /**
   * Called once, when the request's usage is recorded, with its price in nano-dollars when known,
   * and the reply's report (svc_meta) being written, which the policy may add to. Never throws. A
   * promise it returns is what the reply waits for before it is finished (the usage on disk).
   */
  settle?(usage: Usage, costNanoUsd: number | undefined, report: SvcMeta): void | Promise<void>;
  /** Called once instead of settle when no usage will be recorded: the request failed, or a later policy refused it. Never throws. */
  release?(): void;
  /**
   * Reads the reply as canonical events, batch by batch (a JSON reply as one batch; a batch holding
   * the `finish` comes on its own, after the events before it). Its presence turns same-format
   * forwarding off for the request, since a forwarded reply is never decoded. Throwing a
   * RouterError ends the reply with that error. Returning a promise holds the batch, and the rest
   * of the reply, until it settles: a policy that must add to the reply's end waits there for what
   * it started earlier (a rejection ends the reply as a throw does). Only promises are awaited.
   */
  inspect?(batch: readonly StreamEvent[]): void | Promise<void>;
  /**
   * The reply's end as the client's encoder gets it: given the `finish` event's provider metadata
   * (the reply's, for a JSON reply) once its batch has been inspected, returns it with what the
   * policy adds in the client format's place for it (a Messages client's `message_delta.delta`
   * fields are `anthropic.messageDeltaExtra`). Called once; only with `inspect`.
   */
  amendFinish?(providerMetadata: ProviderMetadata | undefined): ProviderMetadata | undefined;
  /** For the request record, under the policy's name: what it decided, never a value it found. */
  readonly note?: string;
}
