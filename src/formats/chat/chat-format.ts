import type { ClientFormat } from '../client-format.js';
import { OPENAI_STYLE_BASE_URL } from '../shared/base-url.js';
import { forwardedJsonReply } from '../shared/forwarded.js';
import { forwardChatStream } from './forward-stream.js';
import { openaiErrorBody } from '../openai-error.js';
import { openaiModelEntry, openaiModelList } from '../openai-models.js';
import { API_KEY_OR_BEARER } from '../shared/key-sources.js';
import { OPENAI_FORWARD_HEADERS } from '../shared/openai-beta.js';
import { decodeChatRequest, type ChatOptions } from './decode-request.js';
import { encodeChatReply } from './encode-reply.js';
import { encodeChatStream } from './encode-stream.js';

/** OpenAI Chat Completions. */
export const chatFormat: ClientFormat<ChatOptions> & { readonly name: 'chat' } = {
  name: 'chat',
  routes: [{ method: 'POST', path: '/v1/chat/completions' }],
  keySources: API_KEY_OR_BEARER,
  forwardHeaders: OPENAI_FORWARD_HEADERS,
  models: { claims: () => false, list: openaiModelList, entry: openaiModelEntry },
  decode: decodeChatRequest,
  encodeReply: encodeChatReply,
  encodeStream: encodeChatStream,
  errorBody: openaiErrorBody,
  baseUrl: OPENAI_STYLE_BASE_URL,
  // An upstream of this format answers as it is: forwarded, model and svc_meta aside.
  forward: { allows: () => true, reply: forwardedJsonReply, stream: forwardChatStream },
};

// This format's name, among those a backend's wireFormat and a forwarded body may carry (src/core/request.ts).
declare module '../../core/request.js' {
  interface FormatNames {
    chat: true;
  }
}
