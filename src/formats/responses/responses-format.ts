import type { ClientFormat } from '../client-format.js';
import { OPENAI_STYLE_BASE_URL } from '../shared/base-url.js';
import { openaiErrorBody } from '../openai-error.js';
import { openaiModelEntry } from '../openai-models.js';
import { API_KEY_OR_BEARER } from '../shared/key-sources.js';
import { OPENAI_FORWARD_HEADERS } from '../shared/openai-beta.js';
import { codexModelCatalog, isCodex } from './codex-models.js';
import { decodeResponsesRequest, type ResponsesOptions } from './decode-request.js';
import { encodeResponsesReply } from './encode-reply.js';
import { encodeResponsesStream } from './encode-stream.js';
import { responsesForwardAllowed } from './forward-allowed.js';
import { forwardResponsesStream } from './forward-stream.js';
import { forwardedJsonReply } from '../shared/forwarded.js';

/** OpenAI Responses; Codex, its main client, gets its own model catalog from GET /v1/models. */
export const responsesFormat: ClientFormat<ResponsesOptions> & { readonly name: 'responses' } = {
  name: 'responses',
  routes: [
    { method: 'POST', path: '/v1/responses' },
    { method: 'POST', path: '/v1/responses/input_tokens', name: 'input_tokens', serves: 'input-tokens' },
    { method: 'POST', path: '/v1/responses/compact', name: 'compact', serves: 'compact' },
  ],
  keySources: API_KEY_OR_BEARER,
  forwardHeaders: OPENAI_FORWARD_HEADERS,
  models: { claims: isCodex, list: (ids, _headers, contextWindow, reasoningLevels) => codexModelCatalog(ids, undefined, contextWindow, reasoningLevels), entry: openaiModelEntry },
  decode: decodeResponsesRequest,
  encodeReply: encodeResponsesReply,
  encodeStream: encodeResponsesStream,
  errorBody: openaiErrorBody,
  baseUrl: OPENAI_STYLE_BASE_URL,
  // An upstream of this format answers as it is (model and svc_meta aside), unless the reply must be sealed or echo what the upstream never saw.
  forward: { allows: responsesForwardAllowed, reply: forwardedJsonReply, stream: forwardResponsesStream },
};

// This format's name, among those a backend's wireFormat and a forwarded body may carry (src/core/request.ts).
declare module '../../core/request.js' {
  interface FormatNames {
    responses: true;
  }
}
