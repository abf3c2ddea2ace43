import { MODEL_ID_FAMILIES } from '../../core/model-names.js';
import type { ClientFormat } from '../client-format.js';
import type { KeySource } from '../../identity/authenticate.js';
import { geminiCounter } from './count-tokens.js';
import { decodeGeminiRequest, type GeminiOptions } from './decode-request.js';
import { encodeGeminiReply } from './encode-reply.js';
import { encodeGeminiStream } from './encode-stream.js';
import { geminiErrorBody } from './error-body.js';
import { forwardedGeminiReply, forwardGeminiStream } from './forward-stream.js';
import { geminiModelEntry, geminiModelList } from './models-list.js';

/**
 * Where Google's clients send a key (https://ai.google.dev/gemini-api/docs/api-key): the
 * `x-goog-api-key` header (the Google GenAI SDK, Gemini CLI), the `key` query parameter (REST
 * examples, older clients), or `Authorization: Bearer`.
 */
const KEY_SOURCES: readonly KeySource[] = [{ header: 'x-goog-api-key' }, { query: 'key' }, { header: 'authorization', scheme: 'bearer' }];

/** The API's version prefixes: v1beta (Google's SDKs and Gemini CLI) and v1. */
const VERSIONS = ['/v1beta', '/v1'];

/**
 * Google's Gemini API (https://ai.google.dev/api): generateContent and streamGenerateContent on
 * `models/{model}` (the method is the path's last segment after a colon), countTokens, and the
 * model list, under v1beta and v1. On /v1 the model list is the shared /v1/models, answered in
 * Google's shape to a Google client (a Google key header or `?key=`).
 */
export const geminiFormat: ClientFormat<GeminiOptions> & { readonly name: 'gemini' } = {
  name: 'gemini',
  routes: VERSIONS.flatMap((version) => [
    { method: 'POST' as const, path: `${version}/models/{model}:{method}` },
    { method: 'POST' as const, path: `${version}/models/{model}:countTokens`, name: 'count_tokens', serves: 'count' as const },
    ...(version === '/v1'
      ? []
      : [
          { method: 'GET' as const, path: `${version}/models`, name: 'models', serves: 'models' as const },
          { method: 'GET' as const, path: `${version}/models/{model}`, name: 'models', serves: 'model' as const },
        ]),
  ]),
  keySources: KEY_SOURCES,
  models: {
    claims: (headers, query) => headers['x-goog-api-key'] !== undefined || headers['x-goog-api-client'] !== undefined || new URLSearchParams(query ?? '').has('key'),
    list: (ids, _headers, contextWindow) => geminiModelList(ids, contextWindow),
    entry: geminiModelEntry,
  },
  // Gemini model ids (`gemini-2.5-pro`, `gemini-3-flash-preview`), which Gemini CLI sends and switches between itself.
  modelIds: MODEL_ID_FAMILIES.gemini,
  count: geminiCounter,
  decode: decodeGeminiRequest,
  encodeReply: encodeGeminiReply,
  encodeStream: encodeGeminiStream,
  errorBody: geminiErrorBody,
  // A Gemini upstream's reply reaches a Gemini client as it came, modelVersion and svc_meta aside.
  forward: { allows: () => true, reply: forwardedGeminiReply, stream: forwardGeminiStream },
};

// This format's name, among those a backend's wireFormat and a forwarded body may carry (src/core/request.ts).
declare module '../../core/request.js' {
  interface FormatNames {
    gemini: true;
  }
}
