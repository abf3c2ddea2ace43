import type { ErrorKind, RouterError } from '../core/errors.js';

const TYPE_BY_KIND: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  method_not_allowed: 'invalid_request_error',
  too_large: 'invalid_request_error',
  rate_limit: 'rate_limit_error',
  upstream: 'upstream_error',
  // A 502 like any other upstream failure; its code (upstream_auth, upstream_no_key, …) says which.
  configuration: 'upstream_error',
  overloaded: 'server_error',
  internal: 'server_error',
};

/** OpenAI's error shape, used by chat, responses, models and whoami. */
export function openaiErrorBody(error: RouterError): { error: { message: string; type: string; param: string | null; code: string | null } } {
  return {
    error: {
      message: error.message,
      type: TYPE_BY_KIND[error.kind],
      param: error.param ?? null,
      code: error.code ?? null,
    },
  };
}
