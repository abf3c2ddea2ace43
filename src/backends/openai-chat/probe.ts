import type { BackendProbe } from '../backend.js';
import { readDataIds } from '../http/model-list.js';

/**
 * GET {base}/models with the key as a bearer token: OpenAI's list of the models the key may use
 * (https://platform.openai.com/docs/api-reference/models/list), free, and served by most
 * OpenAI-compatible servers (vLLM, Ollama, llama.cpp, OpenRouter, Groq).
 */
export const probe: BackendProbe = {
  modelList: (baseUrl, key) => ({ url: `${baseUrl}/models`, headers: { ...(key ? { authorization: `Bearer ${key}` } : {}) } }),
  readModels: readDataIds,
};
