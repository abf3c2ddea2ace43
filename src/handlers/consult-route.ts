import { ClientGone, type AbortListener, type ClientSignal } from '../core/client-signal.js';
import type { Reply } from '../core/reply.js';
import type { CanonicalRequest } from '../core/request.js';
import type { ClientFormat } from '../formats/client-format.js';
import { FORMATS } from '../formats/registry.js';
import { newId } from '../formats/shared/ids.js';
import { resolveChain } from '../routing/resolve-route.js';
import { costNanoUsd, priceFor } from '../usage/prices.js';
import { priceProviderOfBackend } from '../backends/registry.js';
import { tryInOrder } from './call-chain.js';
import type { Target } from '../core/target.js';
import type { RequestContext } from './context.js';

/** No session header reaches a consulted route: its answers are not the client's session's, and pin nothing. */
const NO_HEADERS: Readonly<Record<string, string | undefined>> = Object.freeze({});

/**
 * One unstreamed call to another route on the caller's behalf, past the policies: a question a
 * policy asks (auto mode's classifier), not one the client asked. It takes the route's fallback
 * chain like any request, but no session pin and no place in the client's request record. Its usage
 * is recorded in the ledger as a request of its own (an id of its own, so it settles no
 * reservation of the client's request), by the caller's developer, under the route's name, priced
 * as any request is. It stops when `signal` aborts or the client goes away.
 */
export async function consultRoute<Options>(
  context: RequestContext,
  format: ClientFormat<Options>,
  route: string,
  request: CanonicalRequest,
  signal: ClientSignal,
): Promise<Reply> {
  const chain = resolveChain(context.settings, route, format, FORMATS);
  return consultTargets(context, route, chain.targets, request, signal);
}

/**
 * As consultRoute, for a chain of targets given directly (a route's search target): recorded in the
 * ledger under `label`, as a request of the caller's own.
 */
export async function consultTargets(context: RequestContext, label: string, targets: Target[], request: CanonicalRequest, signal: ClientSignal): Promise<Reply> {
  const { settings, identity } = context;
  const stop = eitherSignal(signal, context.request.signal);
  try {
    const consulting = { ...context, request: { ...context.request, headers: NO_HEADERS, signal: stop.signal, trace: undefined } };
    const answered = await tryInOrder(consulting, targets, request, (backend, upstreamModel, apiKey) =>
      backend.complete({ request, upstreamModel, signal: stop.signal, ...(apiKey ? { apiKey } : {}) }),
    );
    const { backend, upstreamModel, reply } = answered;
    const usage = reply.usage;
    const cost = costNanoUsd(usage, priceFor(settings.prices, backend.name, upstreamModel, backend.offline, priceProviderOfBackend(settings, backend.name)));
    // Waited for, as a reply is: a record that cannot be written fails the consult.
    await context.app.ledger.record({
      ts: Date.now(),
      developer: identity.developer,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      requests: 1,
      requestId: newId('req_'),
      model: label,
      backend: backend.name,
      upstreamModel,
      ...(usage.cachedInputTokens ? { cacheReadTokens: usage.cachedInputTokens } : {}),
      ...(usage.cacheWriteInputTokens ? { cacheWriteTokens: usage.cacheWriteInputTokens } : {}),
      ...(cost !== undefined ? { costNanoUsd: cost } : {}),
    });
    return reply;
  } finally {
    stop.dispose();
  }
}

/** A signal aborted when either of two is, and the listeners it took, to give back. */
function eitherSignal(first: ClientSignal, second: ClientSignal): { signal: ClientSignal; dispose(): void } {
  const signal = new ClientGone();
  if (first.aborted || second.aborted) signal.abort();
  const listener: AbortListener = { handleEvent: () => signal.abort() };
  first.addEventListener('abort', listener);
  second.addEventListener('abort', listener);
  return {
    signal,
    dispose() {
      first.removeEventListener('abort', listener);
      second.removeEventListener('abort', listener);
    },
  };
}
