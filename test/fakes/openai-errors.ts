import type { ServerResponse } from 'node:http';
import { sendJson, type RecordedRequest } from './fake-server.js';
import { randomId } from './scripted-turn.js';

/** What the OpenAI APIs (Chat and Responses alike) answer on a missing or wrong key and on failures. */

export function authorised(request: RecordedRequest, res: ServerResponse, apiKey: string | undefined): boolean {
  if (apiKey === undefined) return true;
  const header = request.headers.authorization;
  if (!header) {
    sendError(
      res,
      401,
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
      'invalid_request_error',
      null,
    );
    return false;
  }
  const given = header.replace(/^Bearer\s+/i, '');
  if (given === apiKey) return true;
  // Like OpenAI, never echo the whole key back.
  const masked = given.length > 8 ? `${given.slice(0, 3)}***${given.slice(-4)}` : '***';
  sendError(res, 401, `Incorrect API key provided: ${masked}.`, 'invalid_request_error', 'invalid_api_key');
  return false;
}

export function defaultError(status: number): unknown {
  if (status === 429) return errorBody('Rate limit reached for requests. Please try again later.', 'requests', 'rate_limit_exceeded');
  if (status === 401) return errorBody('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
  if (status === 404) return errorBody('The model does not exist or you do not have access to it.', 'invalid_request_error', 'model_not_found');
  if (status >= 500) return errorBody('The server had an error while processing your request. Sorry about that!', 'server_error', null);
  return errorBody(`Request failed with status ${status}.`, 'invalid_request_error', null);
}

export function errorBody(message: string, type: string, code: string | null, param: string | null = null) {
  return { error: { message, type, param, code } };
}

export function sendError(res: ServerResponse, status: number, message: string, type: string, code: string | null, param: string | null = null): void {
  sendJson(res, status, errorBody(message, type, code, param), requestIdHeader());
}

export function requestIdHeader(): Record<string, string> {
  return { 'x-request-id': randomId('req_', 32) };
}
