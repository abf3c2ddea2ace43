import { RouterError } from '../../core/errors.js';
import { walkJsonObject } from '../../core/json-check.js';
import { notAnEvent, stringValueAt, type ForwardTap } from '../http/forward-tap.js';
import { parseFrameJson } from '../http/sse-decoder.js';
import { readResponsesEvent, readResponsesReply, type ResponsesStreamEvent } from './api.js';
import { usageFromResponses } from './decode-usage.js';

/**
 * The delta events whose `delta` is output (text, refusals, reasoning, tool input): measured to
 * bill a stream cut short, never parsed.
 * https://platform.openai.com/docs/api-reference/responses-streaming
 */
const OUTPUT_DELTAS = new Set([
  'response.output_text.delta',
  'response.refusal.delta',
  'response.reasoning_summary_text.delta',
  'response.reasoning_text.delta',
  'response.function_call_arguments.delta',
  'response.custom_tool_call_input.delta',
]);

/** What the tap reads of an event: its `type`, and the string `delta` of the output deltas. */
const KEYS = ['type', 'delta'];
const TYPE = 0;
/** The events the tap parses: the stream's end, with the whole request's usage. */
const PARSED = new Set(['response.completed', 'response.incomplete']);

/**
 * OpenAI Responses, read where decodeResponsesStream decides: the stream is over at
 * response.completed or response.incomplete, whose `response.usage` is the whole request's; it
 * fails at response.failed or an `error` event, and is cut off if it ends before either. Every
 * event is a JSON object with a string `type`, which names it (the decoder ignores the `event:`
 * line): a frame without one fails the stream, as it fails the translated one. Only the terminal
 * events are parsed.
 */
export const responsesForwardTap: ForwardTap = {
  replyUsage(backend, body) {
    const reply = readResponsesReply(backend, body);
    // No output list, or a failed response: decodeResponsesReply names the upstream's error.
    return Array.isArray(reply.output) && reply.status !== 'failed' ? usageFromResponses(reply.usage) : undefined;
  },
  stream(backend) {
    let finished = false;
    /** The note for response.completed or .incomplete, whose usage is the whole request's. */
    const endNote = (event: ResponsesStreamEvent) => {
      finished = true;
      return { outputChars: 0, usage: usageFromResponses(event.response?.usage), end: true };
    };
    return {
      read(frame) {
        // The terminal event, parsed anyway and often the largest (the whole response), is not walked first when its event line names it.
        if (frame.event !== undefined && PARSED.has(frame.event)) {
          const event = readResponsesEvent(backend, parseFrameJson(backend, frame));
          if (PARSED.has(event.type)) return endNote(event);
        }
        const { data } = frame;
        let typeAt = -1;
        let typeEnd = -1;
        let deltaChars = 0;
        const isObject = walkJsonObject(data, KEYS, (key, value, stringEnd, depth) => {
          // The event's own type, not an item's or a part's (JSON.parse keeps the last of duplicates).
          if (key !== TYPE) {
            if (stringEnd !== -1) deltaChars += stringEnd - value - 2;
          } else if (depth === 1) {
            typeAt = value;
            typeEnd = stringEnd;
          }
        });
        const name = isObject && typeAt !== -1 ? stringValueAt(data, typeAt, typeEnd) : undefined;
        if (name === undefined) throw notAnEvent(backend, frame, readResponsesEvent);
        if (OUTPUT_DELTAS.has(name)) return { outputChars: deltaChars };
        if (PARSED.has(name)) return endNote(readResponsesEvent(backend, parseFrameJson(backend, frame)));
        if (name === 'response.failed' || name === 'error') return 'error';
        return { outputChars: 0 }; // lifecycle, item and part events, and event types yet to come
      },
      atEnd: () => (finished ? undefined : new RouterError(502, 'upstream', `Backend '${backend}' ended the stream before response.completed.`)),
    };
  },
};
