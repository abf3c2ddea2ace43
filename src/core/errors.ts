/** What went wrong, independent of any wire format; each client format renders it in its own shape. */
export type ErrorKind =
  | 'invalid_request'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'method_not_allowed'
  | 'too_large'
  | 'rate_limit'
  | 'upstream'
  | 'overloaded'
  | 'internal';

export class RouterError extends Error {
  constructor(
    readonly status: number,
    readonly kind: ErrorKind,
    message: string,
    /** The request field at fault, when there is one (OpenAI's `param`). */
    readonly param?: string,
    /** A machine-readable code (OpenAI's `code`), e.g. `invalid_api_key`, `model_not_found`. */
    readonly code?: string,
    /** How long the upstream asked callers to wait before retrying (its retry-after), if it said. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'RouterError';
  }
}

export const invalidRequest = (message: string, param?: string, code?: string): RouterError =>
  new RouterError(400, 'invalid_request', message, param, code);

/** Turns anything thrown into a RouterError without exposing internals (stack, paths, secrets). */
export function toRouterError(error: unknown): RouterError {
  if (error instanceof RouterError) return error;
  return new RouterError(500, 'internal', 'The router failed to handle this request.');
}
