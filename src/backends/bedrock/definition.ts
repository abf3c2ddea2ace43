import type { BackendDefinition } from '../backend.js';

export const bedrockDefinition: BackendDefinition = {
  load: () => import('./bedrock-backend.js'),
  // AWS's list names Bedrock's model ids (`anthropic.claude-…-v1:0`, `amazon.nova-…`) at Bedrock's prices.
  priceProvider: { id: 'aws' },
};
