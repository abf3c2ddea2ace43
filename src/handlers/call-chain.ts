import type { Backend } from '../backends/backend.js';
import type { ClientSignal } from '../core/client-signal.js';
import { RouterError, toRouterError } from '../core/errors.js';
import type { CanonicalRequest } from '../core/request.js';
import type { StreamEvent } from '../core/stream-events.js';
import type { Target } from '../core/target.js';
import type { KeyPoolSettings, Settings } from '../config/settings.js';
import { drawLead, leading } from '../routing/chain-lead.js';
import { restFor, type PickedKey } from '../routing/key-pool.js';
import { SessionRoute } from '../routing/session-route.js';
import type { RequestTrace } from './api.js';
import type { RequestContext } from './context.js';
import { requestSession } from './request-session.js';
import { answeredAfterDecline, Declined } from './declined.js';
import { warn } from '../core/warnings.js';

export interface Attempted {
  backend: Backend;
  upstreamModel: string;
  attempts: number;
  /** The index of the pooled key the answering call used, when its backend has a pool. */
  pooledKey?: number;
}

/** A stream whose first events have arrived: that batch, and the iterator for the rest. */
export interface StartedStream {
  first: StreamEvent[] | undefined;
  rest: AsyncIterator<StreamEvent[]>;
}

/** Calls one target for a stream; its first events decide whether it answered (else it throws, for the next). */
export async function startStream(context: RequestContext, backend: Backend, request: CanonicalRequest, upstreamModel: string, apiKey?: string): Promise<StartedStream> {
  return startEvents(backend.stream({ request, upstreamModel, signal: context.request.signal, ...(apiKey ? { apiKey } : {}) }));
}

/** As startStream, for any stream of canonical events (the router's own search loop's). */
export async function startEvents(events: AsyncIterable<StreamEvent[]>): Promise<StartedStream> {
  const rest = events[Symbol.asyncIterator]();
  const first = await rest.next();
  const lead = first.done ? undefined : first.value[0];
  if (lead?.type === 'error') throw lead.error;
  return { first: first.done ? undefined : first.value, rest };
}

/** The longest `retry-after` worth waiting for before trying the same target once more. */
export const MAX_RETRY_WAIT_MS = 5_000;

/**
 * Tries the route's targets in order until one answers; a target that fails before producing
 * anything is replaced by the next. For streams, "answers" means its first event arrived
 * (startStream), so a fallback never shows the client two beginnings. The chain is led by the
 * request's session's target, or by the weighted draw; each pooled backend's key is the session's
 * while it does not rest.
 */
export function tryInOrder<T>(
  context: RequestContext,
  targets: Target[],
  request: CanonicalRequest,
  call: (backend: Backend, upstreamModel: string, apiKey: string | undefined) => Promise<T>,
): Promise<Attempted & { reply: T }> {
  try {
    const opening = sessionRouteFor(context, targets, request);
    // Most requests name no session, or have no choice to make: nothing to wait for before the first target, no moves to note.
    if (opening === undefined) return tryChain(context, leading(targets, drawLead(targets)), request, undefined, call);
    return tryLed(context, opening, request, call);
  } catch (error) {
    // Still a rejection, never a throw, as from the async function this was.
    return Promise.reject(error);
  }
}

/** tryInOrder for a chain the session leads: its moves go into the request's record. */
async function tryLed<T>(
  context: RequestContext,
  opening: Promise<SessionRoute>,
  request: CanonicalRequest,
  call: (backend: Backend, upstreamModel: string, apiKey: string | undefined) => Promise<T>,
): Promise<Attempted & { reply: T }> {
  const affinity = await opening;
  try {
    return await tryChain(context, affinity.chain, request, affinity, call);
  } finally {
    const trace = context.request.trace;
    if (trace && affinity.moves.length) trace.sessionMoved = affinity.moves.join('; ');
  }
}

/**
 * The request's session (src/routing/session-key.ts), when it names one: its cache key goes to
 * upstreams that take one, and a chain that has a choice to make (several targets, or a key pool)
 * is led where the session already is. Undefined, not a promise, when there is nothing to wait for.
 */
function sessionRouteFor(context: RequestContext, targets: Target[], request: CanonicalRequest): Promise<SessionRoute> | undefined {
  const session = requestSession(context, request);
  if (!session) return undefined;
  request.promptCacheKey ??= session.cacheKey;
  const choosing = targets.length > 1 || (targets.length === 1 && keyPoolOf(context.settings, targets[0]!.backend) !== undefined);
  return choosing ? SessionRoute.open(context.app.shared, session.id, targets) : undefined;
}

async function tryChain<T>(
  context: RequestContext,
  targets: Target[],
  request: CanonicalRequest,
  affinity: SessionRoute | undefined,
  call: (backend: Backend, upstreamModel: string, apiKey: string | undefined) => Promise<T>,
): Promise<Attempted & { reply: T }> {
  const { signal, trace } = context.request;
  const clientModel = request.model;
  let lastError: unknown;
  let attempts = 0;
  /** The latest target that declined (a refusal the client asked to fall back from): its answer, should no later target answer. */
  let declined: { error: Declined; backend: Backend; upstreamModel: string; pooledKey?: number } | undefined;
  for (const target of targets) {
    const found = context.app.backends.get(target.backend, context.settings);
    // A promise only on a type's first use, while its module loads.
    const backend = found instanceof Promise ? await found : found;
    const upstreamModel = target.upstreamModel ?? clientModel;
    const pool = keyPoolOf(context.settings, target.backend);
    let rotations = 0;
    let retried = false;
    for (;;) {
      let picked: PickedKey | undefined;
      const startedAt = trace ? performance.now() : 0;
      try {
        if (pool) {
          picked = await context.app.keyPools.pick(target.backend, pool, affinity?.keyFor(target.backend));
          affinity?.keyPicked(target.backend, picked);
        }
        attempts++;
        const reply = await call(backend, upstreamModel, picked?.value);
        affinity?.served(target);
        if (trace) noteAttempt(trace, backend.name, upstreamModel, startedAt, 'ok');
        // Which model answered, after a refusal moved the request on.
        if (declined) warn(request, answeredAfterDecline(declined.error, `${backend.name}:${upstreamModel}`));
        const answered: Attempted & { reply: T } = { backend, upstreamModel, attempts, reply };
        if (picked) answered.pooledKey = picked.index;
        return answered;
      } catch (error) {
        lastError = error;
        if (trace) noteAttempt(trace, backend.name, upstreamModel, startedAt, error);
        if (error instanceof Declined) declined = { error, backend, upstreamModel, ...(picked ? { pooledKey: picked.index } : {}) };
        const rest = picked && pool ? restFor(error, pool) : undefined;
        if (picked && rest !== undefined && rotations++ < pool!.keys.length && !signal.aborted) {
          // This key is refused, not the request: it rests (on every router sharing state) and the next key goes at once.
          context.app.keyPools.rest(picked, rest);
          continue;
        }
        const wait = error instanceof RouterError ? error.retryAfterMs : undefined;
        if (retried || wait === undefined || wait > MAX_RETRY_WAIT_MS || signal.aborted) break;
        // The upstream said when to come back, and soon: that beats a fallback to a lesser target.
        await pause(wait, signal);
        retried = true;
      }
    }
    // Whether another target may answer was decided where the error was built (RouterError.retryable):
    // an outage, rate limit or refused backend key falls through; a fault in the request comes back at once.
    if (!(lastError instanceof RouterError && lastError.retryable) || signal.aborted) break;
  }
  // Every target that answered declined (or the rest failed): the latest refusal is the answer.
  if (declined && !signal.aborted) {
    const answered: Attempted & { reply: T } = { backend: declined.backend, upstreamModel: declined.upstreamModel, attempts, reply: declined.error.answer as T };
    if (declined.pooledKey !== undefined) answered.pooledKey = declined.pooledKey;
    return answered;
  }
  throw lastError ?? new RouterError(502, 'upstream', 'The route has no targets.');
}

/** The backend's key pool, when it has one (looked up as the settings' own entry). */
function keyPoolOf(settings: Settings, backend: string): KeyPoolSettings | undefined {
  const configured = Object.hasOwn(settings.backends, backend) ? settings.backends[backend] : undefined;
  return configured?.keyPool?.keys.length ? configured.keyPool : undefined;
}

/** Notes one attempt for the request log (only when a log or metrics are listening: the trace exists). */
function noteAttempt(trace: RequestTrace, backend: string, upstreamModel: string, startedAt: number, result: 'ok' | unknown): void {
  const latencyMs = Math.round(performance.now() - startedAt);
  if (result === 'ok') (trace.targets ??= []).push({ backend, upstreamModel, outcome: 'ok', latencyMs });
  else {
    const error = toRouterError(result);
    (trace.targets ??= []).push({ backend, upstreamModel, outcome: error.status, latencyMs, error: error.message });
  }
}

/**
 * Waits `ms`, or less if the client goes away meanwhile. A plain timer, not the deadline wheel:
 * this wait is the only thing an in-process call (the CLI's chat) has pending, and it must keep
 * the process alive, which the wheel's unref'd timer does not.
 */
function pause(ms: number, signal: ClientSignal): Promise<void> {
  return new Promise((resolve) => {
    const listener = { handleEvent: done };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', listener);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', listener);
      resolve();
    }
  });
}
