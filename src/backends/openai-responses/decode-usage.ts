import type { FinishReason, Usage } from '../../core/reply.js';

interface ResponsesUsage {
  input_tokens?: number;
  output_tokens?: number;
  input_tokens_details?: { cached_tokens?: number } | null;
  output_tokens_details?: { reasoning_tokens?: number } | null;
}

export function usageFromResponses(raw: unknown): Usage {
  const usage = (raw ?? {}) as ResponsesUsage;
  const result: Usage = { inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0 };
  if (usage.input_tokens_details?.cached_tokens) result.cachedInputTokens = usage.input_tokens_details.cached_tokens;
  if (usage.output_tokens_details?.reasoning_tokens) result.reasoningTokens = usage.output_tokens_details.reasoning_tokens;
  return result;
}

/** A finished response's status (and any function calls in it) as a canonical finish reason. */
export function finishReasonFromResponse(status: unknown, hasToolCalls: boolean): FinishReason {
  if (status === 'incomplete') return 'length';
  return hasToolCalls ? 'tool-calls' : 'stop';
}
