/**
 * Provider data the canonical form does not model, kept by provider so it reaches the next turn or
 * the client untouched: `{ anthropic: { signature }, openai: { encryptedContent, itemId }, gemini:
 * { thoughtSignature } }`. A translator reads and writes only its own provider's namespace and
 * never tests for a foreign one; what a namespace holds is that provider's business (see the keys
 * below for those in use). The idea follows the Vercel AI SDK's provider spec.
 */
export type ProviderMetadata = Record<string, Record<string, unknown>>;

/** The provider namespaces in use; a new backend adds its own. */
export type ProviderName = 'anthropic' | 'openai' | 'gemini' | (string & {});

/**
 * Keys in use, by namespace:
 * - anthropic: `signature` (thinking), `redactedData` (redacted_thinking), `stopReason` and
 *   `stopSequence` (finish), `cacheControl` (any part), `citations` (text); what the upstream sent
 *   that the canonical form does not model, for a Messages client to get back in place:
 *   `precedingBlocks` (a block start: server-tool blocks before it), `trailingBlocks` and
 *   `placedBlocks` (reply or finish: blocks after the last part, or by part index),
 *   `messageStartExtra` (start), `messageDeltaExtra`, `messageDeltaEventExtra`, `replyExtra` and `relayedBlockWarnings`
 *   (reply or finish); `systemAttribution` (request: Claude Code's attribution line, the first system block)
 * - openai: `encryptedContent` and `itemId` (reasoning), `promptCacheBreakpoint` (text, image and
 *   file parts: the client's explicit prompt-cache breakpoint, as it sent it)
 * - gemini: `thoughtSignature` (text, reasoning and tool-call parts)
 */
export function metadataOf(metadata: ProviderMetadata | undefined, provider: ProviderName): Record<string, unknown> | undefined {
  return metadata?.[provider];
}

/** A string held under one provider's key, or undefined. */
export function metadataString(metadata: ProviderMetadata | undefined, provider: ProviderName, key: string): string | undefined {
  const value = metadata?.[provider]?.[key];
  return typeof value === 'string' ? value : undefined;
}

/** `base` with `extra` merged in, namespace by namespace (extra wins per key); undefined when both are. */
export function mergeMetadata(base: ProviderMetadata | undefined, extra: ProviderMetadata | undefined): ProviderMetadata | undefined {
  if (!extra) return base;
  if (!base) return extra;
  const merged: ProviderMetadata = { ...base };
  for (const [provider, values] of Object.entries(extra)) merged[provider] = { ...merged[provider], ...values };
  return merged;
}
