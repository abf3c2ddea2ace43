import type { ErrorKind, RouterError } from '../core/errors.js';

const TYPE_BY_KIND: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  method_not_allowed: 'invalid_request_error',
  too_large: 'request_too_large',
  rate_limit: 'rate_limit_error',
  upstream: 'api_error',
  // A 502 like any other upstream failure: Anthropic's errors carry no code, so the message says which.
  configuration: 'api_error',
  overloaded: 'overloaded_error',
  internal: 'api_error',
};

/** Anthropic's error shape, used by /v1/messages (as a body, or as the data of a stream's `error` event). */
export function anthropicErrorBody(error: RouterError, requestId?: string) {
  return {
    type: 'error' as const,
    error: { type: TYPE_BY_KIND[error.kind], message: error.message },
    ...(requestId ? { request_id: requestId } : {}),
  };
}
