import { RouterError, toRouterError } from '../core/errors.js';
import { estimateRequestTokens, tokensForChars } from '../core/estimate-tokens.js';
import { formatCount } from '../core/format-numbers.js';
import { allWarnings, warn } from '../core/warnings.js';
import type { Usage } from '../core/reply.js';
import type { CanonicalRequest } from '../core/request.js';
import type { StreamEvent } from '../core/stream-events.js';
import type { ClientFormat, EncodeContext, SvcMeta } from '../formats/client-format.js';
import { FORMATS } from '../formats/registry.js';
import { admit } from '../limits/rate-limit.js';
import { resolveChain } from '../routing/resolve-route.js';
import { requestTraits } from '../routing/task-rules.js';
import type { Target } from '../routing/target.js';
import type { ApiResponse } from './api.js';
import { type Attempted, type StartedStream } from './call-chain.js';
import type { RequestContext } from './context.js';
import { completeOrForward, forwarderFor, streamOrForward } from './forward/forward-chain.js';
import { relayForwarded } from './forward/relay-forwarded.js';
import { checkRequestBounds } from './request-bounds.js';
import { terminalCut, type TerminalEvent } from './until-terminal.js';
import type { Reservation } from '../usage/ledger.js';
import { costNanoUsd, priceFor, usdOf } from '../usage/prices.js';

/** Most calls carry no query string; decoders only read it, so one empty instance serves them all. */
const NO_QUERY = new URLSearchParams();

/** What every cap refusal says, in whichever client format renders it. */
const raiseCap = (developer: string): string =>
  `To raise the cap, run \`svc-router keys cap ${developer} TOKENS\` where the router runs (it applies at once), or wait for older usage to leave the window.`;

/**
 * The one pipeline behind chat, responses and messages: decode in the client's format, route,
 * check the cap, call the chain, encode back, and record usage exactly once. The pipeline, not
 * the encoder, records usage when it sees the reply or the stream's `finish`, builds svc_meta from
 * it, and ends the stream the encoder sees at its first terminal event.
 */
export async function handleCompletion<Options>(context: RequestContext, format: ClientFormat<Options>): Promise<ApiResponse> {
  const { app, identity } = context;
  const secret = context.settings.secret ?? '';
  const { headers } = context.request;
  const decoded = format.decode(await context.request.readBody(context.settings.server.bodyLimitBytes), {
    secret,
    headers,
    params: context.params ?? {},
    query: context.request.query ? new URLSearchParams(context.request.query) : NO_QUERY,
  });
  if (decoded.request.passthrough && format.passThroughHeaders) {
    const passed: Record<string, string> = {};
    for (const name of format.passThroughHeaders) {
      const value = headers[name];
      if (value) passed[name] = value;
    }
    if (Object.keys(passed).length) decoded.request.passthrough.headers = passed;
  }
  checkRequestBounds(decoded.request);
  const trace = context.request.trace;
  if (trace) Object.assign(trace, { model: decoded.request.model, stream: decoded.stream });
  const needed = estimateRequestTokens(decoded.request);
  const chain = resolveChain(context.settings, decoded.request.model, format, FORMATS, () => requestTraits(decoded.request, needed, decoded.droppedTools));
  const targets: Target[] = chain.targets;
  if (trace && chain.rule) trace.rule = chain.rule;
  if (chain.servedAs) {
    warn(
      decoded.request,
      `No route is set for '${decoded.request.model}'; it was served by ${chain.servedAs}'s route. Route it yourself with svc-router routes set '${decoded.request.model}' BACKEND[:MODEL], or point the client's model variables at an svc SKU (svc-router connect claude).`,
    );
  }
  // Per-key rate limits (when the key has any): one request and its estimated input, per minute.
  const admitted = identity.rateLimit ? await admit(app.shared, identity.developer, identity.rateLimit, needed) : undefined;
  const limitHeaders = admitted?.headers ?? {};
  // The cap is a ceiling: the request's input and max output are held before it is forwarded, in one
  // atomic step with every other request in flight (on every router sharing the ledger), and
  // settled to the real usage when it is recorded, or released if it fails first. See docs/teams.md.
  const reservation = await app.ledger.reserve({
    developer: identity.developer,
    requestId: context.requestId,
    capTokens: identity.capTokens,
    minimum: needed,
    tokens: needed + (decoded.request.maxOutputTokens ?? context.settings.limits.outputReserveTokens),
    ttlMs: context.settings.limits.reservationTtlMs,
  });
  if (!reservation.granted) {
    admitted?.settle(0);
    throw capRefusal(reservation, needed, identity.capTokens, identity.developer);
  }
  const used = reservation.used;
  let attempted: Attempted | undefined;
  let recorded: SvcMeta | undefined;
  try {
    return await forward();
  } catch (error) {
    // Nothing was recorded, so nothing settles the reservation: give it back.
    if (!recorded) {
      void app.ledger.release(identity.developer, context.requestId);
      admitted?.settle(0);
    }
    throw error;
  }

  async function forward(): Promise<ApiResponse> {
    const finish = (usage: Usage): SvcMeta => {
      if (recorded) return recorded;
      const total = usage.inputTokens + usage.outputTokens;
      const backendName = attempted?.backend.name ?? '';
      const upstreamModel = attempted?.upstreamModel ?? '';
      // Priced once, here: the ledger, svc_meta, the request log and the metric all carry this number.
      const cost = attempted ? costNanoUsd(usage, priceFor(context.settings.prices, backendName, upstreamModel, attempted.backend.offline)) : undefined;
      if (trace) Object.assign(trace, { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, ...(cost !== undefined ? { costNanoUsd: cost } : {}) });
      app.ledger.record({
        ts: Date.now(),
        developer: identity.developer,
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        requests: 1,
        requestId: context.requestId,
        model: decoded.request.model,
        backend: attempted?.backend.name,
        upstreamModel: attempted?.upstreamModel,
        ...(usage.cachedInputTokens ? { cacheReadTokens: usage.cachedInputTokens } : {}),
        ...(usage.cacheWriteInputTokens ? { cacheWriteTokens: usage.cacheWriteInputTokens } : {}),
        ...(cost !== undefined ? { costNanoUsd: cost } : {}),
      });
      admitted?.settle(total);
      recorded = {
        request_id: context.requestId,
        sku: decoded.request.model,
        backend: backendName,
        upstream_model: upstreamModel,
        ...(attempted?.backend.offline ? { offline: true as const } : {}),
        attempts: attempted?.attempts ?? 0,
        ...(chain.rule ? { rule: chain.rule } : {}),
        latency_ms: Math.round(performance.now() - context.startedAt),
        usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, total_tokens: total },
        remaining_tokens: Math.max(0, identity.capTokens - used - total),
        // null, not 0, when the upstream model has no price: an unknown cost is not a free request.
        cost_usd: cost === undefined ? null : usdOf(cost),
        ...(decoded.droppedTools?.length && attempted?.backend.wireFormat !== format.name ? { dropped_tools: decoded.droppedTools } : {}),
      };
      const warnings = allWarnings(decoded.request);
      if (warnings) recorded.warnings = warnings;
      return recorded;
    };
    const encodeContext: EncodeContext<Options> = {
      requestId: context.requestId,
      model: decoded.request.model,
      created: Math.floor(Date.now() / 1000),
      options: decoded.options,
      request: decoded.request,
      secret,
      svcMeta: () => {
        // The reply, or the batch carrying the finish, reaches the encoder only once this is set.
        if (!recorded) throw new Error('svc_meta was read before the usage was recorded.');
        return recorded;
      },
    };

    // A same-format target forwards its upstream's reply as it came (src/handlers/forward/), when this request allows it.
    const forwarder = forwarderFor(format, decoded);
    const upstreamStart = performance.now();
    if (!decoded.stream) {
      const result = await completeOrForward(context, targets, decoded.request, forwarder && format.name);
      const upstreamMs = performance.now() - upstreamStart;
      attempted = result;
      if (trace) Object.assign(trace, { backend: result.backend.name, upstreamModel: result.upstreamModel, attempts: result.attempts });
      const replyHeaders = { ...limitHeaders, ...overheadHeader(context, upstreamMs), ...warningHeader(decoded.request) };
      if ('forwarded' in result.reply) {
        finish(result.reply.forwarded.usage);
        return { status: 200, headers: replyHeaders, body: forwarder!.reply(result.reply.forwarded.text, encodeContext) };
      }
      finish(result.reply.reply.usage);
      return { status: 200, headers: replyHeaders, json: format.encodeReply(result.reply.reply, encodeContext) };
    }
    const result = await streamOrForward(context, targets, decoded.request, forwarder && format.name);
    const upstreamMs = performance.now() - upstreamStart;
    attempted = result;
    if (trace) Object.assign(trace, { backend: result.backend.name, upstreamModel: result.upstreamModel, attempts: result.attempts });
    const seen = { usage: undefined as Usage | undefined, outputChars: 0 };
    // A stream cut short (client gone, upstream failed) still bills what was seen. An upstream
    // that reports usage only at its end (Responses) has said nothing yet: estimate its input.
    const billSeen = () => {
      if (recorded) return;
      const usage = seen.usage ?? { inputTokens: needed, outputTokens: 0 };
      finish({ ...usage, outputTokens: Math.max(usage.outputTokens, tokensForChars(seen.outputChars)) });
    };
    // A failure after the stream began is answered in the stream, with a 200: the log still names it.
    const traceError = (error: RouterError) => {
      if (trace) Object.assign(trace, { error: error.message, ...(error.cause !== undefined ? { cause: error.cause } : {}) });
    };
    const streamHeaders = { ...limitHeaders, ...overheadHeader(context, upstreamMs), ...warningHeader(decoded.request) };
    if ('forwarded' in result.reply) {
      const terminal = (note: { error?: RouterError }) => {
        if (note.error) traceError(note.error);
        else finish(seen.usage ?? { inputTokens: needed, outputTokens: tokensForChars(seen.outputChars) });
      };
      return { status: 200, headers: streamHeaders, sse: forwarder!.stream(relayForwarded(result.reply.forwarded, seen, terminal, billSeen), encodeContext) };
    }
    return {
      status: 200,
      headers: streamHeaders,
      sse: format.encodeStream(
        relay(result.reply.started, seen, (event) => (event.type === 'finish' ? finish(event.usage) : traceError(event.error)), billSeen),
        encodeContext,
      ),
    };
  }
}

/** Why a reservation was refused: the cap is reached (by usage, or with what requests in flight hold), or the request is too large for what is left. */
function capRefusal(reservation: Reservation, needed: number, cap: number, developer: string): RouterError {
  const { used, reserved } = reservation;
  const held = reserved > 0 ? ` and ${formatCount(reserved)} held by requests in flight` : '';
  if (used + reserved >= cap) {
    return new RouterError(
      429,
      'rate_limit',
      `Usage cap reached: ${formatCount(used)}${held ? ` used${held},` : ''} of ${formatCount(cap)} tokens used in the last 30 days. ${raiseCap(developer)}`,
      undefined,
      'usage_cap_exceeded',
    );
  }
  return new RouterError(
    429,
    'rate_limit',
    `Request too large for the usage cap: it needs about ${formatCount(needed)} input tokens, but only ${formatCount(cap - used - reserved)} of ${formatCount(cap)} tokens remain in the last 30 days${held ? ` (${formatCount(used)} used${held})` : ''}. Shorten the request, or: ${raiseCap(developer)}`,
    undefined,
    'usage_cap_exceeded',
  );
}

/**
 * `x-svc-overhead-ms`: time spent in the router so far, without the wait for the upstream (for a
 * stream, up to its first event), so users can see what routing costs on their own traffic.
 */
function overheadHeader(context: RequestContext, upstreamMs: number): Record<string, string> {
  return { 'x-svc-overhead-ms': Math.max(0, performance.now() - context.startedAt - upstreamMs).toFixed(3) };
}

/**
 * `x-svc-warning`: what the request asked that was not honoured (previous_response_id with no stored
 * history, a setting the upstream lacks), known before the reply, for clients that never read
 * svc_meta (every format, streams included). Warnings joined by " | ", in printable ASCII.
 */
function warningHeader(request: CanonicalRequest): Record<string, string> {
  const warnings = allWarnings(request);
  return warnings ? { 'x-svc-warning': warnings.join(' | ').replace(/[^\x20-\x7e]/g, '?') } : {};
}

/**
 * Passes the started stream on to the client's encoder, in one step: notes the latest usage and
 * how much output passed (to bill a stream that ends early), hands on nothing after the first
 * terminal event (telling `onTerminal` of it first, see untilTerminal), turns a backend that throws
 * mid-stream into an error event the encoder can render, and when the client stops reading
 * releases the upstream at once and bills what was seen.
 */
async function* relay(
  started: StartedStream,
  seen: { usage: Usage | undefined; outputChars: number },
  onTerminal: (event: TerminalEvent) => void,
  onExit: () => void,
): AsyncGenerator<StreamEvent[]> {
  const note = (batch: StreamEvent[]) => {
    for (const event of batch) {
      if (event.type === 'start' && event.usage) seen.usage = event.usage;
      else if (event.type === 'text-delta' || event.type === 'reasoning-delta') seen.outputChars += event.text.length;
      else if (event.type === 'tool-call-delta') seen.outputChars += event.argumentsDelta.length;
    }
  };
  const cut = terminalCut(onTerminal);
  try {
    if (started.first) {
      note(started.first);
      const out = cut(started.first);
      if (out) yield out;
    }
    for (let next = await started.rest.next(); !next.done; next = await started.rest.next()) {
      note(next.value);
      const out = cut(next.value);
      if (out) yield out;
    }
  } catch (error) {
    const out = cut([{ type: 'error', error: toRouterError(error) }]);
    if (out) yield out;
  } finally {
    await started.rest.return?.();
    onExit();
  }
}
