import type { StreamEvent } from '../../core/stream-events.js';
import type { EncodeContext } from '../client-format.js';
import { openaiErrorBody } from '../openai-error.js';
import { newId } from '../shared/ids.js';
import { jsonPieces, PIECE_CHARS } from '../shared/json-pieces.js';
import { sse } from '../shared/sse.js';
import type { ChatOptions } from './decode-request.js';
import { chatUsage } from './encode-usage.js';
import { withReplyWarnings, withUnshownDiagnostics } from '../shared/warnings.js';
import { chatFinishReason } from './map-finish-reason.js';
import { refusalText } from '../shared/refusal.js';
import type { WebSearchPart } from '../../core/web-search.js';
import { chatUrlCitation, unshownSearchesWarning } from '../shared/citations.js';

/**
 * Chat Completions chunks from canonical events: a role chunk first, content / reasoning /
 * `tool_calls[i]` deltas, a finish chunk, the usage chunk when asked for, then `[DONE]`.
 * svc_meta rides on the last chunk before `[DONE]`.
 */
export async function* encodeChatStream(batches: AsyncIterable<StreamEvent[]>, context: EncodeContext<ChatOptions>): AsyncGenerator<string> {
  // Every chunk shares its head; build it once rather than re-serialising per token.
  const head = `{"id":${JSON.stringify(newId('chatcmpl-'))},"object":"chat.completion.chunk","created":${context.created},"model":${JSON.stringify(context.model)}`;
  const chunk = (delta: unknown, finish: string | null = null, extra = '') => chunkOf(JSON.stringify(delta), finish, extra);
  const chunkOf = (deltaJson: string, finish: string | null = null, extra = '') =>
    `data: ${head},"choices":[{"index":0,"delta":${deltaJson},"logprobs":null,"finish_reason":${finish === null ? 'null' : JSON.stringify(finish)}}]${extra}}\n\n`;
  /** A chunk whose delta carries text longer than PIECE_CHARS, in pieces. */
  function* chunkInPieces(delta: unknown): Generator<string> {
    yield `data: ${head},"choices":[{"index":0,"delta":`;
    yield* jsonPieces(delta, PIECE_CHARS);
    yield ',"logprobs":null,"finish_reason":null}]}\n\n';
  }
  const toolIndex = new Map<string, number>();
  let started = false;
  /** The content's length so far and where the open text part began: citations are offsets into the whole content. */
  let contentLength = 0;
  let partStart = 0;
  const searches: WebSearchPart[] = [];

  // The batches end at the terminal event (finish or error): the pipeline hands on nothing after it.
  for await (const batch of batches) {
    let out = '';
    for (const event of batch) {
      if (!started && event.type !== 'error') {
        started = true;
        out += chunk({ role: 'assistant', content: '' });
      }
      switch (event.type) {
        case 'text-start':
          partStart = contentLength;
          break;
        case 'text-end':
          // Citations go in a delta of their own once the text they cover is out.
          if (event.citations?.length) out += chunk({ annotations: event.citations.map((citation) => chatUrlCitation(citation, partStart, contentLength - partStart)) });
          break;
        case 'web-search':
          searches.push(event.part);
          break;
        case 'text-delta':
        case 'reasoning-delta': {
          if (!event.text) break;
          if (event.type === 'text-delta') contentLength += event.text.length;
          if (event.text.length > PIECE_CHARS) {
            if (out) yield out;
            out = '';
            yield* chunkInPieces(event.type === 'text-delta' ? { content: event.text } : { reasoning_content: event.text });
          } else if (event.type === 'text-delta') {
            // The token path: only the text needs escaping.
            out += chunkOf(`{"content":${JSON.stringify(event.text)}}`);
          } else {
            out += chunk({ reasoning_content: event.text });
          }
          break;
        }
        case 'tool-call-start': {
          const index = toolIndex.size;
          toolIndex.set(event.id, index);
          out += chunk({ tool_calls: [{ index, id: event.id, type: 'function', function: { name: event.name, arguments: '' } }] });
          break;
        }
        case 'tool-call-delta': {
          if (!event.argumentsDelta) break;
          const delta = { tool_calls: [{ index: toolIndex.get(event.id) ?? 0, function: { arguments: event.argumentsDelta } }] };
          if (event.argumentsDelta.length <= PIECE_CHARS) {
            out += chunk(delta);
            break;
          }
          if (out) yield out;
          out = '';
          yield* chunkInPieces(delta);
          break;
        }
        case 'finish': {
          const searchWarning = unshownSearchesWarning(searches);
          const meta = `,"svc_meta":${JSON.stringify(withReplyWarnings(context.svcMeta(), withUnshownDiagnostics(searchWarning ? [...(event.warnings ?? []), searchWarning] : event.warnings, event.finish)))}`;
          const reason = chatFinishReason(event.reason);
          // A model that declined says why in a `refusal` delta before the finish, as OpenAI streams a refusal.
          const refusal = refusalText(event.finish);
          if (refusal !== undefined) out += chunk({ refusal });
          if (context.options.includeUsage) {
            out += chunk({}, reason);
            out += `data: ${head},"choices":[],"usage":${JSON.stringify(chatUsage(event.usage))}${meta}}\n\n`;
          } else {
            out += chunk({}, reason, meta);
          }
          out += 'data: [DONE]\n\n';
          break;
        }
        case 'error':
          out += sse(openaiErrorBody(event.error));
          break;
        default:
          break;
      }
    }
    if (out) yield out;
  }
}
