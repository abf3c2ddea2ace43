import { WalkMemo } from '../../core/json-check.js';
import { RouterError } from '../../core/errors.js';
import type { Usage } from '../../core/reply.js';
import { notAnEvent, readEventFrame, type ForwardTap } from '../http/forward-tap.js';
import { foreignErrorOf } from '../http/foreign-error-frame.js';
import { parseFrameJson } from '../http/sse-decoder.js';
import { readAnthropicEvent, readAnthropicReply, type AnthropicStreamEvent } from './api.js';
import { usageFromAnthropic } from './decode-usage.js';
import { droppedThinking } from './input-transformations.js';

/** What the tap reads of an event: its `type`; after it, the string fields of a content_block_delta that are output. */
const KEYS = ['type', 'text', 'thinking', 'partial_json'];
/** The events the tap parses: usage from message_start, completed by message_delta. */
const PARSED = new Set(['message_start', 'message_delta']);

/**
 * Anthropic Messages, read where decodeAnthropicStream decides: usage from message_start, completed
 * by message_delta (https://docs.anthropic.com/en/docs/build-with-claude/streaming#event-types);
 * the stream is over at message_stop, fails at an `error` event, and is cut off if it ends before
 * message_stop. Every event is a JSON object with a string `type`, which names it (the decoder
 * reads it, not the `event:` line): a frame without one fails the stream, as it fails the
 * translated one. Only the usage and error events are parsed; deltas are measured, not parsed.
 */
export const anthropicForwardTap: ForwardTap = {
  replyNotes(body) {
    const reply = body as Record<string, unknown> | null;
    const dropped = reply && typeof reply === 'object' ? droppedThinking(reply.input_transformations, reply.model) : undefined;
    return dropped ? { warnings: [dropped.warning], unreadReasoning: dropped.blocks } : undefined;
  },
  replyUsage(backend, body) {
    const reply = readAnthropicReply(backend, body);
    // No content list: decodeAnthropicReply names the upstream's error.
    return reply && Array.isArray(reply.content) ? usageFromAnthropic(reply.usage) : undefined;
  },
  stream(backend) {
    let usage: Usage | undefined;
    let stopped = false;
    // A stream's deltas begin alike: each is walked from where it parts from the last.
    const memo = new WalkMemo();
    /** The note for an event the tap parses (message_start, message_delta), read as the decoder reads it. */
    const usageNote = (event: AnthropicStreamEvent) => {
      usage = event.type === 'message_start' ? usageFromAnthropic(event.message?.usage) : usageFromAnthropic(event.usage, usage);
      // Thinking blocks Anthropic dropped for another model's (input-transformations.ts), final in message_start.
      const message = event.type === 'message_start' ? (event.message as Record<string, unknown> | undefined) : undefined;
      const dropped = message ? droppedThinking(message.input_transformations, message.model) : undefined;
      return { outputChars: 0, usage, ...(dropped ? { warnings: [dropped.warning], unreadReasoning: dropped.blocks } : {}) };
    };
    return {
      read(frame) {
        // An event the tap parses anyway, named so by its event line, is not walked first: JSON.parse checks it.
        if (frame.event !== undefined && PARSED.has(frame.event)) {
          const event = readAnthropicEvent(backend, parseFrameJson(backend, frame));
          if (PARSED.has(event.type)) return usageNote(event);
        }
        const { isObject, type, outputChars } = readEventFrame(frame.data, KEYS, memo);
        if (type === undefined) {
          // An error in another shape (foreign-error-frame.ts) fails the stream with its words; any other frame is no event.
          if (isObject && foreignErrorOf(frame, parseFrameJson(backend, frame))) return 'error';
          throw notAnEvent(backend, frame, readAnthropicEvent);
        }
        if (PARSED.has(type)) return usageNote(readAnthropicEvent(backend, parseFrameJson(backend, frame)));
        switch (type) {
          case 'content_block_delta':
            return { outputChars };
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
            // Event types yet to come pass; an `event: error` frame in another shape (foreign-error-frame.ts) fails the stream.
            return frame.event === 'error' && foreignErrorOf(frame, parseFrameJson(backend, frame)) ? 'error' : { outputChars: 0 };
        }
      },
      atEnd: () => (stopped ? undefined : new RouterError(502, 'upstream', `Backend '${backend}' ended the stream before message_stop.`)),
    };
  },
};
