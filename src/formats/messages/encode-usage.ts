import { inputNoCacheTokens, type Usage } from '../../core/reply.js';

/**
 * Anthropic counts input read from and written to the prompt cache apart from `input_tokens`;
 * the canonical count includes both. https://docs.anthropic.com/en/api/messages#response-usage
 */
export function anthropicUsage(usage: Usage) {
  return {
    input_tokens: inputNoCacheTokens(usage),
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: usage.cacheWriteInputTokens ?? 0,
    cache_read_input_tokens: usage.cachedInputTokens ?? 0,
  };
}
