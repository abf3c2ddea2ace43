import type { BackendType } from '../core/backend-types.js';
import type { BackendModule } from './backend.js';

/**
 * How to load each backend type's folder (the types are listed in src/core/backend-types.ts; this
 * table must name each, and no other). A module is imported only when a configured backend of its
 * type is first used (src/backends/backend-registry.ts), so the CLI and a router that never names
 * the type pay nothing for it. Look a type up here only once isBackendType() has accepted it.
 */
export const LOADERS: { readonly [Type in BackendType]: () => Promise<BackendModule> } = {
  'openai-chat': () => import('./openai-chat/openai-chat-backend.js'),
  'openai-responses': () => import('./openai-responses/openai-responses-backend.js'),
  anthropic: () => import('./anthropic/anthropic-backend.js'),
  gemini: () => import('./gemini/gemini-backend.js'),
  vertex: () => import('./vertex/vertex-backend.js'),
  bedrock: () => import('./bedrock/bedrock-backend.js'),
};
