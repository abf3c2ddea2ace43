import { invalidRequest, RouterError } from '../../core/errors.js';
import { bodyMembers } from '../read-body.js';
import { previousResponseNotFound } from './socket-errors.js';

/** What a turn needs of the socket's memory: the items up to a response it holds. */
export interface HeldResponses {
  itemsUpTo(id: string): readonly unknown[] | undefined;
}

/** A stream id as the SDK allows one (ResponsesWebSocketSession.lane: letters, digits, `_`, `.`, `-`, 1 to 256). */
const STREAM_ID = /^[A-Za-z0-9_.-]{1,256}$/;

/** One `response.create` read off a socket: the body the HTTP endpoint takes, and the items the turn's model sees. */
export interface SocketTurn {
  /** A Responses request body, streamed: what POST /v1/responses would have been sent. */
  body: Record<string, unknown>;
  /** The whole input after the previous response's items are put back in front (what is remembered after it). */
  input: unknown[];
  /** `generate: false`: the client only warms the socket up; nothing is generated (developers.openai.com, "WebSocket mode"). */
  warmup: boolean;
  /** The turn's own request headers, from `client_metadata` (see metadataHeaders). */
  headers: Record<string, string>;
  /** The `stream_id` lane the turn runs on (every event of it carries it back); undefined for the socket's default stream. */
  streamId?: string;
}

/**
 * A client message to the request body the endpoint serves. The message is a `response.create`
 * event: the create body plus `type` (and `generate`), without `stream` (always on over a socket)
 * and without `background` (not offered over a socket, as at OpenAI). A previous_response_id this
 * socket holds is replaced by that response's items, so every backend gets the whole conversation
 * and nothing is stored beyond the socket; one it does not hold gets OpenAI's
 * previous_response_not_found, on which clients resend the whole input.
 */
export function socketTurn(text: string, conversation: HeldResponses): SocketTurn {
  return turnOf(socketMessage(text), conversation);
}

/** The client events a socket takes: `response.create`, `response.steer` (the SDK's ResponsesClientEvent) and this router's `response.cancel`. */
export const CLIENT_EVENTS = new Set(['response.create', 'response.steer', 'response.cancel']);

/** A message as a JSON object with a known `type`; throws the 400 its request would get otherwise. */
export function socketMessage(text: string): Record<string, unknown> {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    throw invalidRequest('The message is not valid JSON; send each event as one JSON object, e.g. {"type": "response.create", "model": "…", "input": […]}.', undefined, 'invalid_json');
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) throw invalidRequest('The message must be a JSON object with "type": "response.create".', undefined, 'invalid_json');
  // The HTTP endpoint's nesting limit, before anything walks the message: deeper JSON would
  // overflow the stack of whatever writes it out again (a RangeError, not an answer).
  bodyMembers(message);
  const type = (message as Record<string, unknown>).type;
  if (typeof type !== 'string' || !CLIENT_EVENTS.has(type)) {
    const named = typeof type === 'string' ? `'${type.slice(0, 60)}'` : 'missing';
    throw invalidRequest(`type: ${named} is not an event this socket takes; send "response.create" (or "response.steer", "response.cancel").`, 'type', 'unknown_event_type');
  }
  return message as Record<string, unknown>;
}

/** A message's `stream_id`: undefined when absent; throws a 400 for one the SDK would not send. */
export function streamIdOf(message: Record<string, unknown>): string | undefined {
  const id = message.stream_id;
  if (id === undefined || id === null) return undefined;
  if (typeof id !== 'string' || !STREAM_ID.test(id)) throw invalidRequest('stream_id: expected 1 to 256 letters, digits, "_", "." or "-".', 'stream_id', 'invalid_stream_id');
  return id;
}

/** A `response.create` message as a turn (see socketTurn). */
export function turnOf(message: Record<string, unknown>, conversation: HeldResponses): SocketTurn {
  const { type, generate, background, stream: _stream, stream_id: _streamId, client_metadata: clientMetadata, ...body } = message;
  if (type !== 'response.create') throw invalidRequest(`type: '${String(type).slice(0, 60)}' is not a turn; send "response.create".`, 'type', 'unknown_event_type');
  const streamId = streamIdOf(message);
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
  return { body: { ...body, stream: true }, input, warmup: generate === false, headers: metadataHeaders(clientMetadata), ...(streamId !== undefined ? { streamId } : {}) };
}

/** Headers a turn's client_metadata may not set: the key, and what belongs to the connection. */
const CONNECTION_HEADERS = new Set(['authorization', 'x-api-key', 'api-key', 'host', 'origin', 'connection', 'upgrade', 'content-length', 'content-type', 'transfer-encoding', 'cookie']);
const HEADER_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const MAX_METADATA_ENTRIES = 32;
const MAX_METADATA_VALUE_CHARS = 8 * 1024;

/**
 * `client_metadata` on a socket turn carries what the same client sends as request headers over
 * HTTP, fresh each turn (Codex: `session_id`, `x-codex-turn-metadata`, `x-codex-window-id`). It is
 * mapped back to the turn's headers, so session affinity and everything else that reads them sees
 * the same request either way; it is not a body field, and an upstream Responses API over HTTP
 * would refuse it as one. Bounded; an entry that cannot be a header (or would be the key or a
 * connection header) is refused with a 400 naming it rather than dropped.
 */
function metadataHeaders(metadata: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  if (metadata === undefined || metadata === null) return headers;
  if (typeof metadata !== 'object' || Array.isArray(metadata)) throw invalidRequest('client_metadata: expected an object of string values.', 'client_metadata');
  const entries = Object.entries(metadata);
  if (entries.length > MAX_METADATA_ENTRIES) throw invalidRequest(`client_metadata: at most ${MAX_METADATA_ENTRIES} entries.`, 'client_metadata');
  for (const [rawName, value] of entries) {
    const name = rawName.toLowerCase();
    const param = `client_metadata.${rawName.slice(0, 64)}`;
    if (!HEADER_NAME.test(name) || name.startsWith('sec-') || CONNECTION_HEADERS.has(name)) {
      throw invalidRequest(`${param}: not taken; client_metadata entries become the turn's request headers, and this name is not one a turn may set.`, 'client_metadata');
    }
    // A number or boolean goes as its text; a value a header could not carry (an object, a line
    // break) or longer than one should be is refused, not cut.
    const text = typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
    if (typeof text !== 'string' || text.length > MAX_METADATA_VALUE_CHARS || /[\r\n\0]/.test(text)) {
      throw invalidRequest(`${param}: expected a string of at most ${MAX_METADATA_VALUE_CHARS} characters without line breaks.`, 'client_metadata');
    }
    headers[name] = text;
  }
  return headers;
}

/** `input` as a list of items: a string is one user message (the Responses API's shorthand). */
function inputItems(input: unknown): unknown[] {
  if (input === undefined) return [];
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  if (Array.isArray(input)) return input;
  throw new RouterError(400, 'invalid_request', 'input: expected a string or an array of input items.', 'input');
}
