import { RouterError } from '../../core/errors.js';
import { notAnEvent, readEventFrame, type ForwardTap } from '../http/forward-tap.js';
import { foreignErrorOf } from '../http/foreign-error-frame.js';
import { parseFrameJson } from '../http/sse-decoder.js';
import { readResponsesEvent, readResponsesReply } from './api.js';
import { completedAtCap, usageFromResponses } from './decode-usage.js';

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
  correctedReply(body, request) {
    return atCap(body, request.maxOutputTokens) ? JSON.stringify(asIncomplete(body)) : undefined;
  },
  stream(backend, request) {
    let finished = false;
    /**
     * The note for response.completed or .incomplete, whose usage is the whole request's; a
     * response that says `completed` at the cap is passed on as the incomplete one it is.
     */
    const endNote = (raw: unknown) => {
      const event = readResponsesEvent(backend, raw);
      finished = true;
      const note = { outputChars: 0, usage: usageFromResponses(event.response?.usage), end: true, type: event.type };
      const response = (raw as { response?: unknown }).response;
      if (!atCap(response, request.maxOutputTokens)) return note;
      const replacement = { event: 'response.incomplete', data: JSON.stringify({ ...(raw as object), type: 'response.incomplete', response: asIncomplete(response) }) };
      return { ...note, replacement, type: replacement.event };
    };
    return {
      read(frame) {
        // The terminal event, parsed anyway and often the largest (the whole response), is not walked first when its event line names it.
        if (frame.event !== undefined && PARSED.has(frame.event)) {
          const raw = parseFrameJson(backend, frame);
          if (PARSED.has(readResponsesEvent(backend, raw).type)) return endNote(raw);
        }
        // Walked whole, without a memo: its deltas part from each other at `sequence_number`, too early for one to pay.
        const { isObject, type: name, outputChars } = readEventFrame(frame.data, KEYS);
        if (name === undefined) {
          // An error in another shape (foreign-error-frame.ts) fails the stream with its words; any other frame is no event.
          if (isObject && foreignErrorOf(frame, parseFrameJson(backend, frame))) return 'error';
          throw notAnEvent(backend, frame, readResponsesEvent);
        }
        if (OUTPUT_DELTAS.has(name)) return { outputChars, type: name };
        if (PARSED.has(name)) return endNote(parseFrameJson(backend, frame));
        // Every event of the grammar but `error` is `response.…`: an `event: error` frame in another shape is an error.
        if (name !== 'error' && !name.startsWith('response.')) {
          return frame.event === 'error' && foreignErrorOf(frame, parseFrameJson(backend, frame)) ? 'error' : { outputChars: 0, type: name };
        }
        if (name === 'response.failed' || name === 'error') return 'error';
        return { outputChars: 0, type: name }; // lifecycle, item and part events, and event types yet to come
      },
      atEnd: () => (finished ? undefined : new RouterError(502, 'upstream', `Backend '${backend}' ended the stream before response.completed.`)),
    };
  },
};

/** Whether a response ended at the cap while saying `completed` (decode-usage.ts says why); its function calls are in its output. */
function atCap(response: unknown, maxOutputTokens: number | undefined): boolean {
  const output = (response as { output?: unknown } | null)?.output;
  const hasToolCalls = Array.isArray(output) && output.some((item) => typeof item === 'object' && item !== null && /^(function|custom_tool)_call$/.test(String((item as { type?: unknown }).type)));
  return completedAtCap(response, hasToolCalls, maxOutputTokens);
}

/** The response as OpenAI says one that reached max_output_tokens: https://platform.openai.com/docs/api-reference/responses/object */
function asIncomplete(response: unknown): Record<string, unknown> {
  return { ...(response as Record<string, unknown>), status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
}
