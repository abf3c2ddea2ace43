import { RouterError } from '../../core/errors.js';
import type { FrameNote } from '../../core/forwarded.js';
import { WalkMemo, walkJsonObject } from '../../core/json-check.js';
import { isNullAt, notAnEvent, type ForwardTap } from '../http/forward-tap.js';
import { parseFrameJson } from '../http/sse-decoder.js';
import { readChatChunk, readChatReply } from './api.js';
import { usageFromChat } from './decode-usage.js';

/** What the tap reads of a chunk; after the first four, the string fields of a choice's delta that are output. */
const KEYS = ['delta', 'finish_reason', 'error', 'usage', 'content', 'reasoning_content', 'reasoning', 'refusal', 'arguments'];
const [DELTA, FINISH, ERROR, USAGE] = [0, 1, 2, 3];

/**
 * Chat Completions, read where decodeChatStream decides: an `error` chunk fails the stream, and so
 * does a frame that is not a JSON object (every chunk is one); the stream is over at `[DONE]`, or
 * at usage with or after a finish reason (usage is the last chunk OpenAI sends before `[DONE]`); an
 * end before any finish reason is a cut-off.
 */
export const chatForwardTap: ForwardTap = {
  replyUsage(backend, body) {
    const reply = readChatReply(backend, body);
    // No choice: decodeChatReply names the upstream's error. No usage: it estimates.
    return reply?.choices?.[0]?.message ? usageFromChat(reply.usage) : undefined;
  },
  stream(backend) {
    let finished = false;
    // The stream's chunks begin alike: each is walked from where it parts from the last.
    const memo = new WalkMemo();
    return {
      read(frame) {
        const { data } = frame;
        if (data === '[DONE]') return { outputChars: 0, end: true };
        let outputChars = 0;
        let inDelta = false;
        let finish = false;
        let parse = false;
        const isObject = walkJsonObject(data, KEYS, (key, value, stringEnd) => {
          if (key === DELTA) inDelta = true;
          else if (key === FINISH) finish ||= !isNullAt(data, value);
          else if (key === ERROR || key === USAGE) parse ||= !isNullAt(data, value);
          // Output is in a choice's delta; the chunk's head (id, model …) is not counted.
          else if (inDelta && stringEnd !== -1) outputChars += stringEnd - value - 2;
        }, memo);
        if (!isObject) throw notAnEvent(backend, frame, readChatChunk);
        const note: FrameNote = { outputChars };
        if (finish) note.finish = true;
        if (parse) {
          const chunk = readChatChunk(backend, parseFrameJson(backend, frame));
          if (chunk.error) return 'error';
          const usage = usageFromChat(chunk.usage);
          if (usage) {
            note.usage = usage;
            if (!chunk.choices?.length) note.usageOnly = true;
            if (finished || finish) note.end = true;
          }
        }
        if (finish) finished = true;
        return note;
      },
      atEnd: () => (finished ? undefined : new RouterError(502, 'upstream', `Backend '${backend}' ended the stream before it finished.`)),
    };
  },
};
