import { RouterError } from '../../core/errors.js';
import type { FrameNote } from '../../core/forwarded.js';
import { walkJsonObject } from '../../core/json-check.js';
import { usageFromGemini } from '../../wire/gemini/usage-metadata.js';
import { isNullAt, notAnEvent, type ForwardTap } from '../http/forward-tap.js';
import { parseFrameJson } from '../http/sse-decoder.js';
import { readGeminiResponse } from './api.js';

/** What the tap reads of a chunk: its own `error`, a candidate's finishReason, a blocked prompt's reason; then the output strings. */
const KEYS = ['error', 'finishReason', 'blockReason', 'text'];
const [ERROR, FINISH, BLOCKED] = [0, 1, 2];
/** Where each is in a GenerateContentResponse: `candidates[i].finishReason`, `promptFeedback.blockReason`, `candidates[i].content.parts[j].text`. */
const [PROMPT_FEEDBACK, CANDIDATE, PART] = [2, 3, 6];

/**
 * Gemini's streamGenerateContent chunks, read where decodeGeminiStream decides: a chunk with
 * `error` fails the stream, and so does a frame that is not a JSON object (every chunk is a
 * GenerateContentResponse); the chunk with a finishReason (or a blocked prompt's) ends the answer,
 * and is the one parsed, for its usage, which Gemini gives cumulatively on every chunk; an end
 * before it is a cut-off. Output is counted from the text of the parts, for a stream cut short.
 */
export const geminiForwardTap: ForwardTap = {
  replyUsage(backend, body) {
    const reply = readGeminiResponse(backend, body);
    // No candidate and no blocked prompt: decodeGeminiReply says what the upstream sent. No usage: it estimates.
    return reply.candidates?.length || reply.promptFeedback?.blockReason !== undefined ? usageFromGemini(reply.usageMetadata) : undefined;
  },
  stream(backend) {
    let finished = false;
    return {
      read(frame) {
        const { data } = frame;
        let outputChars = 0;
        let error = false;
        let ends = false;
        // Depths as the walk counts them, arrays included: the chunk is 1, a candidate 3, a part 6.
        const isObject = walkJsonObject(data, KEYS, (key, value, stringEnd, depth) => {
          if (key === ERROR) error ||= depth === 1 && !isNullAt(data, value);
          else if (key === FINISH) ends ||= depth === CANDIDATE && stringEnd !== -1;
          else if (key === BLOCKED) ends ||= depth === PROMPT_FEEDBACK && stringEnd !== -1;
          else if (depth === PART && stringEnd !== -1) outputChars += stringEnd - value - 2;
        });
        if (!isObject) throw notAnEvent(backend, frame, readGeminiResponse);
        if (error) return 'error';
        const note: FrameNote = { outputChars };
        if (!ends) return note;
        const usage = usageFromGemini(readGeminiResponse(backend, parseFrameJson(backend, frame)).usageMetadata);
        finished = true;
        return { ...note, finish: true, end: true, ...(usage ? { usage } : {}) };
      },
      atEnd: () => (finished ? undefined : new RouterError(502, 'upstream', `Backend '${backend}' ended the stream before it finished.`)),
    };
  },
};
