import type { ErrorKind, RouterError } from '../../core/errors.js';

/**
 * google.rpc's status names for the router's kinds of error
 * (https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes); the HTTP status stays the
 * router's own, as Google's `code` is the HTTP status.
 */
const STATUS_BY_KIND: Record<ErrorKind, string> = {
  invalid_request: 'INVALID_ARGUMENT',
  authentication: 'UNAUTHENTICATED',
  permission: 'PERMISSION_DENIED',
  not_found: 'NOT_FOUND',
  method_not_allowed: 'UNIMPLEMENTED',
  too_large: 'INVALID_ARGUMENT',
  rate_limit: 'RESOURCE_EXHAUSTED',
  upstream: 'UNAVAILABLE',
  // The router's own setup stops the call (a key variable unset, a key the upstream refuses): no retry mends it.
  configuration: 'FAILED_PRECONDITION',
  overloaded: 'UNAVAILABLE',
  internal: 'INTERNAL',
};

/** Statuses that say more than the kind: a body that did not arrive in time, an upstream that did not answer in time. */
const STATUS_BY_CODE: Readonly<Record<number, string>> = { 408: 'DEADLINE_EXCEEDED', 504: 'DEADLINE_EXCEEDED' };

const TYPE = 'type.googleapis.com/google.rpc.';

/**
 * Google's error shape (google.rpc.Status as JSON: https://cloud.google.com/apis/design/errors),
 * used by every Gemini route, as a body or as a stream's last chunk. `details` carries what
 * Google's clients read: RetryInfo with the wait a 429 or 503 asked for (Gemini CLI and the
 * Google GenAI SDK retry after it), BadRequest naming the field at fault, and ErrorInfo with the
 * router's code and the request id.
 */
export function geminiErrorBody(error: RouterError, requestId?: string) {
  const details: Array<Record<string, unknown>> = [];
  if (error.retryAfterMs !== undefined) details.push({ '@type': `${TYPE}RetryInfo`, retryDelay: `${Math.ceil(error.retryAfterMs / 1000)}s` });
  if (error.param !== undefined) details.push({ '@type': `${TYPE}BadRequest`, fieldViolations: [{ field: error.param, description: error.message }] });
  details.push({ '@type': `${TYPE}ErrorInfo`, reason: (error.code ?? error.kind).toUpperCase(), domain: 'svc-router', metadata: requestId ? { request_id: requestId } : {} });
  return {
    error: {
      code: error.status,
      message: error.message,
      status: STATUS_BY_CODE[error.status] ?? STATUS_BY_KIND[error.kind],
      details,
    },
  };
}
