import { RouterError } from '../../core/errors.js';
import { checkObjectFrame, leadingType, stringCharsOf, type ForwardTap } from '../http/forward-tap.js';
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

const DELTA_KEY = ['delta'];

/**
 * OpenAI Responses, read where decodeResponsesStream decides: the stream is over at
 * response.completed or response.incomplete, whose `response.usage` is the whole request's; it
 * fails at response.failed or an `error` event, and is cut off if it ends before either. Only the
 * terminal events are parsed.
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
    return {
      read(frame) {
        checkObjectFrame(backend, frame);
        // The event's `type`, which decodeResponsesStream reads (it ignores the `event:` line).
        const name = leadingType(frame.data);
        // Every event of the grammar but `error` is `response.…`: anything else may be an error in another shape (foreign-error-frame.ts).
        if (name === undefined || (name !== 'error' && !name.startsWith('response.'))) {
          return foreignErrorOf(frame, parseFrameJson(backend, frame)) ? 'error' : { outputChars: 0 };
        }
        if (OUTPUT_DELTAS.has(name)) return { outputChars: stringCharsOf(frame.data, DELTA_KEY) };
        switch (name) {
          case 'response.completed':
          case 'response.incomplete': {
            const raw = parseFrameJson(backend, frame) as { response?: unknown };
            const event = readResponsesEvent(backend, raw);
            finished = true;
            const note = { outputChars: 0, usage: usageFromResponses(event.response?.usage), end: true };
            if (!atCap(raw.response, request.maxOutputTokens)) return note;
            const replacement = { event: 'response.incomplete', data: JSON.stringify({ ...raw, type: 'response.incomplete', response: asIncomplete(raw.response) }) };
            return { ...note, replacement };
          }
          case 'response.failed':
          case 'error':
            return 'error';
          default:
            return { outputChars: 0 }; // lifecycle, item and part events, and event types yet to come
        }
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
