import { createHash } from 'node:crypto';
import type { CanonicalRequest } from '../core/request.js';

/**
 * The headers coding agents name their session in, read after the one the config names
 * (`routing.sessionHeader`): Claude Code's, then Codex's (`session-id`, as its requests carry it
 * now; `session_id` and `conversation_id` in earlier releases).
 */
export const AGENT_SESSION_HEADERS = ['x-claude-code-session-id', 'session-id', 'session_id', 'conversation_id'] as const;

/** An id longer than this names no session anyone sends: the request is routed as one without a session. */
export const MAX_SESSION_ID_CHARS = 512;

/** One client session, as the router keeps it: never the client's words, only a hash of them. */
export interface Session {
  /** What the session's choices are kept under: a hash of the caller and the session's id, so one caller cannot steer another's. */
  id: string;
  /** The `prompt_cache_key` for upstreams that take one: the client's own, else one derived from the session. */
  cacheKey: string;
}

/**
 * The session a request belongs to, from the first of: the configured header, the agents' session
 * headers, the client's `prompt_cache_key` (Chat, Responses), the session its body names
 * (`request.sessionName`: Anthropic's `metadata.user_id`, a Gemini conversation's opening).
 * Undefined when the request names none: it is then routed on its own, as every request was before
 * sessions.
 */
export function sessionOf(
  headers: Readonly<Record<string, string | undefined>>,
  request: CanonicalRequest,
  caller: string,
  configuredHeader: string | undefined,
): Session | undefined {
  const clientCacheKey = usable(request.promptCacheKey) ?? clientPromptCacheKey(request);
  let named = configuredHeader ? usable(headers[configuredHeader]) : undefined;
  for (let i = 0; named === undefined && i < AGENT_SESSION_HEADERS.length; i++) named = usable(headers[AGENT_SESSION_HEADERS[i]!]);
  named ??= clientCacheKey ?? usable(request.sessionName);
  if (named === undefined) return undefined;
  // One hash, two halves: the key the choices are kept under, and the cache key an upstream sees.
  const digest = createHash('sha256').update(caller).update('\0').update(named).digest('base64url');
  return { id: digest.slice(0, 22), cacheKey: clientCacheKey ?? `svc-${digest.slice(22, 43)}` };
}

/** The `prompt_cache_key` of a Chat or Responses body, as the client sent it. */
function clientPromptCacheKey(request: CanonicalRequest): string | undefined {
  const forwardBody = request.forwardBody;
  if (!forwardBody || forwardBody.format === 'messages') return undefined;
  const value = forwardBody.body.prompt_cache_key;
  return typeof value === 'string' ? usable(value) : undefined;
}

const usable = (value: string | undefined): string | undefined =>
  value !== undefined && value.length > 0 && value.length <= MAX_SESSION_ID_CHARS ? value : undefined;
