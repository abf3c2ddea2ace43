import type { ClientFormat } from '../client-format.js';
import { openaiErrorBody } from '../openai-error.js';
import { openaiModelEntry, openaiModelList } from '../openai-models.js';
import { API_KEY_OR_BEARER } from '../shared/key-sources.js';
import { codexModelCatalog, isCodex } from './codex-models.js';
import { decodeResponsesRequest, type ResponsesOptions } from './decode-request.js';
import { encodeResponsesReply } from './encode-reply.js';
import { encodeResponsesStream } from './encode-stream.js';

/** OpenAI Responses; Codex, its main client, gets its own model catalog from GET /v1/models. */
export const responsesFormat: ClientFormat<ResponsesOptions> & { readonly name: 'responses' } = {
  name: 'responses',
  routes: [{ method: 'POST', path: '/v1/responses' }],
  keySources: API_KEY_OR_BEARER,
  models: { claims: isCodex, list: (ids, _headers, contextWindow) => codexModelCatalog(ids, undefined, contextWindow), entry: openaiModelEntry },
  decode: decodeResponsesRequest,
  encodeReply: encodeResponsesReply,
  encodeStream: encodeResponsesStream,
  errorBody: openaiErrorBody,
};
