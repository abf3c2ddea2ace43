import type { CanonicalRequest, TextPart } from '../../core/request.js';

/**
 * Claude Code opens its system prompt with an attribution line addressed to Anthropic
 * (`x-anthropic-billing-header: cc_version=2.1.337.be9; cc_entrypoint=sdk-cli;`). Its suffix is
 * derived from the session's first prompt, so it differs from one session to the next while the
 * system prompt and tools after it do not. An upstream that caches by prefix across sessions
 * (OpenAI's automatic caching, Gemini's implicit caching) would then share nothing between
 * sessions. So the line travels beside the system prompt, for Anthropic's encoder alone to put back
 * first, as sent; every other upstream's prompt starts with the system prompt itself.
 */
const ATTRIBUTION = /^x-anthropic-billing-header:/;

/** Moves a leading attribution block (plain, no cache breakpoint) out of `system` into the request's Anthropic metadata. */
export function setAsideAttribution(request: CanonicalRequest): void {
  const first: TextPart | undefined = request.system[0];
  if (!first || first.providerMetadata || !ATTRIBUTION.test(first.text)) return;
  request.system = request.system.slice(1);
  request.providerMetadata = { ...request.providerMetadata, anthropic: { ...request.providerMetadata?.anthropic, systemAttribution: first.text } };
}
