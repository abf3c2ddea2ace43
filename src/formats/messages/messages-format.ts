import { anthropicErrorBody } from '../anthropic-error.js';
import type { ClientFormat } from '../client-format.js';
import { decodeMessagesRequest, type MessagesOptions } from './decode-request.js';
import { encodeMessagesReply } from './encode-reply.js';
import { encodeMessagesStream } from './encode-stream.js';

export const messagesFormat: ClientFormat<MessagesOptions> = {
  endpoint: 'messages',
  decode: decodeMessagesRequest,
  encodeReply: encodeMessagesReply,
  encodeStream: encodeMessagesStream,
  errorBody: anthropicErrorBody,
};
