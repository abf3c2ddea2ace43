import { metadataOf, type ProviderMetadata } from '../../core/provider-metadata.js';
import type { ForeignReasoningBlock, Message } from '../../core/request.js';
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
 * a 400 naming its block. Returns whether any was found (the body forwarded to an Anthropic upstream
 * has such blocks rewritten: foreignThinkingBlocks).
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

/**
 * Where the client's own body holds thinking blocks whose signature this router sealed (reasoning
 * another upstream made): their place, text and writer. The body is still forwarded to an Anthropic
 * upstream, with these blocks rewritten (src/backends/anthropic/model-rules.ts), rather than
 * re-encoded whole: every other block goes as the client sent it, so Claude's thinking blocks before
 * and after stay bound to the conversation Anthropic saw.
 */
export function foreignThinkingBlocks(rawMessages: unknown, secret: string | undefined): ForeignReasoningBlock[] {
  const found: ForeignReasoningBlock[] = [];
  if (!Array.isArray(rawMessages)) return found;
  rawMessages.forEach((message: unknown, index) => {
    const content = (message as { content?: unknown } | null)?.content;
    if (!Array.isArray(content)) return;
    content.forEach((block: unknown, at) => {
      const { type, signature, thinking } = (block ?? {}) as { type?: unknown; signature?: unknown; thinking?: unknown };
      // A sealed signature, or none at all (reasoning an upstream gave only as text): never Anthropic's to read.
      if (type !== 'thinking' || (signature !== '' && !isSealedByUs(signature))) return;
      // Already opened once by the decoder, which refused an altered seal: this cannot fail.
      const writer = secret && signature !== '' ? unsealReasoning(signature as string, secret, `messages.${index}.content.${at}.signature`).writer : undefined;
      found.push({ message: index, block: at, text: typeof thinking === 'string' ? thinking : '', ...(writer ? { writer } : {}) });
    });
  });
  return found;
}
