import type { BackendDefinition } from '../backend.js';

export const openaiChatDefinition: BackendDefinition = {
  load: () => import('./openai-chat-backend.js'),
  // OpenAI's list first; a compatible server (OpenRouter, vLLM, Ollama …) may serve any vendor's model.
  priceProvider: { id: 'openai', othersByName: true },
};
