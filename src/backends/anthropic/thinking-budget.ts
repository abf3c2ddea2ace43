import { metadataOf } from '../../core/provider-metadata.js';
import type { CanonicalRequest, ReasoningEffort } from '../../core/request.js';

const MIN_BUDGET = 1024;
const BUDGET_BY_EFFORT: Record<ReasoningEffort, number> = { minimal: 1024, low: 2048, medium: 8192, high: 16_384 };

/**
 * The thinking budget to send, or undefined when thinking must stay off: not asked for, no room
 * under the output cap for the 1,024-token minimum, a forced tool choice (which Anthropic refuses
 * with thinking), or a replayed tool-use turn whose signed thinking the client did not keep
 * (Anthropic refuses that too, so the turn goes without thinking rather than failing).
 */
export function thinkingBudget(request: CanonicalRequest, maxTokens: number): number | undefined {
  if (request.reasoningBudget === undefined && request.reasoningEffort === undefined) return undefined;
  if (request.toolChoice === 'required' || typeof request.toolChoice === 'object') return undefined;
  const lastAssistant = [...request.messages].reverse().find((message) => message.role === 'assistant');
  if (lastAssistant?.content.some((part) => part.type === 'tool-call') && !lastAssistant.content.some((part) => part.type === 'reasoning' && isReplayable(metadataOf(part.providerMetadata, 'anthropic')))) {
    return undefined;
  }
  const wanted = request.reasoningBudget ?? BUDGET_BY_EFFORT[request.reasoningEffort ?? 'medium'];
  const budget = Math.min(wanted, maxTokens - 1);
  return budget >= MIN_BUDGET ? budget : undefined;
}

/** Anthropic takes back only thinking it signed, or redacted thinking it sealed. */
const isReplayable = (anthropic: Record<string, unknown> | undefined): boolean =>
  typeof anthropic?.signature === 'string' || typeof anthropic?.redactedData === 'string';
