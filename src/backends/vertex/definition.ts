import type { BackendDefinition } from '../backend.js';

export const vertexDefinition: BackendDefinition = {
  load: () => import('./vertex-backend.js'),
  // Google's list; Vertex also serves Anthropic's Claude models, which are found by their name.
  priceProvider: { id: 'google', othersByName: true },
};
