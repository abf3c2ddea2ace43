import type { BackendDefinition } from '../backend.js';

export const geminiDefinition: BackendDefinition = {
  load: () => import('./gemini-backend.js'),
  priceProvider: { id: 'google' },
};
