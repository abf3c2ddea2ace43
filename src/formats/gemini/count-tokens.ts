import type { FormatCounter } from '../client-format.js';
import { asObject } from '../shared/read-fields.js';
import { decodeGeminiRequest, pathModel } from './decode-request.js';

/**
 * `models.countTokens` (https://ai.google.dev/api/tokens#method:-models.counttokens): the prompt is
 * `contents`, or a whole `generateContentRequest` (system instruction and tools counted too), read
 * as generateContent reads it; the answer is `{totalTokens}`.
 */
export const geminiCounter: FormatCounter = {
  decode(body, context) {
    const model = pathModel(context);
    const json = asObject(body, 'body');
    const whole = json.generateContentRequest !== undefined && json.generateContentRequest !== null ? asObject(json.generateContentRequest, 'generateContentRequest') : { contents: json.contents };
    return decodeGeminiRequest(whole, { ...context, params: { model, method: 'generateContent' } }).request;
  },
  reply: (count) => ({ totalTokens: count }),
};
