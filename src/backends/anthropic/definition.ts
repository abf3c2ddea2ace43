import type { BackendDefinition } from '../backend.js';

export const anthropicDefinition: BackendDefinition = {
  load: () => import('./anthropic-backend.js'),
  priceProvider: { id: 'anthropic' },
};
