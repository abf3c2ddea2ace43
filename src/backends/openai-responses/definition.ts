import type { BackendDefinition } from '../backend.js';

export const openaiResponsesDefinition: BackendDefinition = {
  load: () => import('./openai-responses-backend.js'),
  priceProvider: { id: 'openai' },
};
