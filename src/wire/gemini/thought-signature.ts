import { metadataString, type ProviderMetadata } from '../../core/provider-metadata.js';

/**
 * A Gemini thoughtSignature travels in the part's own provider namespace,
 * `providerMetadata.gemini.thoughtSignature`, on text, reasoning and tool-call parts alike: only
 * Gemini's translators (its backend and its client format) read it, and it goes back on the part
 * it came on.
 * https://ai.google.dev/gemini-api/docs/thought-signatures
 */
export const signatureMetadata = (signature: string | undefined): { providerMetadata: ProviderMetadata } | Record<string, never> =>
  signature ? { providerMetadata: { gemini: { thoughtSignature: signature } } } : {};

export const signatureOf = (metadata: ProviderMetadata | undefined): string | undefined => metadataString(metadata, 'gemini', 'thoughtSignature');

/**
 * Google's documented stand-in for a function call Gemini did not make itself (a conversation
 * begun on another model), which Gemini 3 would otherwise refuse for want of a signature:
 * https://ai.google.dev/gemini-api/docs/thought-signatures#faqs
 */
export const SKIP_SIGNATURE_VALIDATION = 'skip_thought_signature_validator';
