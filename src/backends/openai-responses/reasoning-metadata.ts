import type { ProviderMetadata } from '../../core/provider-metadata.js';

/**
 * What a reasoning item must carry to be replayed to OpenAI with `store: false`: its
 * `encrypted_content` and its id (https://platform.openai.com/docs/guides/reasoning#encrypted-reasoning-items),
 * kept in the openai namespace. Undefined when the item holds neither.
 */
export function openaiReasoningMetadata(item: { encrypted_content?: string | null }): ProviderMetadata | undefined {
  const id = (item as { id?: unknown }).id;
  const encrypted = item.encrypted_content;
  if (!encrypted && typeof id !== 'string') return undefined;
  return { openai: { ...(encrypted ? { encryptedContent: encrypted } : {}), ...(typeof id === 'string' && id ? { itemId: id } : {}) } };
}
