import type { Usage } from '../../core/reply.js';

interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** Anthropic reports cached input apart from `input_tokens`; canonical input counts all of it. */
export function usageFromAnthropic(raw: unknown, previous?: Usage): Usage {
  const usage = (raw ?? {}) as AnthropicUsage;
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const input = usage.input_tokens == null ? undefined : usage.input_tokens + cacheRead + cacheWrite;
  const result: Usage = {
    inputTokens: input ?? previous?.inputTokens ?? 0,
    outputTokens: usage.output_tokens ?? previous?.outputTokens ?? 0,
  };
  const cached = usage.input_tokens == null ? previous?.cachedInputTokens : cacheRead;
  if (cached) result.cachedInputTokens = cached;
  return result;
}
