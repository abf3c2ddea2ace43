import type { ClientFormat } from '../client-format.js';
import { openaiErrorBody } from '../openai-error.js';
import { decodeChatRequest, type ChatOptions } from './decode-request.js';
import { encodeChatReply } from './encode-reply.js';
import { encodeChatStream } from './encode-stream.js';

export const chatFormat: ClientFormat<ChatOptions> = {
  endpoint: 'chat',
  decode: decodeChatRequest,
  encodeReply: encodeChatReply,
  encodeStream: encodeChatStream,
  errorBody: openaiErrorBody,
};
