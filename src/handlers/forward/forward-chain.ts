import { wireFormatOf, type Backend, type ForwardingBackend } from '../../backends/backend.js';
import type { ForwardedFrame, ForwardedReply } from '../../core/forwarded.js';
import type { Reply } from '../../core/reply.js';
import type { CanonicalRequest } from '../../core/request.js';
import type { ClientFormat, Decoded, FormatForwarder } from '../../formats/client-format.js';
import type { Target } from '../../core/target.js';
import { startEvents, startStream, tryInOrder, type Attempted, type StartedStream } from '../call-chain.js';
import { servedSearchReply, servedSearchStream } from '../served-search.js';
import type { RequestContext } from '../context.js';
import { declineRefusal, declineStreamRefusal, routerFallsBack } from '../declined.js';

/** A forwarded stream whose first frames have arrived: that batch, and the iterator for the rest. */
export interface StartedForward {
  first: ForwardedFrame[];
  rest: AsyncIterator<ForwardedFrame[]>;
}

/**
 * The forwarder for this request, if its reply may pass untranslated from a same-format upstream:
 * the format forwards, and its rule for the request allows it (docs/architecture.md, "Same-format
 * forwarding"). Decided once per request, from what the decoder kept; the target decides the rest.
 */
export function forwarderFor<Options>(format: ClientFormat<Options>, decoded: Decoded<Options>): FormatForwarder<Options> | undefined {
  const forwarder = format.forward;
  return forwarder && decoded.request.forwardBody?.format === format.name && forwarder.allows(decoded) ? forwarder : undefined;
}

/**
 * The backend's forwarding side when it speaks the client's format, else undefined (the call is
 * translated). A request offering web search to an upstream without search of its own is
 * translated too: the router serves the search, or the backend refuses it. So is one that asks for
 * fallbacks where the router runs them (declined.ts): the router reads the refusal it moves on from.
 */
const forwardingOf = (backend: Backend, format: string | undefined, request: CanonicalRequest, upstreamModel: string): ForwardingBackend | undefined =>
  format !== undefined && wireFormatOf(backend, upstreamModel) === format && !(request.webSearch && !backend.nativeWebSearch) && !routerFallsBack(request, backend, upstreamModel) ? backend.forward : undefined;

/** Whether the router runs this request's web search for this backend (src/handlers/served-search.ts). */
const servesSearch = (backend: Backend, request: CanonicalRequest, searchTarget: Target | undefined): searchTarget is Target =>
  request.webSearch !== undefined && !backend.nativeWebSearch && searchTarget !== undefined;

/**
 * Calls the chain (tryInOrder) for a JSON reply, each same-format target forwarded: the chain may
 * mix targets that forward and targets that translate, and falls back across them alike.
 */
export function completeOrForward(
  context: RequestContext,
  targets: Target[],
  request: CanonicalRequest,
  forwardFormat: string | undefined,
  searchTarget?: Target,
): Promise<Attempted & { reply: { reply: Reply } | { forwarded: ForwardedReply } }> {
  // No async wrapper per attempt: the call's own promise, tagged with what kind of reply it brings (tryChain catches a throw here as a failed attempt).
  return tryInOrder(context, targets, request, (backend, upstreamModel, apiKey): Promise<{ reply: Reply } | { forwarded: ForwardedReply }> => {
    if (servesSearch(backend, request, searchTarget)) return servedSearchReply(context, backend, request, upstreamModel, apiKey, searchTarget).then(asReply);
    const call = { request, upstreamModel, signal: context.request.signal, ...(apiKey ? { apiKey } : {}) };
    const forwarding = forwardingOf(backend, forwardFormat, request, upstreamModel);
    // A refusal, where the router runs the client's fallbacks, moves to the next target (declined.ts).
    return forwarding ? forwarding.complete(call).then(asForwarded) : backend.complete(call).then((reply) => declineRefusal(reply, request, backend, upstreamModel));
  });
}

const asReply = (reply: Reply): { reply: Reply } => ({ reply });
const asForwarded = (forwarded: ForwardedReply): { forwarded: ForwardedReply } => ({ forwarded });

/**
 * Calls the chain (tryInOrder) for a stream, each same-format target forwarded. A target has
 * answered once its first frames arrived and the first of them is not an error: before that, the
 * next target is tried.
 */
export function streamOrForward(
  context: RequestContext,
  targets: Target[],
  request: CanonicalRequest,
  forwardFormat: string | undefined,
  searchTarget?: Target,
): Promise<Attempted & { reply: { started: StartedStream } | { forwarded: StartedForward } }> {
  return tryInOrder(context, targets, request, async (backend, upstreamModel, apiKey) => {
    if (servesSearch(backend, request, searchTarget)) return { started: await startEvents(servedSearchStream(context, backend, request, upstreamModel, apiKey, searchTarget)) };
    const forwarding = forwardingOf(backend, forwardFormat, request, upstreamModel);
    if (!forwarding) {
      const started = await startStream(context, backend, request, upstreamModel, apiKey);
      // A refusal before any output, where the router runs the client's fallbacks, moves to the next target (declined.ts).
      return { started: await declineStreamRefusal(started.first, started.rest, request, backend, upstreamModel) };
    }
    const rest = forwarding.stream({ request, upstreamModel, signal: context.request.signal, ...(apiKey ? { apiKey } : {}) })[Symbol.asyncIterator]();
    const first = await rest.next();
    const lead = first.done ? undefined : first.value[0];
    if (lead?.note.error) {
      await rest.return?.();
      throw lead.note.error;
    }
    return { forwarded: { first: first.done ? [] : first.value, rest } };
  });
}
