import { mergeMetadata, type ProviderMetadata } from '../../core/provider-metadata.js';
import type { Citation, WebSearchPart } from '../../core/web-search.js';
import type { StreamEvent } from '../../core/stream-events.js';
import { geminiFinishReason } from '../../wire/gemini/finish-reason.js';
import { groundingMetadataOf } from '../../wire/gemini/grounding.js';
import type { GeminiPart } from '../../wire/gemini/types.js';
import { usageMetadataOf } from '../../wire/gemini/usage-metadata.js';
import type { EncodeContext } from '../client-format.js';
import { withReplyWarnings } from '../shared/warnings.js';
import type { GeminiOptions } from './decode-request.js';
import { geminiErrorBody } from './error-body.js';
import { PartWriter } from './encode-parts.js';
import { finishMessageOf } from './encode-reply.js';

/**
 * How a stream's chunks are framed: server-sent events (`alt=sse`: `data:` lines, CRLF ends as
 * Google writes them), or one JSON array written as it grows, as streamGenerateContent answers
 * without `alt=sse` (https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent).
 */
export function chunkFraming(jsonArray: boolean): { chunk(json: string): string; last(json: string): string } {
  if (!jsonArray) return { chunk: (json) => `data: ${json}\r\n\r\n`, last: (json) => `data: ${json}\r\n\r\n` };
  let opened = false;
  const chunk = (json: string): string => {
    const lead = opened ? ',\r\n' : '[';
    opened = true;
    return lead + json;
  };
  return { chunk, last: (json) => `${chunk(json)}]` };
}

/**
 * streamGenerateContent's chunks from canonical events: a GenerateContentResponse for each piece
 * (text and thought pieces as they come, each function call whole at its end, a text block's
 * signature in an empty text part at its end, as Gemini sends them), a batch's chunks in one write. The last chunk has the finishReason, usageMetadata, the grounding of any web
 * search and svc_meta; an error ends the stream as Google's error object.
 */
export async function* encodeGeminiStream(batches: AsyncIterable<StreamEvent[]>, context: EncodeContext<GeminiOptions>): AsyncGenerator<string> {
  const framing = chunkFraming(context.options.jsonArray);
  const writer = new PartWriter(context.options.includeThoughts, context.secret, () => context.upstreamModel);
  const model = JSON.stringify(context.model);
  let responseId = JSON.stringify(context.requestId);
  const calls = new Map<string, { name: string; args: string; metadata: ProviderMetadata | undefined }>();
  const searches: WebSearchPart[] = [];
  /** Each text block whole, with its citations, for the grounding of the last chunk. */
  const texts: Array<{ text: string; citations?: Citation[] }> = [];
  let text = '';
  /** The open reasoning block's text so far. */
  let reasoning = '';
  const chunkJson = (parts: GeminiPart[], candidateExtra = '', extra = '', tail = '') =>
    `{"candidates":[{"content":{"role":"model","parts":${JSON.stringify(parts)}}${candidateExtra},"index":0}]${extra},"modelVersion":${model},"responseId":${responseId}${tail}}`;

  for await (const batch of batches) {
    let out = '';
    const parts: GeminiPart[] = [];
    for (const event of batch) {
      switch (event.type) {
        case 'start':
          if (event.id) responseId = JSON.stringify(event.id);
          break;
        case 'reasoning-start':
          // A seal still waiting belongs to the reasoning before this one: it goes out first.
          parts.push(...writer.flush());
          reasoning = '';
          break;
        case 'reasoning-delta':
          reasoning += event.text;
          parts.push(...writer.reasoningDelta(event.text));
          break;
        case 'reasoning-end':
          // The whole text is sealed with what it needs again (an Anthropic signature is over the text).
          parts.push(...writer.reasoning(reasoning, event.providerMetadata, true));
          break;
        case 'text-start':
          text = '';
          break;
        case 'text-delta':
          if (!event.text) break;
          text += event.text;
          parts.push({ text: event.text });
          break;
        case 'text-end': {
          texts.push({ text, ...(event.citations?.length ? { citations: event.citations } : {}) });
          // A text block's signature (its own, or a seal waiting for it) comes with its end, in an empty text part, as Gemini sends one.
          const { before, signature } = writer.carried(event.providerMetadata);
          if (signature.thoughtSignature) parts.push(...before, { text: '', ...signature });
          break;
        }
        case 'tool-call-start':
          calls.set(event.id, { name: event.name, args: '', metadata: event.providerMetadata });
          break;
        case 'tool-call-delta': {
          const call = calls.get(event.id);
          if (call) call.args += event.argumentsDelta;
          break;
        }
        case 'tool-call-end': {
          const call = calls.get(event.id);
          if (!call) break;
          calls.delete(event.id);
          parts.push(...writer.call(event.id, call.name, call.args, mergeMetadata(call.metadata, event.providerMetadata)));
          break;
        }
        case 'web-search':
          searches.push(event.part);
          break;
        case 'finish': {
          parts.push(...writer.flush());
          const grounding = groundingMetadataOf(searches, texts);
          const message = finishMessageOf(event.finish).finishMessage;
          const candidateExtra = `,"finishReason":${JSON.stringify(geminiFinishReason(event.reason, event.finish?.raw))}${message !== undefined ? `,"finishMessage":${JSON.stringify(message)}` : ''}${grounding ? `,"groundingMetadata":${JSON.stringify(grounding)}` : ''}`;
          const meta = withReplyWarnings(context.svcMeta(), event.warnings);
          out += framing.last(chunkJson(parts, candidateExtra, `,"usageMetadata":${JSON.stringify(usageMetadataOf(event.usage))}`, `,"svc_meta":${JSON.stringify(meta)}`));
          parts.length = 0;
          break;
        }
        case 'error':
          out += framing.last(JSON.stringify(geminiErrorBody(event.error, context.requestId)));
          break;
        default:
          break;
      }
      // Each piece its own chunk, as Gemini streams them; a burst of them leaves in one write.
      if (parts.length) {
        out += framing.chunk(chunkJson(parts));
        parts.length = 0;
      }
    }
    if (out) yield out;
  }
}
