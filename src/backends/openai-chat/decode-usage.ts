import type { Usage } from '../../core/reply.js';

interface ChatUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
}

/** https://platform.openai.com/docs/api-reference/chat/object#chat/object-usage */
export function usageFromChat(raw: unknown): Usage | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const usage = raw as ChatUsage;
  const result: Usage = { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0 };
  const cached = usage.prompt_tokens_details?.cached_tokens;
  if (cached) result.cachedInputTokens = cached;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  if (reasoning) result.reasoningTokens = reasoning;
  result.raw = raw;
  return result;
}
