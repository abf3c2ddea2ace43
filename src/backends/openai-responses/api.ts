import type { ResponseCreateParamsBase, WebSearchTool } from 'openai/resources/responses/responses';
import { absentOrString, checkedUpstream, items, name, nested, object, optionalArray, optionalNumber, optionalObject, optionalString, string, type Json } from '../http/upstream-fields.js';

/**
 * The Responses wire as this backend sees it: the body it sends (OpenAI's own request type) and
 * the fields of a `response` body or stream event its decoders read, checked. What the decoders
 * can do without is optional; what would otherwise be made up (a call's id, name or arguments, a
 * summary's text) is required.
 */

/**
 * The body POSTed to /responses: OpenAI's own type, except for the input items and tools, whose SDK
 * types are the ones the API returns (with ids, `strict`, `detail` and `annotations` required);
 * what the router sends, and the API accepts, leaves those out.
 */
export type ResponsesRequestBody = Omit<ResponseCreateParamsBase, 'input' | 'tools'> & { input: ResponsesRequestItem[]; tools?: Array<ResponsesRequestTool | WebSearchTool>;
  /** The cap on hosted tool calls in one response (the API reference's create parameter; the SDK types it on the response only). */
  max_tool_calls?: number;
};

export interface ResponsesRequestTool {
  type: 'function';
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
  strict?: boolean;
}

export type ResponsesRequestItem =
  | { role: 'developer' | 'system' | 'user'; content: string | ResponsesRequestContent[] }
  | { type: 'message'; role: 'assistant'; content: Array<{ type: 'output_text'; text: string }> }
  | { type: 'reasoning'; summary: Array<{ type: 'summary_text'; text: string }>; encrypted_content: string; id?: string }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string | ResponsesRequestContent[] };

export type ResponsesRequestContent =
  | { type: 'input_text'; text: string }
  | { type: 'input_image'; image_url: string; detail?: 'low' | 'high' | 'auto' | 'original' }
  | ResponsesRequestFile;

export interface ResponsesRequestFile {
  type: 'input_file';
  filename?: string;
  file_data?: string;
  file_url?: string;
  file_id?: string;
}

// ---- Reply ---------------------------------------------------------------------------------

export interface ResponsesUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  input_tokens_details?: { cached_tokens?: number | null } | null;
  output_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/**
 * An output item as far as the decoder reads it; which fields are there depends on `type`, and
 * items of other types pass unread.
 */
export interface ResponsesOutputItem {
  type: string;
  /** message */
  content?: Array<{ text?: string | null; refusal?: string | null; annotations?: unknown }> | null;
  /** web_search_call: the query and the sources, as given. */
  action?: unknown;
  status?: string | null;
  /** function_call and custom_tool_call: required, not empty. */
  call_id?: string;
  name?: string;
  namespace?: string;
  /** function_call: required. */
  arguments?: string;
  /** custom_tool_call: required. */
  input?: string;
  /** reasoning (its id goes back with it when it is replayed) */
  id?: string | null;
  summary?: Array<{ text: string }> | null;
  encrypted_content?: string | null;
}

export interface ResponsesReply {
  id?: string | null;
  status?: string | null;
  /** Absent only in a body that is not a response (an error); the decoder says so. */
  output?: ResponsesOutputItem[];
  usage?: ResponsesUsage | null;
  error?: { message?: string | null } | null;
  /** Why an `incomplete` response stopped: `max_output_tokens` or `content_filter`. */
  incomplete_details?: { reason?: string | null } | null;
}

/** A `response` body, checked where the decoder reads it. */
export function readResponsesReply(backend: string, raw: unknown): ResponsesReply {
  return checkedUpstream(backend, 'reply', raw, checkReply);
}

function checkReply(raw: unknown): ResponsesReply {
  const body = object(raw, '');
  optionalString(body.id, 'id');
  optionalString(body.status, 'status');
  if (body.usage !== undefined && body.usage !== null) nested(body.usage, 'usage', checkUsage);
  const error = optionalObject(body.error, 'error');
  if (error) optionalString(error.message, 'error.message');
  const incomplete = optionalObject(body.incomplete_details, 'incomplete_details');
  if (incomplete) optionalString(incomplete.reason, 'incomplete_details.reason');
  const output = optionalArray(body.output, 'output');
  if (output) items(output, 'output', checkOutputItem);
  return body as ResponsesReply;
}

function checkOutputItem(item: Json): void {
  switch (string(item.type, 'type')) {
    case 'message': {
      const content = optionalArray(item.content, 'content');
      if (content) items(content, 'content', checkContentPart);
      break;
    }
    case 'function_call':
      checkCall(item);
      string(item.arguments, 'arguments');
      break;
    case 'custom_tool_call':
      checkCall(item);
      string(item.input, 'input');
      break;
    case 'reasoning': {
      const summary = optionalArray(item.summary, 'summary');
      if (summary) items(summary, 'summary', checkSummaryPart);
      optionalString(item.encrypted_content, 'encrypted_content');
      optionalString(item.id, 'id');
      break;
    }
  }
}

function checkCall(item: Json): void {
  name(item.call_id, 'call_id');
  name(item.name, 'name');
  absentOrString(item.namespace, 'namespace');
}

function checkContentPart(part: Json): void {
  optionalString(part.text, 'text');
  optionalString(part.refusal, 'refusal');
}

function checkSummaryPart(part: Json): void {
  string(part.text, 'text');
}

function checkUsage(value: unknown): void {
  const usage = object(value, '');
  optionalNumber(usage.input_tokens, 'input_tokens');
  optionalNumber(usage.output_tokens, 'output_tokens');
  const input = optionalObject(usage.input_tokens_details, 'input_tokens_details');
  if (input) optionalNumber(input.cached_tokens, 'input_tokens_details.cached_tokens');
  const output = optionalObject(usage.output_tokens_details, 'output_tokens_details');
  if (output) optionalNumber(output.reasoning_tokens, 'output_tokens_details.reasoning_tokens');
}

// ---- Stream --------------------------------------------------------------------------------

/** The item of `response.output_item.added` / `.done`, as far as the decoder reads it. */
export interface ResponsesStreamItem {
  type?: string | null;
  id?: string | null;
  /** Required on function and custom tool calls: what the client is asked to call. */
  name?: string;
  call_id?: string | null;
  namespace?: string;
  /** A custom tool call's whole input, on its `.done` event (required there). */
  input?: string;
  encrypted_content?: string | null;
  /** web_search_call, on its `.done` event. */
  action?: unknown;
  status?: string | null;
}

export interface ResponsesStreamEvent {
  type: string;
  item_id?: string | null;
  item?: ResponsesStreamItem | null;
  delta?: string | null;
  /** response.output_text.annotation.added: the annotation, read by its type. */
  annotation?: unknown;
  response?: {
    id?: string | null;
    status?: string | null;
    usage?: ResponsesUsage | null;
    error?: { message?: string | null } | null;
    incomplete_details?: { reason?: string | null } | null;
  } | null;
  message?: string | null;
}

/** One Responses stream event, checked where the decoder reads it; unknown event types pass. */
export function readResponsesEvent(backend: string, raw: unknown): ResponsesStreamEvent {
  return checkedUpstream(backend, 'stream event', raw, checkEvent);
}

function checkEvent(raw: unknown): ResponsesStreamEvent {
  const event = object(raw, '');
  switch (string(event.type, 'type')) {
    case 'response.output_text.delta':
    case 'response.reasoning_summary_text.delta':
      optionalString(event.delta, 'delta');
      break;
    case 'response.function_call_arguments.delta':
      optionalString(event.item_id, 'item_id');
      optionalString(event.delta, 'delta');
      break;
    case 'response.output_item.added':
    case 'response.output_item.done':
      if (event.item !== undefined && event.item !== null) nested(event.item, 'item', event.type === 'response.output_item.added' ? checkAddedItem : checkDoneItem);
      break;
    case 'response.created':
    case 'response.completed':
    case 'response.incomplete':
    case 'response.failed':
      if (event.response !== undefined && event.response !== null) nested(event.response, 'response', checkResponse);
      break;
    case 'error':
      optionalString(event.message, 'message');
      break;
  }
  return event as unknown as ResponsesStreamEvent;
}

function checkAddedItem(value: unknown): void {
  const item = object(value, '');
  const type = item.type;
  optionalString(type, 'type');
  optionalString(item.id, 'id');
  if (type === 'function_call' || type === 'custom_tool_call') {
    optionalString(item.call_id, 'call_id');
    name(item.name, 'name');
    absentOrString(item.namespace, 'namespace');
  }
}

function checkDoneItem(value: unknown): void {
  const item = object(value, '');
  const type = item.type;
  optionalString(type, 'type');
  if (type === 'reasoning') {
    optionalString(item.encrypted_content, 'encrypted_content');
    optionalString(item.id, 'id');
  } else if (type === 'function_call' || type === 'custom_tool_call') {
    optionalString(item.id, 'id');
    optionalString(item.call_id, 'call_id');
    if (type === 'custom_tool_call') string(item.input, 'input');
  }
}

function checkResponse(value: unknown): void {
  const response = object(value, '');
  optionalString(response.id, 'id');
  optionalString(response.status, 'status');
  if (response.usage !== undefined && response.usage !== null) nested(response.usage, 'usage', checkUsage);
  const error = optionalObject(response.error, 'error');
  if (error) optionalString(error.message, 'error.message');
  const incomplete = optionalObject(response.incomplete_details, 'incomplete_details');
  if (incomplete) optionalString(incomplete.reason, 'incomplete_details.reason');
}
