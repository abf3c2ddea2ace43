import type { ClientSignal } from '../../core/client-signal.js';
import { RouterError } from '../../core/errors.js';
import { MAX_UPSTREAM_TEXT, redactText } from '../../core/redact.js';

/**
 * Maps an upstream's error status to what the client should see. Rate limits and server faults
 * stay retryable (the route may fall back); a rejected request is the client's to fix and keeps
 * the upstream's message; the backend's own credentials failing is the router's problem, not the
 * client's, so it becomes a 502 that names the backend but never the key.
 */
export function upstreamError(backend: string, status: number, message: string | undefined, secrets: string[], retryAfterMs?: number): RouterError {
  const detail = message ? `: ${redact(message, secrets)}` : '';
  if (status === 401 || status === 403) {
    return new RouterError(502, 'upstream', `Backend '${backend}' rejected its API key (HTTP ${status}); check its key in svc-router backends.`);
  }
  if (status === 429) return new RouterError(429, 'rate_limit', `Backend '${backend}' is rate limited${detail}`, undefined, 'upstream_rate_limited', retryAfterMs);
  if (status === 529 || status === 503) return new RouterError(503, 'overloaded', `Backend '${backend}' is overloaded${detail}`, undefined, 'upstream_overloaded', retryAfterMs);
  if (status >= 500) return new RouterError(502, 'upstream', `Backend '${backend}' failed with HTTP ${status}${detail}`, undefined, 'upstream_error');
  if (status === 404) return new RouterError(502, 'upstream', `Backend '${backend}' has no such endpoint or model (HTTP 404)${detail}`, undefined, 'upstream_not_found');
  if (status === 413) return new RouterError(413, 'too_large', `Backend '${backend}' says the request is too large${detail}`);
  return new RouterError(400, 'invalid_request', `Backend '${backend}' rejected the request (HTTP ${status})${detail}`);
}

/** Removes anything that looks like a credential from upstream text before a client sees it, then bounds it. */
export function redact(text: string, secrets: string[]): string {
  return redactText(text, secrets, MAX_UPSTREAM_TEXT);
}

/** The message inside an OpenAI- or Anthropic-shaped error body, if there is one. */
export function errorMessageOf(body: unknown): string | undefined {
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error === 'string') return error;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : undefined;
}

/** `retry-after` as seconds or an HTTP date (and OpenAI's `retry-after-ms`), in milliseconds. */
export function parseRetryAfter(headers: Record<string, string | string[] | undefined>, now = Date.now()): number | undefined {
  const ms = Number(headers['retry-after-ms']);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers['retry-after'];
  if (typeof value !== 'string' || value === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * A failed call (refused, reset, timed out, or the client gone) as the RouterError the client sees.
 * undici's errors are told apart by their codes, so this file does not load undici.
 */
export function networkError(backend: string, error: unknown, signal?: ClientSignal): RouterError {
  if (signal?.aborted) return new RouterError(499, 'invalid_request', 'The client closed the request.');
  if (error instanceof RouterError) return error;
  const code = (error as { code?: string } | null | undefined)?.code ?? '';
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return new RouterError(504, 'upstream', `Backend '${backend}' did not answer in time.`, undefined, 'upstream_timeout');
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return new RouterError(504, 'upstream', `Backend '${backend}' could not be connected to in time.`, undefined, 'upstream_timeout');
  if (code === 'UND_ERR_BODY_TIMEOUT') return new RouterError(504, 'upstream', `Backend '${backend}' stopped sending.`, undefined, 'upstream_timeout');
  if (code === 'ECONNREFUSED') return new RouterError(502, 'upstream', `Backend '${backend}' refused the connection.`, undefined, 'upstream_unreachable');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new RouterError(502, 'upstream', `Backend '${backend}' host could not be resolved.`, undefined, 'upstream_unreachable');
  if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET') return new RouterError(502, 'upstream', `Backend '${backend}' closed the connection.`, undefined, 'upstream_reset');
  return new RouterError(502, 'upstream', `Backend '${backend}' could not be reached (${code || 'connection failed'}).`, undefined, 'upstream_unreachable');
}
