import { metadataOf, type ProviderMetadata } from '../../core/provider-metadata.js';
import type { Message } from '../../core/request.js';
import { isSealedByUs, sealReasoning, unsealReasoning } from '../responses/seal-reasoning.js';

/**
 * A thinking block's `signature` for reasoning another upstream made. Anthropic's own signature is
 * passed as it is; what another provider needs to see again (OpenRouter's reasoning blocks, …) is
 * sealed into the signature with the model that wrote it, as a Responses client gets it in `encrypted_content`
 * (../responses/seal-reasoning.ts), so a Messages client that replays its thinking blocks, as
 * Claude Code does, carries it to the next turn while the router stores nothing. The text is not
 * sealed: the block carries it.
 */
export function thinkingSignature(metadata: ProviderMetadata | undefined, secret: string | undefined, writer?: string): string | undefined {
  const own = metadataOf(metadata, 'anthropic')?.signature;
  if (typeof own === 'string') return own;
  const foreign = Object.entries(metadata ?? {}).filter(([provider]) => provider !== 'anthropic');
  if (!foreign.length || !secret) return undefined;
  return sealReasoning({ type: 'reasoning', text: '', providerMetadata: Object.fromEntries(foreign), ...(writer ? { writer } : {}) }, secret);
}

/**
 * Reasoning parts whose signature this router sealed get back what was sealed; an altered seal is
 * a 400 naming its block. Returns whether any was found: such a conversation is not forwarded to
 * an Anthropic upstream as the client wrote it, since Anthropic cannot read the seal.
 */
export function unsealThinking(messages: Message[], secret: string | undefined): boolean {
  let found = false;
  messages.forEach((message, index) => {
    message.content.forEach((part, at) => {
      if (part.type !== 'reasoning') return;
      const signature = metadataOf(part.providerMetadata, 'anthropic')?.signature;
      if (!isSealedByUs(signature)) return;
      found = true;
      if (!secret) return;
      const opened = unsealReasoning(signature, secret, `messages.${index}.content.${at}.signature`);
      message.content[at] = { type: 'reasoning', text: part.text, ...(opened.providerMetadata ? { providerMetadata: opened.providerMetadata } : {}), ...(opened.writer ? { writer: opened.writer } : {}) };
    });
  });
  return found;
}
