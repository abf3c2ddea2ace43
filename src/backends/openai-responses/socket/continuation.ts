/**
 * What one turn sends on an upstream socket that has answered the turn before it. OpenAI's
 * WebSocket mode keeps the socket's last response in memory (store=false included), so a turn
 * that continues it sends only its new input items plus `previous_response_id`
 * (https://platform.openai.com/docs/guides/websocket-mode). A turn continues it when everything but
 * the input is as before, and its input is the last turn's input, then the last response's output as
 * the client replays it, then new items. Anything else sends the whole body.
 */

/** What a socket remembers of its last answered turn: enough to recognise the next one. */
export interface AnsweredTurn {
  responseId: string;
  /** The body's members but `input`, as JSON, in a fixed order. */
  settings: string;
  /** Each input item as JSON. */
  input: string[];
  /** The reply's output items as a client replays them: their kind and what identifies them. */
  output: string[];
}

/** A body for `response.create`: the create body without the members WebSocket mode does not use. */
export type CreateBody = Record<string, unknown>;

/** Transport-only members of the HTTP body (the guide: "stream and background are not used"). */
const TRANSPORT_ONLY = new Set(['stream', 'background', 'stream_options']);

export function createBody(body: Record<string, unknown>): CreateBody {
  const out: CreateBody = {};
  for (const key of Object.keys(body)) if (!TRANSPORT_ONLY.has(key)) out[key] = body[key];
  return out;
}

/** The settings half of a body: its members but input, sorted, as JSON. */
export function settingsOf(body: CreateBody): string {
  const keys = Object.keys(body).filter((key) => key !== 'input').sort();
  return JSON.stringify(keys.map((key) => [key, body[key]]));
}

/**
 * The identity of an item the model wrote, as the client sends it back: an assistant message by
 * its text, a tool call by its call id. Reasoning is left out (a client replays it or not, as
 * its settings say), and so is what a client never replays; undefined for anything else.
 */
export function replayedIdentity(item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const value = item as { type?: unknown; role?: unknown; content?: unknown; call_id?: unknown };
  if ((value.type === 'function_call' || value.type === 'custom_tool_call') && typeof value.call_id === 'string') return `call:${value.call_id}`;
  if (value.role === 'assistant' && (value.type === 'message' || value.type === undefined)) {
    const content = value.content;
    const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((part) => (typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : '')).join('') : '';
    return `message:${text}`;
  }
  return undefined;
}

/** Items the model wrote that a client may replay without identity: skipped while matching. */
const isReasoning = (item: unknown): boolean => typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'reasoning';

/**
 * The new input items when `body` continues `last`, else undefined. The replayed output must
 * match the last response's (messages and calls, in order); the new items are what follows it.
 */
export function newItemsAfter(last: AnsweredTurn | undefined, body: CreateBody): { items: unknown[]; input: string[] } | undefined {
  if (!last || body.previous_response_id !== undefined || !Array.isArray(body.input)) return undefined;
  if (settingsOf(body) !== last.settings) return undefined;
  const input = body.input.map((item) => JSON.stringify(item));
  if (input.length < last.input.length) return undefined;
  for (let i = 0; i < last.input.length; i++) if (input[i] !== last.input[i]) return undefined;
  let at = last.input.length;
  let matched = 0;
  while (at < body.input.length && matched < last.output.length) {
    const item = body.input[at];
    if (isReasoning(item)) {
      at++;
      continue;
    }
    if (replayedIdentity(item) !== last.output[matched]) return undefined;
    matched++;
    at++;
  }
  if (matched < last.output.length) return undefined;
  // Reasoning replayed after the last call belongs to the old response too.
  while (at < body.input.length && isReasoning(body.input[at])) at++;
  // A turn with nothing new is a retry of the last one, not a continuation of it.
  if (at === body.input.length) return undefined;
  return { items: body.input.slice(at), input };
}
