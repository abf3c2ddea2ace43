import type { BackendProbe } from '../backend.js';
import { readDataIds } from '../http/model-list.js';

/**
 * GET {base}/models with the key as a bearer token, as for Chat Completions: one API, one model
 * list (https://platform.openai.com/docs/api-reference/models/list). The Responses API refuses a
 * `max_output_tokens` below 16, so the live request asks for 16.
 */
export const probe: BackendProbe = {
  modelList: (baseUrl, key) => ({ url: `${baseUrl}/models`, headers: { ...(key ? { authorization: `Bearer ${key}` } : {}) } }),
  readModels: readDataIds,
  liveMaxOutputTokens: 16,
};
