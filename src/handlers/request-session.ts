import type { CanonicalRequest } from '../core/request.js';
import { sessionOf, type Session } from '../routing/session-key.js';
import type { RequestContext } from './context.js';

/**
 * The session a request names (src/routing/session-key.ts), worked out once per request: routing
 * reads it first, then sets the request's `prompt_cache_key` from it, after which the request would
 * name another. Noted in the request's record.
 */
export function requestSession(context: RequestContext, request: CanonicalRequest): Session | undefined {
  if (context.session === undefined) {
    context.session = sessionOf(context.request.headers, request, context.identity.developer, context.settings.routing?.sessionHeader) ?? null;
    const trace = context.request.trace;
    if (trace && context.session) trace.session = context.session.id;
  }
  return context.session ?? undefined;
}
