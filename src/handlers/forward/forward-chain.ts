import type { Backend, ForwardingBackend } from '../../backends/backend.js';
import type { ForwardedFrame, ForwardedReply } from '../../core/forwarded.js';
import type { Reply } from '../../core/reply.js';
import type { CanonicalRequest } from '../../core/request.js';
import type { ClientFormat, Decoded, FormatForwarder } from '../../formats/client-format.js';
import type { Target } from '../../routing/target.js';
import { startStream, tryInOrder, type Attempted, type StartedStream } from '../call-chain.js';
import type { RequestContext } from '../context.js';

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
  return forwarder && decoded.request.passthrough?.format === format.name && forwarder.allows(decoded) ? forwarder : undefined;
}

/** The backend's forwarding side when it speaks the client's format, else undefined (the call is translated). */
const forwardingOf = (backend: Backend, format: string | undefined): ForwardingBackend | undefined =>
  format !== undefined && backend.wireFormat === format ? backend.forward : undefined;

/**
 * completeOnChain, with each same-format target forwarded: the chain may mix targets that forward
 * and targets that translate, and falls back across them alike.
 */
export function completeOrForward(
  context: RequestContext,
  targets: Target[],
  request: CanonicalRequest,
  forwardFormat: string | undefined,
): Promise<Attempted & { reply: { reply: Reply } | { forwarded: ForwardedReply } }> {
  return tryInOrder(context, targets, request, async (backend, upstreamModel, apiKey) => {
    const call = { request, upstreamModel, signal: context.request.signal, ...(apiKey ? { apiKey } : {}) };
    const forwarding = forwardingOf(backend, forwardFormat);
    return forwarding ? { forwarded: await forwarding.complete(call) } : { reply: await backend.complete(call) };
  });
}

/**
 * streamOnChain, with each same-format target forwarded. A target has answered once its first
 * frames arrived and the first of them is not an error: before that, the next target is tried.
 */
export function streamOrForward(
  context: RequestContext,
  targets: Target[],
  request: CanonicalRequest,
  forwardFormat: string | undefined,
): Promise<Attempted & { reply: { started: StartedStream } | { forwarded: StartedForward } }> {
  return tryInOrder(context, targets, request, async (backend, upstreamModel, apiKey) => {
    const forwarding = forwardingOf(backend, forwardFormat);
    if (!forwarding) return { started: await startStream(context, backend, request, upstreamModel, apiKey) };
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
