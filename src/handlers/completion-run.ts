import type { ClientSignal } from '../core/client-signal.js';
import type { RouterError } from '../core/errors.js';
import { estimateRequestTokens, tokensForChars } from '../core/estimate-tokens.js';
import type { FrameNote } from '../core/forwarded.js';
import type { Reply, Usage } from '../core/reply.js';
import type { CanonicalRequest } from '../core/request.js';
import type { RequestTrace } from '../core/request-record.js';
import { allWarnings, warn } from '../core/warnings.js';
import type { ClientFormat, Decoded, EncodeContext, FormatForwarder, SvcMeta } from '../formats/client-format.js';
import { FORMATS } from '../formats/registry.js';
import type { Admissions } from '../policies/pipeline.js';
import type { PolicyInput } from '../policies/policy.js';
import { resolveChain, type Chain } from '../routing/resolve-route.js';
import type { Session } from '../routing/session-key.js';
import { requestTraits } from '../routing/task-rules.js';
import { costNanoUsd, priceFor, usdOf } from '../usage/prices.js';
import { priceProviderOfBackend } from '../backends/registry.js';
import type { Target } from '../core/target.js';
import { wireFormatOf } from '../backends/backend.js';
import type { Attempted } from './call-chain.js';
import { consultRoute } from './consult-route.js';
import type { RequestContext } from './context.js';
import { forwarderFor } from './forward/forward-chain.js';
import type { SeenSoFar } from './forward/forwarded-stream.js';
import { sessionTurnOf } from './session-turn.js';
import { requestSession } from './request-session.js';
import type { TerminalEvent } from './terminal-cut.js';

/**
 * One completion request on its way through the pipeline, decoded and routed: what the policies
 * see of it (PolicyInput), what the client's encoder reads (EncodeContext), and the one place its
 * usage is recorded. One object per request, so the pipeline's steps share it instead of each
 * closing over its own copy.
 */
export class CompletionRun<Options> implements PolicyInput, EncodeContext<Options> {
  readonly request: CanonicalRequest;
  readonly stream: boolean;
  readonly requestId: string;
  readonly model: string;
  readonly created = Math.floor(Date.now() / 1000);
  readonly options: Options;
  readonly secret: string;
  readonly estimatedTokens: number;
  readonly chain: Chain;
  readonly trace: RequestTrace | undefined;
  /** The upstream's latest usage and the output seen so far, to bill a stream cut short. */
  readonly seen: SeenSoFar = { usage: undefined, outputChars: 0 };
  /** The key's usage in the window, once the usage cap has read it (PolicyInput). */
  windowUsed: number | undefined;
  /** Set once the policies have admitted the request. */
  admitted!: Admissions;
  /** The target that answered. */
  attempted: Attempted | undefined;
  /** svc_meta, once the usage is recorded. */
  private recorded: SvcMeta | undefined;
  /**
   * The record's write, while it is pending: the ledger writes a turn's records together, and the
   * reply is finished only after (see written()).
   */
  private writing: Promise<void> | undefined;

  constructor(
    readonly context: RequestContext,
    readonly format: ClientFormat<Options>,
    readonly decoded: Decoded<Options>,
  ) {
    const request = decoded.request;
    this.request = request;
    this.stream = decoded.stream;
    this.requestId = context.requestId;
    this.model = request.model;
    this.options = decoded.options;
    this.secret = context.settings.secret ?? '';
    const trace = context.request.trace;
    this.trace = trace;
    if (trace) {
      trace.model = request.model;
      trace.stream = decoded.stream;
    }
    const needed = estimateRequestTokens(request);
    this.estimatedTokens = needed;
    this.chain = resolveChain(context.settings, request.model, format, FORMATS, () => requestTraits(request, needed, decoded.droppedTools));
    if (trace && this.chain.rule) trace.rule = this.chain.rule;
    if (this.chain.servedAs) {
      warn(
        request,
        `No route is set for '${request.model}'; it was served by ${this.chain.servedAs}'s route. Route it yourself with svc-router routes set '${request.model}' BACKEND[:MODEL], or point the client's model variables at an svc SKU (svc-router connect claude).`,
      );
    }
  }

  get identity(): PolicyInput['identity'] {
    return this.context.identity;
  }

  get settings(): PolicyInput['settings'] {
    return this.context.settings;
  }

  get route(): string | undefined {
    return this.chain.route;
  }

  get targets(): readonly Target[] {
    return this.chain.targets;
  }

  get answeringBackend(): PolicyInput['answeringBackend'] {
    return this.attempted?.backend;
  }

  get upstreamWireFormat(): EncodeContext<Options>['upstreamWireFormat'] {
    return this.attempted && wireFormatOf(this.attempted.backend, this.attempted.upstreamModel);
  }

  get upstreamModel(): string | undefined {
    return this.attempted?.upstreamModel;
  }

  /** Another route's answer on this caller's behalf (a policy's classifier), recorded as a request of its own. */
  consult(route: string, request: CanonicalRequest, signal: ClientSignal): Promise<Reply> {
    return consultRoute(this.context, this.format, route, request, signal);
  }

  get ledger(): PolicyInput['ledger'] {
    return this.context.app.ledger;
  }

  get shared(): PolicyInput['shared'] {
    return this.context.app.shared;
  }

  get notices(): PolicyInput['notices'] {
    return this.context.app.notices;
  }


  /** Worked out when a policy first asks (one that caps sessions), as the routing will. */
  /** Worked out once per request, for the policies and the call chain alike (request-session.ts). */
  get session(): Session | undefined {
    return requestSession(this.context, this.request);
  }

  /** The forwarder when the reply may pass untranslated: the format allows it, and no policy reads the reply. */
  forwarder(): FormatForwarder<Options> | undefined {
    return this.admitted.inspects ? undefined : forwarderFor(this.format, this.decoded);
  }

  /** The target that answered, for svc_meta, the record and the price. */
  answeredBy(attempted: Attempted): void {
    this.attempted = attempted;
    const trace = this.trace;
    if (trace) {
      trace.backend = attempted.backend.name;
      trace.upstreamModel = attempted.upstreamModel;
      trace.attempts = attempted.attempts;
    }
  }

  svcMeta(): SvcMeta {
    // The reply, or the batch carrying the finish, reaches the encoder only once this is set.
    if (!this.recorded) throw new Error('svc_meta was read before the usage was recorded.');
    return this.recorded;
  }

  /**
   * Records the request's usage, once: prices it (the ledger, svc_meta, the request log and the
   * metric all carry this one number), settles every policy's admission with it, adds the turn to
   * its session's (src/sessions/), and builds svc_meta.
   */
  finish(usage: Usage): SvcMeta {
    if (this.recorded) return this.recorded;
    const { attempted, trace, request } = this;
    const total = usage.inputTokens + usage.outputTokens;
    const cost = attempted ? costNanoUsd(usage, priceFor(this.settings.prices, attempted.backend.name, attempted.upstreamModel, attempted.backend.offline, priceProviderOfBackend(this.settings, attempted.backend.name))) : undefined;
    if (trace) {
      trace.inputTokens = usage.inputTokens;
      trace.outputTokens = usage.outputTokens;
      if (cost !== undefined) trace.costNanoUsd = cost;
    }
    const report: SvcMeta = {
      request_id: this.requestId,
      sku: request.model,
      backend: attempted?.backend.name ?? '',
      upstream_model: attempted?.upstreamModel ?? '',
      ...(attempted?.backend.offline ? { offline: true as const } : {}),
      attempts: attempted?.attempts ?? 0,
      ...(this.chain.rule ? { rule: this.chain.rule } : {}),
      latency_ms: Math.round(performance.now() - this.context.startedAt),
      usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, total_tokens: total },
    };
    this.recorded = report;
    // The usage cap records the usage here, and adds what is left of the cap to the report.
    this.writing = this.admitted.settle(usage, cost, report);
    const turn = sessionTurnOf(this, usage, cost);
    if (turn) this.context.app.sessions.record(turn);
    // null, not 0, when the upstream model has no price: an unknown cost is not a free request.
    report.cost_usd = cost === undefined ? null : usdOf(cost);
    if (this.decoded.droppedTools?.length && (!attempted || wireFormatOf(attempted.backend, attempted.upstreamModel) !== this.format.name)) report.dropped_tools = this.decoded.droppedTools;
    const warnings = allWarnings(request);
    if (warnings) report.warnings = warnings;
    return report;
  }

  /** The recorded usage's write, when it is still pending: awaited before the reply's end goes out (once). */
  written(): Promise<void> | undefined {
    const writing = this.writing;
    this.writing = undefined;
    return writing;
  }

  /** svc_meta.warnings again, after a policy that read the reply added one (the report is built when the usage is recorded). */
  rereadWarnings(): void {
    const warnings = allWarnings(this.request);
    if (this.recorded && warnings) this.recorded.warnings = warnings;
  }

  /** A stream cut short (client gone, upstream failed) still bills what was seen; an upstream that reports usage only at its end has said nothing yet, so its input is estimated. */
  billSeen(): void {
    if (this.recorded) return;
    const usage = this.seen.usage ?? { inputTokens: this.estimatedTokens, outputTokens: 0 };
    this.finish({ ...usage, outputTokens: Math.max(usage.outputTokens, tokensForChars(this.seen.outputChars)) });
  }

  /** The translated stream's terminal event: its usage is recorded, or its error noted for the log. */
  terminal(event: TerminalEvent): void {
    if (event.type === 'finish') this.finish(event.usage);
    else this.traceError(event.error);
  }

  /** The forwarded stream's terminal frame, likewise. */
  forwardedTerminal(note: FrameNote): void {
    if (note.error) this.traceError(note.error);
    else this.finish(this.seen.usage ?? { inputTokens: this.estimatedTokens, outputTokens: tokensForChars(this.seen.outputChars) });
  }

  /** The request failed before its usage was recorded: every admission is released. */
  fail(): void {
    if (!this.recorded) this.admitted.release();
  }

  /** A failure after the stream began is answered in the stream, with a 200: the log still names it. */
  private traceError(error: RouterError): void {
    const trace = this.trace;
    if (!trace) return;
    trace.error = error.message;
    if (error.cause !== undefined) trace.cause = error.cause;
  }
}
