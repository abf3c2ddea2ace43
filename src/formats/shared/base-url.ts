import type { BaseUrlAdvice } from '../client-format.js';

/** OpenAI's SDKs and the clients built on them take a base URL ending in /v1 and add the endpoint's path after it. */
export const OPENAI_STYLE_BASE_URL: BaseUrlAdvice = {
  take: (origin) => `OpenAI-style clients take ${origin}/v1 as their base URL`,
};
