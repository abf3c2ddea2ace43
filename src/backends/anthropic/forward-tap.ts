import { RouterError } from '../../core/errors.js';
import type { Usage } from '../../core/reply.js';
import { checkObjectFrame, leadingType, stringCharsOf, type ForwardTap } from '../http/forward-tap.js';
import { foreignErrorOf } from '../http/foreign-error-frame.js';
import { parseFrameJson, type SseFrame } from '../http/sse-decoder.js';
import { readAnthropicEvent, readAnthropicReply } from './api.js';
import { usageFromAnthropic } from './decode-usage.js';

/** The string fields of a content_block_delta that are output. */
const OUTPUT_KEYS = ['text', 'thinking', 'partial_json'];

/**
 * Anthropic Messages, read where decodeAnthropicStream decides: usage from message_start, completed
 * by message_delta (https://docs.anthropic.com/en/docs/build-with-claude/streaming#event-types);
 * the stream is over at message_stop, fails at an `error` event, and is cut off if it ends before
 * message_stop. Only those events are parsed; deltas are measured, not parsed.
 */
export const anthropicForwardTap: ForwardTap = {
  replyUsage(backend, body) {
    const reply = readAnthropicReply(backend, body);
    // No content list: decodeAnthropicReply names the upstream's error.
    return reply && Array.isArray(reply.content) ? usageFromAnthropic(reply.usage) : undefined;
  },
  stream(backend) {
    let usage: Usage | undefined;
    let stopped = false;
    return {
      read(frame) {
        checkObjectFrame(backend, frame);
        switch (eventName(frame)) {
          case 'content_block_delta':
            return { outputChars: stringCharsOf(frame.data, OUTPUT_KEYS) };
          case 'message_start': {
            const event = readAnthropicEvent(backend, parseFrameJson(backend, frame));
            usage = usageFromAnthropic(event.message?.usage);
            return { outputChars: 0, usage };
          }
          case 'message_delta': {
            const event = readAnthropicEvent(backend, parseFrameJson(backend, frame));
            usage = usageFromAnthropic(event.usage, usage);
            return { outputChars: 0, usage };
          }
          case 'message_stop':
            stopped = true;
            return { outputChars: 0, end: true };
          case 'error':
            return 'error';
          case 'ping':
          case 'content_block_start':
          case 'content_block_stop':
            return { outputChars: 0 };
          default:
            // Event types yet to come pass; an error in another shape (foreign-error-frame.ts) fails the stream.
            return foreignErrorOf(frame, parseFrameJson(backend, frame)) ? 'error' : { outputChars: 0 };
        }
      },
      atEnd: () => (stopped ? undefined : new RouterError(502, 'upstream', `Backend '${backend}' ended the stream before message_stop.`)),
    };
  },
};

/** The event's name; from its `type` when the upstream left out the `event:` line (`type` leads every Anthropic event). */
function eventName(frame: SseFrame): string | undefined {
  return frame.event ?? leadingType(frame.data);
}
