import { metadataOf } from '../../core/provider-metadata.js';
import type { CanonicalRequest, Message, ReasoningEffort } from '../../core/request.js';

const MIN_BUDGET = 1024;
/** A budget for each level, for the models that take a budget and no effort; `none` asks for no thinking. */
const BUDGET_BY_EFFORT: Record<ReasoningEffort, number> = { none: 0, minimal: 1024, low: 2048, medium: 8192, high: 16_384, xhigh: 24_576, max: 32_768 };

/**
 * The thinking budget to send, or undefined when thinking must stay off: not asked for, no room
 * under the output cap for the 1,024-token minimum, a forced tool choice (which Anthropic refuses
 * with thinking), or a conversation that replays a tool-use turn without the signed thinking it
 * began with (a client that cannot keep it, as a Chat client cannot).
 *
 * Anthropic refuses such a turn as the last assistant turn while thinking is on. Thinking then
 * stays off for the rest of the conversation, not only until the tool loop ends: Anthropic caches
 * the messages under the thinking setting, so switching it back on and off again would make every
 * later turn write the whole conversation anew
 * (https://platform.claude.com/docs/en/build-with-claude/prompt-caching#what-invalidates-the-cache).
 */
export function thinkingBudget(request: CanonicalRequest, maxTokens: number): number | undefined {
  if (!thinkingAllowed(request)) return undefined;
  const wanted = request.reasoningBudget ?? BUDGET_BY_EFFORT[request.reasoningEffort ?? 'medium'];
  const budget = Math.min(wanted, maxTokens - 1);
  return budget >= MIN_BUDGET ? budget : undefined;
}

/** Whether thinking may be on at all (asked for, and none of the reasons above keeps it off); adaptive thinking obeys the same rules. */
export function thinkingAllowed(request: CanonicalRequest): boolean {
  if (request.reasoningBudget === undefined && (request.reasoningEffort === undefined || request.reasoningEffort === 'none')) return false;
  if (request.toolChoice === 'required' || typeof request.toolChoice === 'object') return false;
  return !request.messages.some(isToolTurnWithoutThinking);
}

const isToolTurnWithoutThinking = (message: Message): boolean =>
  message.role === 'assistant' &&
  message.content.some((part) => part.type === 'tool-call') &&
  !message.content.some((part) => part.type === 'reasoning' && isReplayable(metadataOf(part.providerMetadata, 'anthropic')));

/** Anthropic takes back only thinking it signed, or redacted thinking it sealed. */
const isReplayable = (anthropic: Record<string, unknown> | undefined): boolean =>
  typeof anthropic?.signature === 'string' || typeof anthropic?.redactedData === 'string';
