import { RouterError } from '../../core/errors.js';
import { openaiErrorBody } from '../../formats/openai-error.js';

/**
 * An error on a Responses socket, in the shape OpenAI sends one before a response starts: an
 * `error` event with the HTTP status the same request would have got and the usual error object
 * (developers.openai.com, "WebSocket mode"). Codex maps `status` as it maps an HTTP status (429
 * and 5xx are retried, 4xx end the turn), and reads `headers` as the response headers (retry-after).
 */
export interface SocketErrorEvent {
  type: 'error';
  status: number;
  error: ReturnType<typeof openaiErrorBody>['error'];
  headers?: Record<string, string>;
}

/** Response headers worth passing on with an error: when to retry, rate limits, the request id. */
const PASSED_HEADER = /^(retry-after|x-ratelimit-[a-z-]+|x-request-id)$/;

export function socketErrorEvent(status: number, error: ReturnType<typeof openaiErrorBody>['error'], headers?: Record<string, string>): SocketErrorEvent {
  const passed: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) if (PASSED_HEADER.test(name)) passed[name] = value;
  return { type: 'error', status, error, ...(Object.keys(passed).length ? { headers: passed } : {}) };
}

export const routerErrorEvent = (error: RouterError): SocketErrorEvent =>
  socketErrorEvent(error.status, openaiErrorBody(error).error, error.retryAfterMs !== undefined ? { 'retry-after': String(Math.ceil(error.retryAfterMs / 1000)) } : undefined);

/** OpenAI's answer to a previous_response_id the socket does not hold: the client then sends the whole conversation. */
export const previousResponseNotFound = (id: string): RouterError =>
  new RouterError(400, 'invalid_request', `Previous response with id '${id.slice(0, 200)}' not found.`, 'previous_response_id', 'previous_response_not_found');
