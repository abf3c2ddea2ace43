import { RouterError } from '../core/errors.js';
import type { Reply } from '../core/reply.js';
import type { CanonicalRequest } from '../core/request.js';
import type { StreamEvent } from '../core/stream-events.js';
import type { Backend } from '../backends/backend.js';

/**
 * A refusal (the model declined: `stop_reason: "refusal"`) on a request that asked for fallbacks
 * (Anthropic's `fallbacks`), from a target that does not run server-side fallback itself: the
 * route's next target is tried, as Anthropic's server-side fallback would try its fallback model
 * (https://platform.claude.com/docs/en/build-with-claude/refusals-and-fallback). Thrown by the call,
 * caught by the chain (call-chain.ts), which answers with the refusal only when no target does better.
 */
export class Declined<T = unknown> extends RouterError {
  constructor(
    /** What the client gets if no later target answers. */
    readonly answer: T,
    /** `BACKEND:MODEL` that declined, and the refusal's category, for the warning naming who answered instead. */
    readonly target: string,
    readonly category: string | null,
  ) {
    super(502, 'upstream', `${target} declined to answer${category ? ` (policy category: ${category})` : ''}.`, undefined, undefined, undefined, { retryable: true });
  }
}

/** Whether the router runs the fallback for this target: the client asked, and the upstream does not run its own. */
export const routerFallsBack = (request: CanonicalRequest, backend: Backend, upstreamModel: string): boolean =>
  request.fallbacks !== undefined && backend.runsServerFallback?.(upstreamModel) !== true;

/** A translated reply that is a refusal, when the router runs the fallback: thrown as Declined, the chain's answer should no target do better. */
export function declineRefusal(reply: Reply, request: CanonicalRequest, backend: Backend, upstreamModel: string): { reply: Reply } {
  const refusal = reply.finish?.refusal;
  if (!refusal || !routerFallsBack(request, backend, upstreamModel)) return { reply };
  throw new Declined({ reply }, `${backend.name}:${upstreamModel}`, refusal.category);
}

/** Events of a stream that show the client nothing yet: a refusal before any of them can still move to the next target. */
const silent = (event: StreamEvent): boolean => event.type === 'start' || event.type === 'reasoning-start' || event.type === 'reasoning-delta' || event.type === 'reasoning-end';

/**
 * A stream's first batches, read until it shows output (text, a tool call, a search) or finishes:
 * a refusal before any output, when the router runs the fallback, is thrown as Declined with the
 * events read so far as its answer; otherwise the batches read, for the client, and the iterator.
 * A refusal after output has begun is the client's (a fallback would show two beginnings).
 */
export async function declineStreamRefusal(
  first: StreamEvent[] | undefined,
  rest: AsyncIterator<StreamEvent[]>,
  request: CanonicalRequest,
  backend: Backend,
  upstreamModel: string,
): Promise<{ first: StreamEvent[] | undefined; rest: AsyncIterator<StreamEvent[]> }> {
  if (!first || !routerFallsBack(request, backend, upstreamModel)) return { first, rest };
  const read: StreamEvent[] = [...first];
  while (read.every(silent)) {
    const next = await rest.next();
    if (next.done) break;
    read.push(...next.value);
  }
  const finish = read.find((event) => event.type === 'finish');
  const shown = read.some((event) => !silent(event) && event.type !== 'finish');
  if (finish?.type === 'finish' && finish.finish?.refusal && !shown) {
    await rest.return?.();
    throw new Declined({ started: { first: read, rest: ended() } }, `${backend.name}:${upstreamModel}`, finish.finish.refusal.category);
  }
  return { first: read, rest };
}

/** The warning naming who answered after a refusal moved the request on. */
export const answeredAfterDecline = (declined: Declined, target: string): string =>
  `${declined.target} declined${declined.category ? ` (policy category: ${declined.category})` : ''}; ${target}, the route's next target, answered instead, as the request asked for fallbacks.`;

/** An iterator with nothing more: a refusal read whole is answered from what was read. */
function ended(): AsyncIterator<StreamEvent[]> {
  return { next: () => Promise.resolve({ done: true, value: undefined }), return: () => Promise.resolve({ done: true, value: undefined }) };
}
