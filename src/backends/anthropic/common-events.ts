import { INTEGER, READ_STRING, stringValue, tryTemplate } from '../http/frame-templates.js';
import type { AnthropicStreamEvent } from './api.js';

/**
 * The event Anthropic sends for each piece of text, thinking or tool input, byte for byte in its
 * key order (https://docs.anthropic.com/en/docs/build-with-claude/streaming#event-types):
 * `{"type":"content_block_delta","index":N,"delta":{"type":"text_delta","text":"…"}}`.
 */
const COMMON_DELTA = new RegExp(
  String.raw`^\{"type":"content_block_delta","index":(${INTEGER}),"delta":\{"type":"(text_delta|thinking_delta|input_json_delta)","(text|thinking|partial_json)":(${READ_STRING})\}\}$`,
);

const FIELD_OF: Readonly<Record<string, string>> = { text_delta: 'text', thinking_delta: 'thinking', input_json_delta: 'partial_json' };

/**
 * A text, thinking or tool-input delta read without JSON.parse: the same object JSON.parse would
 * give. Undefined for any other frame, which the caller parses and checks in full.
 */
export function readCommonAnthropicEvent(data: string): AnthropicStreamEvent | undefined {
  return tryTemplate(readDelta, data);
}

function readDelta(data: string): AnthropicStreamEvent | undefined {
  const match = COMMON_DELTA.exec(data);
  // Each delta type carries its own field; another pairing is left to the full reader.
  if (!match || FIELD_OF[match[2]!] !== match[3]) return undefined;
  return { type: 'content_block_delta', index: Number(match[1]), delta: { type: match[2]!, [match[3]!]: stringValue(match[4]!) } };
}
