import type { Finish, FinishReason, Usage } from '../../core/reply.js';
import type { ConverseUsage } from './converse-api.js';

/**
 * Converse's stopReason in canonical terms
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax):
 * a guardrail or content filter that stopped the answer is a content filter; the raw reason is kept.
 */
export function converseFinish(reason: unknown): Finish {
  const unified = unifiedReason(reason);
  return typeof reason === 'string' ? { unified, raw: reason } : { unified };
}

function unifiedReason(reason: unknown): FinishReason {
  switch (reason) {
    case 'tool_use':
      return 'tool-calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'content_filtered':
    case 'guardrail_intervened':
      return 'content-filter';
    default:
      return 'stop';
  }
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0);

/**
 * TokenUsage as canonical usage. Bedrock counts cache reads and writes apart from `inputTokens`
 * (as Anthropic does; `totalTokens` adds them up), so the canonical input is their sum.
 */
export function usageFromConverse(usage: ConverseUsage | undefined): Usage | undefined {
  if (!usage || typeof usage !== 'object') return undefined;
  const read = count(usage.cacheReadInputTokens);
  const write = count(usage.cacheWriteInputTokens);
  return {
    inputTokens: count(usage.inputTokens) + read + write,
    outputTokens: count(usage.outputTokens),
    ...(read ? { cachedInputTokens: read } : {}),
    ...(write ? { cacheWriteInputTokens: write } : {}),
    raw: usage,
  };
}
