import type { PriceProvider } from '../catalog/index.js';
import type { Settings } from '../config/settings.js';
import { isBackendType, type BackendType } from '../core/backend-types.js';
import { anthropicDefinition } from './anthropic/definition.js';
import type { BackendDefinition, BackendModule } from './backend.js';
import { bedrockDefinition } from './bedrock/definition.js';
import { geminiDefinition } from './gemini/definition.js';
import { openaiChatDefinition } from './openai-chat/definition.js';
import { openaiResponsesDefinition } from './openai-responses/definition.js';
import { vertexDefinition } from './vertex/definition.js';

/**
 * Each backend type's definition, from its own folder (the types are listed in
 * src/core/backend-types.ts; this table must name each, and no other). A type's module is imported
 * only when a configured backend of its type is first used (src/backends/backend-registry.ts), so
 * the CLI and a router that never names the type pay nothing for it. Look a type up here only once
 * isBackendType() has accepted it.
 */
export const BACKENDS: { readonly [Type in BackendType]: BackendDefinition } = {
  'openai-chat': openaiChatDefinition,
  'openai-responses': openaiResponsesDefinition,
  anthropic: anthropicDefinition,
  gemini: geminiDefinition,
  vertex: vertexDefinition,
  bedrock: bedrockDefinition,
};

/** How to load each type's module (doctor loads one to probe a backend's key). */
export const LOADERS = Object.fromEntries(Object.entries(BACKENDS).map(([type, definition]) => [type, definition.load])) as { readonly [Type in BackendType]: () => Promise<BackendModule> };

/**
 * The price provider of a configured backend's type, for a catalog lookup; undefined for no type
 * (the offline backend, a name no longer configured) or one a hand-edited config made up, which
 * the catalog then matches by model name alone.
 */
export const priceProviderOf = (type: unknown): PriceProvider | undefined => (isBackendType(type) ? BACKENDS[type].priceProvider : undefined);

/** The price provider of a backend by its configured name (own keys only); undefined for the offline backend or a name no longer configured. */
export const priceProviderOfBackend = (settings: Pick<Settings, 'backends'>, backend: string): PriceProvider | undefined =>
  Object.hasOwn(settings.backends, backend) ? priceProviderOf(settings.backends[backend]!.type) : undefined;

/** Every price provider a backend type names, each once (`prices list` shows their models). */
export const priceProviderIds = (): string[] => [...new Set(Object.values(BACKENDS).map((definition) => definition.priceProvider.id))];
