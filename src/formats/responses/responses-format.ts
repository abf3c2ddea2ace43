import type { ClientFormat } from '../client-format.js';
import { openaiErrorBody } from '../openai-error.js';
import { decodeResponsesRequest, type ResponsesOptions } from './decode-request.js';
import { encodeResponsesReply } from './encode-reply.js';
import { encodeResponsesStream } from './encode-stream.js';

export const responsesFormat: ClientFormat<ResponsesOptions> = {
  endpoint: 'responses',
  decode: decodeResponsesRequest,
  encodeReply: encodeResponsesReply,
  encodeStream: encodeResponsesStream,
  errorBody: openaiErrorBody,
};
