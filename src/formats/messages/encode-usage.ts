import type { Usage } from '../../core/reply.js';

/** Anthropic counts cached input apart from `input_tokens`; the canonical count includes it. */
export function anthropicUsage(usage: Usage) {
  const cached = usage.cachedInputTokens ?? 0;
  return {
    input_tokens: usage.inputTokens - cached,
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  };
}
