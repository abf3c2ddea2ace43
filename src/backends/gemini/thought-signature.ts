import { metadataString, type ProviderMetadata } from '../../core/provider-metadata.js';

/**
 * A Gemini thoughtSignature travels in the part's own provider namespace,
 * `providerMetadata.gemini.thoughtSignature`, on text, reasoning and tool-call parts alike: only
 * this backend reads it, and it goes back on the part it came on.
 * https://ai.google.dev/gemini-api/docs/thought-signatures
 */
export const signatureMetadata = (signature: string | undefined): { providerMetadata: ProviderMetadata } | Record<string, never> =>
  signature ? { providerMetadata: { gemini: { thoughtSignature: signature } } } : {};

export const signatureOf = (metadata: ProviderMetadata | undefined): string | undefined => metadataString(metadata, 'gemini', 'thoughtSignature');

/** What the client is told when Gemini answered with a part its format cannot carry. */
export const droppedPartWarning = (kind: string): string => `Gemini's answer held ${kind}, which the client's format cannot carry; it was left out.`;
