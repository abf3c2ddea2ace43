import type { Usage } from '../../core/reply.js';
import type { GeminiUsageMetadata } from './types.js';

/**
 * Gemini's usageMetadata as canonical usage (https://ai.google.dev/api/generate-content#UsageMetadata):
 * `promptTokenCount` already includes the cached part (`cachedContentTokenCount`), and tool-use
 * prompt tokens are billed as input too; `candidatesTokenCount` leaves out the thinking, which
 * `thoughtsTokenCount` reports apart, so output is their sum. Undefined when nothing was reported.
 */
export function usageFromGemini(usage: GeminiUsageMetadata | undefined): Usage | undefined {
  if (!usage || (usage.promptTokenCount === undefined && usage.candidatesTokenCount === undefined && usage.thoughtsTokenCount === undefined)) return undefined;
  const thoughts = usage.thoughtsTokenCount ?? 0;
  const result: Usage = {
    inputTokens: (usage.promptTokenCount ?? 0) + (usage.toolUsePromptTokenCount ?? 0),
    outputTokens: (usage.candidatesTokenCount ?? 0) + thoughts,
  };
  if (usage.cachedContentTokenCount) result.cachedInputTokens = usage.cachedContentTokenCount;
  if (thoughts) result.reasoningTokens = thoughts;
  result.raw = usage;
  return result;
}

/**
 * Canonical usage as Gemini's usageMetadata, for a Gemini client: the whole prompt (the cached
 * part within it, also given apart), the answer without its thinking, the thinking apart, and the
 * total; the inverse of usageFromGemini.
 */
export function usageMetadataOf(usage: Usage): GeminiUsageMetadata {
  const thoughts = Math.min(usage.reasoningTokens ?? 0, usage.outputTokens);
  return {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: usage.outputTokens - thoughts,
    totalTokenCount: usage.inputTokens + usage.outputTokens,
    ...(usage.cachedInputTokens ? { cachedContentTokenCount: usage.cachedInputTokens } : {}),
    ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
  };
}
