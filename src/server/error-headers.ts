import { retryMayHelp, type RouterError } from '../core/errors.js';

/**
 * The headers every HTTP answer of an error carries beside its body, in every client format: the
 * error's own (a rate limit's `x-ratelimit-*`), `retry-after` when it says when, and
 * `x-should-retry`, which Anthropic's and OpenAI's SDKs obey before their own status rules
 * (core/errors.ts says when a retry may help). An error on an open WebSocket or inside a stream
 * that has begun has no HTTP head to carry them.
 */
export function errorHeaders(error: RouterError, requestId?: string): Record<string, string> {
  const headers: Record<string, string> = { ...error.headers };
  if (requestId !== undefined) headers['x-request-id'] = requestId;
  if (error.retryAfterMs !== undefined) headers['retry-after'] = String(Math.ceil(error.retryAfterMs / 1000));
  headers['x-should-retry'] = String(retryMayHelp(error));
  return headers;
}

/** The same headers as lines of a head written straight to a socket (`name: value\r\n` each). */
export const errorHeaderLines = (error: RouterError, requestId?: string): string =>
  Object.entries(errorHeaders(error, requestId))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
