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
  // The upstream's own words, whole, for the request log (which redacts it again); never a client's.
  const cause = `HTTP ${status}${message ? `: ${redactText(message, secrets)}` : ''}`;
  if (status === 401 || status === 403) {
    // The backend's key, not the request: another target may hold a valid one.
    return keyRejected(backend, status, { cause });
  }
  if (status === 402) {
    // The backend's account is out of credit, not the request: another key or target may pay.
    return new RouterError(502, 'configuration', `Backend '${backend}' refused payment (HTTP 402)${detail}`, undefined, 'upstream_payment_required', retryAfterMs, { cause, retryable: true });
  }
  if (status === 429) return new RouterError(429, 'rate_limit', `Backend '${backend}' is rate limited${detail}`, undefined, 'upstream_rate_limited', retryAfterMs, { cause });
  if (status === 529 || status === 503) return new RouterError(503, 'overloaded', `Backend '${backend}' is overloaded${detail}`, undefined, 'upstream_overloaded', retryAfterMs, { cause });
  if (status >= 500) return new RouterError(502, 'upstream', `Backend '${backend}' failed with HTTP ${status}${detail}`, undefined, 'upstream_error', undefined, { cause });
  if (status === 404) {
    // The backend lacks the model or endpoint; another target may have it.
    return new RouterError(502, 'configuration', `Backend '${backend}' has no such endpoint or model (HTTP 404)${detail}`, undefined, 'upstream_not_found', undefined, { cause, retryable: true });
  }
  // The request itself is at fault: every target would refuse it too.
  if (status === 413) return new RouterError(413, 'too_large', `Backend '${backend}' says the request is too large${detail}`, undefined, undefined, undefined, { cause, retryable: false });
  return new RouterError(400, 'invalid_request', `Backend '${backend}' rejected the request (HTTP ${status})${detail}`, undefined, undefined, undefined, { cause, retryable: false });
}

/**
 * The backend's own credentials refused (Gemini says so with a 400): the same answer whichever
 * backend type and client format, a 502 with code `upstream_auth` that names the backend and never
 * the key. The router's configuration is at fault, so the client is told not to retry; another
 * target of the route may hold a valid key, so the route still falls back.
 */
export function keyRejected(backend: string, status: number, options: { cause?: unknown } = {}): RouterError {
  return new RouterError(502, 'configuration', `Backend '${backend}' rejected its API key (HTTP ${status}); check its key in svc-router backends.`, undefined, 'upstream_auth', undefined, {
    ...options,
    retryable: true,
  });
}

/** Removes anything that looks like a credential from upstream text before a client sees it, then bounds it. */
function redact(text: string, secrets: string[]): string {
  return redactText(text, secrets, MAX_UPSTREAM_TEXT);
}

/** The message inside an OpenAI-, Anthropic- or AWS-shaped error body, if there is one. */
export function errorMessageOf(body: unknown): string | undefined {
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error === 'string') return error;
  const message = (error as { message?: unknown } | null)?.message;
  if (typeof message === 'string') return message;
  // AWS's JSON errors put it at the top, as `message` (Bedrock) or `Message`.
  const top = body as { message?: unknown; Message?: unknown } | null;
  const own = typeof top === 'object' && top !== null && error === undefined ? (top.message ?? top.Message) : undefined;
  return typeof own === 'string' ? own : undefined;
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
 * When a rate-limited upstream that sends no `retry-after` says its limits reset: the later of
 * OpenAI's `x-ratelimit-reset-requests` / `-tokens` (durations such as `1s`, `6m0s`, `20ms`) and
 * Anthropic's `anthropic-ratelimit-*-reset` (RFC 3339 times), in milliseconds from now.
 * https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers
 * https://docs.anthropic.com/en/api/rate-limits#response-headers
 */
export function parseRateLimitReset(headers: Record<string, string | string[] | undefined>, now = Date.now()): number | undefined {
  let latest: number | undefined;
  const consider = (ms: number | undefined) => {
    if (ms !== undefined && Number.isFinite(ms) && ms >= 0) latest = Math.max(latest ?? 0, ms);
  };
  for (const name of ['x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens']) {
    const value = headers[name];
    if (typeof value === 'string') consider(parseDuration(value));
  }
  for (const name of ['anthropic-ratelimit-requests-reset', 'anthropic-ratelimit-tokens-reset', 'anthropic-ratelimit-input-tokens-reset', 'anthropic-ratelimit-output-tokens-reset']) {
    const value = headers[name];
    if (typeof value !== 'string') continue;
    const at = Date.parse(value);
    if (!Number.isNaN(at)) consider(Math.max(0, at - now));
  }
  return latest;
}

const DURATION_UNITS: Readonly<Record<string, number>> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1, us: 0.001, µs: 0.001, ns: 0.000_001 };

/** A Go-style duration (`6m0s`, `1.5s`, `120ms`), or undefined when it is not one. */
function parseDuration(text: string): number | undefined {
  const parts = [...text.trim().matchAll(/(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== text.trim()) return undefined;
  return parts.reduce((sum, part) => sum + Number(part[1]) * DURATION_UNITS[part[2]!]!, 0);
}

/**
 * A failed call (refused, reset, timed out, or the client gone) as the RouterError the client sees.
 * undici's errors are told apart by their codes, so this file does not load undici.
 */
export function networkError(backend: string, error: unknown, signal?: ClientSignal): RouterError {
  const cause = error === undefined ? {} : { cause: error };
  // The client hanging up is nobody else's to retry.
  if (signal?.aborted) return new RouterError(499, 'invalid_request', 'The client closed the request.', undefined, undefined, undefined, { ...cause, retryable: false });
  if (error instanceof RouterError) return error;
  const code = (error as { code?: string } | null | undefined)?.code ?? '';
  const failed = (status: number, message: string, errorCode: string) => new RouterError(status, 'upstream', message, undefined, errorCode, undefined, cause);
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return failed(504, `Backend '${backend}' did not answer in time.`, 'upstream_timeout');
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return failed(504, `Backend '${backend}' could not be connected to in time.`, 'upstream_timeout');
  if (code === 'UND_ERR_BODY_TIMEOUT') return failed(504, `Backend '${backend}' stopped sending.`, 'upstream_timeout');
  if (code === 'ECONNREFUSED') return failed(502, `Backend '${backend}' refused the connection.`, 'upstream_unreachable');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return failed(502, `Backend '${backend}' host could not be resolved.`, 'upstream_unreachable');
  if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET') return failed(502, `Backend '${backend}' closed the connection.`, 'upstream_reset');
  return failed(502, `Backend '${backend}' could not be reached (${code || 'connection failed'}).`, 'upstream_unreachable');
}
