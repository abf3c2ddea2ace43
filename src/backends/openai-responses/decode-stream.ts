import { RouterError } from '../../core/errors.js';
import { upstreamText } from '../../core/redact.js';
import type { CanonicalRequest } from '../../core/request.js';
import type { StreamEvent } from '../../core/stream-events.js';
import { canonicalToolName, customToolArguments } from '../../core/tool-conventions.js';
import { eventBatches } from '../http/event-batches.js';
import { foreignErrorOf } from '../http/foreign-error-frame.js';
import { parseFrameJson, type SseFrame } from '../http/sse-decoder.js';
import { readResponsesEvent } from './api.js';
import { responsesFinish, usageFromResponses } from './decode-usage.js';
import { openaiReasoningMetadata } from './reasoning-metadata.js';
import type { Citation } from '../../core/web-search.js';
import { citationsOf, searchPartOfItem } from './web-search.js';

/**
 * Responses stream events to canonical events: output items open and close blocks; text, reasoning
 * summary and argument deltas fill them; the terminal response event carries usage.
 */
export async function* decodeResponsesStream(backend: string, batches: AsyncIterable<SseFrame[]>, request?: CanonicalRequest): AsyncGenerator<StreamEvent[]> {
  const calls = new Map<string, string>(); // item id → call id
  let textOpen = false;
  let reasoningOpen = false;
  /** The open message's url_citation annotations, for its text-end. */
  let citations: Citation[] = [];
  const textEnd = () => {
    const event = { type: 'text-end' as const, ...(citations.length ? { citations } : {}) };
    citations = [];
    textOpen = false;
    return event;
  };

  let finished = false;
  yield* eventBatches(batches, () => finished, (frame, out) => {
    const raw = parseFrameJson(backend, frame);
    const foreign = foreignErrorOf(frame, raw);
    const event = readResponsesEvent(backend, foreign ? { type: 'error', message: foreign.message, code: foreign.type } : raw);
    switch (event.type) {
      case 'response.created':
        out.push({ type: 'start', ...(event.response?.id ? { id: event.response.id } : {}) });
        break;
      case 'response.output_item.added':
        if (event.item?.type === 'function_call' || event.item?.type === 'custom_tool_call') {
          const callId = event.item.call_id ?? event.item.id ?? `call_${calls.size}`;
          calls.set(event.item.id ?? callId, callId);
          out.push({ type: 'tool-call-start', id: callId, name: canonicalToolName(event.item.name ?? '', event.item.namespace) });
        } else if (event.item?.type === 'reasoning') {
          reasoningOpen = true;
          out.push({ type: 'reasoning-start' });
        }
        break;
      case 'response.output_text.delta':
        if (!textOpen) {
          textOpen = true;
          out.push({ type: 'text-start' });
        }
        if (event.delta) out.push({ type: 'text-delta', text: event.delta });
        break;
      case 'response.output_text.annotation.added':
        if (textOpen) citations.push(...citationsOf([event.annotation]));
        break;
      case 'response.reasoning_summary_text.delta':
        if (reasoningOpen && event.delta) out.push({ type: 'reasoning-delta', text: event.delta });
        break;
      case 'response.function_call_arguments.delta': {
        const callId = calls.get(event.item_id ?? '');
        if (callId && event.delta) out.push({ type: 'tool-call-delta', id: callId, argumentsDelta: event.delta });
        break;
      }
      case 'response.output_item.done':
        if (event.item?.type === 'message' && textOpen) {
          out.push(textEnd());
        } else if (event.item?.type === 'web_search_call') {
          if (textOpen) out.push(textEnd());
          out.push({ type: 'web-search', part: searchPartOfItem(event.item) });
        } else if (event.item?.type === 'reasoning' && reasoningOpen) {
          reasoningOpen = false;
          const providerMetadata = openaiReasoningMetadata(event.item);
          out.push({ type: 'reasoning-end', ...(providerMetadata ? { providerMetadata } : {}) });
        } else if (event.item?.type === 'function_call' || event.item?.type === 'custom_tool_call') {
          const callId = calls.get(event.item.id ?? '') ?? event.item.call_id;
          // A custom tool's input arrives whole with the finished item, wrapped as canonical arguments.
          if (callId && event.item.type === 'custom_tool_call') out.push({ type: 'tool-call-delta', id: callId, argumentsDelta: customToolArguments(event.item.input ?? '') });
          if (callId) out.push({ type: 'tool-call-end', id: callId });
        }
        break;
      case 'response.completed':
      case 'response.incomplete':
        if (textOpen) out.push(textEnd());
      {
        const finish = responsesFinish(event.response, calls.size > 0, request?.maxOutputTokens);
        out.push({ type: 'finish', reason: finish.unified, finish, usage: usageFromResponses(event.response?.usage) });
      }
        finished = true;
        break;
      case 'response.failed':
      case 'error':
        throw new RouterError(502, 'upstream', `Backend '${backend}' failed mid-stream: ${upstreamText(event.response?.error?.message ?? event.message ?? 'unknown error')}`);
      default:
        break;
    }
  });
  if (!finished) throw new RouterError(502, 'upstream', `Backend '${backend}' ended the stream before response.completed.`);
}
