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
  /**
   * The router's own setup failed the request: a backend's key or credentials missing or refused,
   * its account out of credit, a route to a model or endpoint the backend does not have. Only
   * whoever runs the router can fix it; the request is not at fault, and sending it again is not.
   */
  | 'configuration'
  | 'overloaded'
  | 'internal';

/** What only the site that builds an error knows. */
export interface RouterErrorOptions {
  /**
   * What lay under the error: the error thrown, or the upstream's own words. The request log
   * writes it (redacted); no client ever sees it, as every error body is built from the message,
   * param and code alone.
   */
  cause?: unknown;
  /**
   * Whether the route's next target may succeed where this failed. By default a 429 or a 5xx is
   * (the fault is the upstream's or the target's, which another may not share) and anything else
   * is not (the request itself is at fault, and would fail anywhere).
   */
  retryable?: boolean;
  /** Headers the answer carries beside the body (a rate limit's `x-ratelimit-*`). */
  headers?: Readonly<Record<string, string>>;
}

/** A 429 or a 5xx: what another target may not share. */
const retryableStatus = (status: number): boolean => status === 429 || status >= 500;

export class RouterError extends Error {
  /** Whether a fallback may try the route's next target; decided when the error is built. */
  readonly retryable: boolean;
  /** Headers the answer carries beside the body, in every client format. */
  readonly headers: Readonly<Record<string, string>> | undefined;

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
    options: RouterErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RouterError';
    this.retryable = options.retryable ?? retryableStatus(status);
    this.headers = options.headers;
  }
}

/**
 * Whether sending the same request again, unchanged, may succeed: what an answer's
 * `x-should-retry` tells the client. Anthropic's and OpenAI's SDKs obey that header before their
 * own rules (which retry every 5xx and 429, and Claude Code does so for minutes): a refusal no
 * retry can fix ends at once with its message. A retry may help with a fault that passes (a 5xx
 * that is not the router's configuration, a 408) and with a 429 that says when (retry-after); not
 * with a 4xx, a 429 that names no wait (a cap), or the router's configuration.
 */
export function retryMayHelp(error: RouterError): boolean {
  if (error.kind === 'configuration') return false;
  if (error.status === 429) return error.retryAfterMs !== undefined;
  return error.status === 408 || error.status >= 500;
}

export const invalidRequest = (message: string, param?: string, code?: string): RouterError =>
  new RouterError(400, 'invalid_request', message, param, code);

/**
 * Turns anything thrown into a RouterError without exposing internals (stack, paths, secrets) to
 * the client; what was thrown stays as the cause, for the request log.
 */
export function toRouterError(error: unknown): RouterError {
  if (error instanceof RouterError) return error;
  return new RouterError(500, 'internal', 'The router failed to handle this request.', undefined, undefined, undefined, { cause: error });
}
