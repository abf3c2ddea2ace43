import type { Usage } from '../../core/reply.js';

interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  /** The writes by lifetime: https://platform.claude.com/docs/en/build-with-claude/prompt-caching#1-hour-cache-duration */
  cache_creation?: { ephemeral_5m_input_tokens?: number | null; ephemeral_1h_input_tokens?: number | null } | null;
}

/**
 * Anthropic reports input read from and written to the prompt cache apart from `input_tokens`;
 * canonical input counts all three, and keeps the two cache parts so a Messages client gets them
 * back exactly (https://docs.anthropic.com/en/api/messages#response-usage). A later report
 * (message_delta) completes an earlier one: what it leaves out stays as it was.
 */
export function usageFromAnthropic(raw: unknown, previous?: Usage): Usage {
  const usage = (raw ?? {}) as AnthropicUsage;
  const cacheRead = usage.cache_read_input_tokens ?? (usage.input_tokens == null ? previous?.cachedInputTokens : undefined) ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? (usage.input_tokens == null ? previous?.cacheWriteInputTokens : undefined) ?? 0;
  const input = usage.input_tokens == null ? undefined : usage.input_tokens + cacheRead + cacheWrite;
  const result: Usage = {
    inputTokens: input ?? previous?.inputTokens ?? 0,
    outputTokens: usage.output_tokens ?? previous?.outputTokens ?? 0,
  };
  if (cacheRead) result.cachedInputTokens = cacheRead;
  if (cacheWrite) result.cacheWriteInputTokens = cacheWrite;
  // The one-hour part is priced apart (2x input rather than 1.25x); a report without the breakdown keeps the earlier one.
  const cacheWrite1h = usage.cache_creation?.ephemeral_1h_input_tokens ?? (usage.cache_creation == null ? previous?.cacheWrite1hInputTokens : undefined) ?? 0;
  if (cacheWrite && cacheWrite1h) result.cacheWrite1hInputTokens = Math.min(cacheWrite, cacheWrite1h);
  if (raw && typeof raw === 'object') result.raw = previous?.raw && typeof previous.raw === 'object' ? { ...previous.raw, ...raw } : raw;
  return result;
}
