import { invalidRequest, RouterError } from '../../core/errors.js';
import { previousResponseNotFound } from './socket-errors.js';
import type { SocketConversation } from './socket-conversation.js';

/** One `response.create` read off a socket: the body the HTTP endpoint takes, and the items the turn's model sees. */
export interface SocketTurn {
  /** A Responses request body, streamed: what POST /v1/responses would have been sent. */
  body: Record<string, unknown>;
  /** The whole input after the previous response's items are put back in front (what is remembered after it). */
  input: unknown[];
  /** `generate: false`: the client only warms the socket up; nothing is generated (developers.openai.com, "WebSocket mode"). */
  warmup: boolean;
}

/**
 * A client message to the request body the endpoint serves. The message is a `response.create`
 * event: the create body plus `type` (and `generate`), without `stream` (always on over a socket)
 * and without `background` (not offered over a socket, as at OpenAI). A previous_response_id this
 * socket holds is replaced by that response's items, so every backend gets the whole conversation
 * and nothing is stored beyond the socket; one it does not hold gets OpenAI's
 * previous_response_not_found, on which clients resend the whole input.
 */
export function socketTurn(text: string, conversation: SocketConversation): SocketTurn {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    throw invalidRequest('The message is not valid JSON; send each event as one JSON object, e.g. {"type": "response.create", "model": "…", "input": […]}.', undefined, 'invalid_json');
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) throw invalidRequest('The message must be a JSON object with "type": "response.create".', undefined, 'invalid_json');
  const { type, generate, background, stream: _stream, ...body } = message as Record<string, unknown>;
  if (type !== 'response.create') {
    const named = typeof type === 'string' ? `'${type.slice(0, 60)}'` : 'missing';
    throw invalidRequest(`type: ${named} is not an event this socket takes; send "response.create".`, 'type', 'unknown_event_type');
  }
  if (generate !== undefined && typeof generate !== 'boolean') throw invalidRequest('generate: expected true or false.', 'generate');
  if (background === true) {
    throw invalidRequest('background: responses over a WebSocket always stream on it; send background requests over HTTP (POST /v1/responses).', 'background');
  }
  if (background !== undefined && background !== false) throw invalidRequest('background: expected a boolean.', 'background');

  const previous = body.previous_response_id;
  let input: unknown[];
  if (typeof previous === 'string' && previous !== '') {
    const before = conversation.itemsUpTo(previous);
    if (before === undefined) throw previousResponseNotFound(previous);
    input = [...before, ...inputItems(body.input)];
    delete body.previous_response_id;
    body.input = input;
  } else {
    if (previous === null || previous === '') delete body.previous_response_id;
    input = Array.isArray(body.input) || typeof body.input === 'string' || body.input === undefined ? inputItems(body.input) : [];
  }
  return { body: { ...body, stream: true }, input, warmup: generate === false };
}

/** `input` as a list of items: a string is one user message (the Responses API's shorthand). */
function inputItems(input: unknown): unknown[] {
  if (input === undefined) return [];
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  if (Array.isArray(input)) return input;
  throw new RouterError(400, 'invalid_request', 'input: expected a string or an array of input items.', 'input');
}
