import type { MessageCreateParamsBase, TextBlockParam, Tool, ToolChoice, WebSearchTool20250305 } from '@anthropic-ai/sdk/resources/messages';
import { checkedUpstream, items, name, nested, object, optionalArray, optionalIndex, optionalNumber, optionalObject, optionalString, string, type Json } from '../http/upstream-fields.js';

/**
 * The Messages wire as this backend sees it: the body it sends (Anthropic's own request type) and
 * the fields of a `message` body or stream event its decoders read, checked. What the decoders
 * can do without is optional; what would otherwise be made up (a block's text, a tool call's id
 * or name) is required.
 */

/**
 * The body POSTed to /messages: Anthropic's own type for everything but the messages, whose blocks
 * are typed here as the router builds them (the SDK's block params differ by beta and insist on
 * literal media types the router passes through from the client).
 */
export type AnthropicRequestBody = Omit<MessageCreateParamsBase, 'messages' | 'system' | 'tools' | 'tool_choice'> & {
  messages: AnthropicRequestMessage[];
  system?: TextBlockParam[];
  tools?: Array<Tool | WebSearchTool20250305>;
  tool_choice?: ToolChoice;
  stream?: boolean;
  /** Server-side fallback on a refusal (beta server-side-fallback-2026-07-01); the SDK's type has it only on the beta messages. */
  fallbacks?: 'default';
  /** Sampling settings the API still takes for the models that have them; the SDK's type has dropped them. */
  temperature?: number;
  top_p?: number;
  top_k?: number;
};

export interface AnthropicRequestMessage {
  role: 'user' | 'assistant';
  content: AnthropicRequestBlock[];
}

export type AnthropicImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

export type AnthropicDocumentSource =
  | { type: 'text'; media_type: 'text/plain'; data: string }
  | { type: 'base64'; media_type: 'application/pdf'; data: string }
  | { type: 'url'; url: string }
  | { type: 'file'; file_id: string };

/** A content block the router sends; any of them may carry the client's cache breakpoint. */
export type AnthropicRequestBlock = (
  | { type: 'text'; text: string; citations?: unknown[] }
  | { type: 'image'; source: AnthropicImageSource }
  | { type: 'document'; source: AnthropicDocumentSource; title?: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: AnthropicRequestBlock[]; is_error?: boolean }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'server_tool_use'; id: string; name: 'web_search'; input: { query: string } }
  | { type: 'web_search_tool_result'; tool_use_id: string; content: AnthropicSearchResultContent }
) & { cache_control?: unknown };

/** A web_search_tool_result's content: the pages found, or why the search failed. */
export type AnthropicSearchResultContent =
  | Array<{ type: 'web_search_result'; url: string; title: string; encrypted_content: string; page_age?: string | null }>
  | { type: 'web_search_tool_result_error'; error_code: string };

// ---- Reply ---------------------------------------------------------------------------------

export interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/**
 * A content block as far as the decoder reads it; which fields are there depends on `type`, and
 * blocks of other types (server tools) pass unread.
 */
export interface AnthropicContentBlock {
  type: string;
  /** text: required. */
  text?: string;
  /** thinking: required; its signature optional. */
  thinking?: string;
  signature?: string | null;
  /** redacted_thinking: required. */
  data?: string;
  /** tool_use: id and name required, not empty; input any JSON. */
  id?: string;
  name?: string;
  input?: unknown;
  /** text: read only when it is a list, and then passed on whole. */
  citations?: unknown;
  /** web_search_tool_result: the call it answers (required) and the pages found or the error. */
  tool_use_id?: string;
  content?: unknown;
}

export interface AnthropicReply {
  id?: string | null;
  /** Absent only in a body that is not a message (an error); the decoder says so. */
  content?: AnthropicContentBlock[];
  stop_reason?: string | null;
  stop_sequence?: string | null;
  usage?: AnthropicUsage | null;
}

/** A `message` body, checked where the decoder reads it. */
export function readAnthropicReply(backend: string, raw: unknown): AnthropicReply {
  return checkedUpstream(backend, 'reply', raw, checkReply);
}

function checkReply(raw: unknown): AnthropicReply {
  const body = object(raw, '');
  optionalString(body.id, 'id');
  optionalString(body.stop_reason, 'stop_reason');
  optionalString(body.stop_sequence, 'stop_sequence');
  if (body.usage !== undefined && body.usage !== null) nested(body.usage, 'usage', checkUsage);
  const content = optionalArray(body.content, 'content');
  if (content) items(content, 'content', checkBlock);
  return body as AnthropicReply;
}

function checkBlock(block: Json): void {
  switch (string(block.type, 'type')) {
    case 'text':
      string(block.text, 'text');
      break;
    case 'thinking':
      string(block.thinking, 'thinking');
      optionalString(block.signature, 'signature');
      break;
    case 'redacted_thinking':
      string(block.data, 'data');
      break;
    case 'tool_use':
      name(block.id, 'id');
      name(block.name, 'name');
      break;
  }
}

function checkUsage(value: unknown): void {
  const usage = object(value, '');
  optionalNumber(usage.input_tokens, 'input_tokens');
  optionalNumber(usage.output_tokens, 'output_tokens');
  optionalNumber(usage.cache_read_input_tokens, 'cache_read_input_tokens');
  optionalNumber(usage.cache_creation_input_tokens, 'cache_creation_input_tokens');
}

// ---- Stream --------------------------------------------------------------------------------

export interface AnthropicStreamEvent {
  type: string;
  index?: number | null;
  message?: { id?: string | null; usage?: AnthropicUsage | null } | null;
  /** content_block_start: a tool_use block's name is required; a redacted_thinking block's data too. */
  content_block?: { type: string; id?: string | null; name?: string; data?: string; input?: unknown; tool_use_id?: string; content?: unknown } | null;
  delta?: {
    type?: string | null;
    text?: string | null;
    thinking?: string | null;
    signature?: string | null;
    partial_json?: string | null;
    /** citations_delta: one citation, passed on whole. */
    citation?: unknown;
    stop_reason?: string | null;
    stop_sequence?: string | null;
  } | null;
  usage?: AnthropicUsage | null;
  error?: { type?: string | null; message?: string | null } | null;
}

/**
 * One Messages stream event, checked where the decoder reads it; unknown event types pass, and so
 * do fields the checks do not name (message_delta's `safeguard_results`, server-tool blocks),
 * which a Messages client gets back as they came.
 */
export function readAnthropicEvent(backend: string, raw: unknown): AnthropicStreamEvent {
  return checkedUpstream(backend, 'stream event', raw, checkEvent);
}

function checkEvent(raw: unknown): AnthropicStreamEvent {
  const event = object(raw, '');
  switch (string(event.type, 'type')) {
    case 'content_block_delta': {
      optionalIndex(event.index, 'index');
      const delta = optionalObject(event.delta, 'delta');
      if (delta === undefined) break;
      optionalString(delta.type, 'delta.type');
      optionalString(delta.text, 'delta.text');
      optionalString(delta.thinking, 'delta.thinking');
      optionalString(delta.signature, 'delta.signature');
      optionalString(delta.partial_json, 'delta.partial_json');
      break;
    }
    case 'content_block_start': {
      optionalIndex(event.index, 'index');
      const block = optionalObject(event.content_block, 'content_block');
      if (block === undefined) break;
      const type = string(block.type, 'content_block.type');
      if (type === 'tool_use') {
        optionalString(block.id, 'content_block.id');
        name(block.name, 'content_block.name');
      } else if (type === 'redacted_thinking') {
        string(block.data, 'content_block.data');
      }
      break;
    }
    case 'content_block_stop':
      optionalIndex(event.index, 'index');
      break;
    case 'message_start': {
      const message = optionalObject(event.message, 'message');
      if (message === undefined) break;
      optionalString(message.id, 'message.id');
      if (message.usage !== undefined && message.usage !== null) nested(message.usage, 'message.usage', checkUsage);
      break;
    }
    case 'message_delta': {
      const delta = optionalObject(event.delta, 'delta');
      if (delta) {
        optionalString(delta.stop_reason, 'delta.stop_reason');
        optionalString(delta.stop_sequence, 'delta.stop_sequence');
      }
      if (event.usage !== undefined && event.usage !== null) nested(event.usage, 'usage', checkUsage);
      break;
    }
    case 'error': {
      const error = optionalObject(event.error, 'error');
      if (error === undefined) break;
      optionalString(error.type, 'error.type');
      optionalString(error.message, 'error.message');
      break;
    }
  }
  return event as unknown as AnthropicStreamEvent;
}
