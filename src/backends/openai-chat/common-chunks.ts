import { INTEGER, PLAIN_STRING, READ_STRING, stringValue, tryTemplate } from '../http/frame-templates.js';
import type { ChatChunk, ChatChunkDelta } from './api.js';

/** Keys the decoder reads at the top of a chunk: an extra key never stands for one of them (JSON.parse keeps the last of duplicates). */
const EXTRA = String.raw`,"(?!id"|usage"|choices"|error")[a-z_]{1,40}":(?:${PLAIN_STRING}|null|${INTEGER})`;

/**
 * The chunk OpenAI (and most compatible servers) send for each text or tool-argument delta,
 * byte for byte in their key order: id, object, created, model, plain extra fields
 * (service_tier, system_fingerprint, …), one choice at index 0 whose delta carries only `content`
 * or only one tool call's `arguments`, and `usage: null` or plain extra fields (obfuscation) after.
 * https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 */
const COMMON_DELTA = new RegExp(
  String.raw`^\{"id":(${READ_STRING}),"object":"chat\.completion\.chunk","created":${INTEGER},"model":${PLAIN_STRING}(?:${EXTRA})*` +
    String.raw`,"choices":\[\{"index":0,"delta":\{(?:"content":(${READ_STRING})|"tool_calls":\[\{"index":(${INTEGER}),"function":\{"arguments":(${READ_STRING})\}\}\])\},"logprobs":null,"finish_reason":null\}\]` +
    String.raw`(,"usage":null)?(?:${EXTRA})*\}$`,
);

/**
 * A content or tool-argument delta chunk read without JSON.parse, holding exactly the fields the
 * decoder reads (id, usage, the first choice's delta and finish reason); undefined for any other
 * frame, which the caller parses and checks in full.
 */
export function readCommonChatChunk(data: string): ChatChunk | undefined {
  return tryTemplate(readDelta, data);
}

function readDelta(data: string): ChatChunk | undefined {
  const match = COMMON_DELTA.exec(data);
  if (!match) return undefined;
  const [, id, content, index, args, nullUsage] = match;
  const delta: ChatChunkDelta =
    content !== undefined ? { content: stringValue(content) } : { tool_calls: [{ index: Number(index), function: { arguments: stringValue(args!) } }] };
  return { id: stringValue(id!), choices: [{ delta, finish_reason: null }], ...(nullUsage ? { usage: null } : {}) };
}
