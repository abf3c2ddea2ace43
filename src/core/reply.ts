import type { ProviderMetadata } from './provider-metadata.js';
import type { ReasoningPart, TextPart, ToolCallPart } from './request.js';
import type { WebSearchPart } from './web-search.js';

/** Why the answer ended, in terms every client format can say. */
export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error';

/**
 * Why the answer ended: the unified reason plus the upstream's own word for it (`raw`, verbatim,
 * e.g. `pause_turn`, `MAX_TOKENS`) and the stop sequence it matched, when it says. A client of the
 * upstream's own format gets the raw reason back from the provider's namespace
 * (`providerMetadata.anthropic.stopReason`); every other client gets the nearest native value.
 */
export interface Finish {
  unified: FinishReason;
  raw?: string;
  stopSequence?: string;
  /** The model declined to answer (unified `content-filter`): what it said of why, for every format to say in its own form. */
  refusal?: Refusal;
  /**
   * Why the upstream's prompt cache was or was not reused, compared with an earlier response the
   * client named: OpenAI's `prompt_cache_diagnostics` (`{type: "cache_miss", reason,
   * cache_missed_tokens, comparison_reusable_tokens}`, `cache_hit`, …) as the upstream sent it
   * (https://developers.openai.com/api/docs/guides/prompt-caching/diagnostics).
   */
  promptCacheDiagnostics?: Record<string, unknown>;
}

/**
 * A refusal: Anthropic's `stop_reason: "refusal"` with its `stop_details`
 * (https://platform.claude.com/docs/en/build-with-claude/refusals-and-fallback): the policy area
 * (`cyber`, `bio`, …, or null) and a human-readable explanation, not stable, or null.
 */
export interface Refusal {
  category: string | null;
  explanation: string | null;
}

/**
 * Tokens used. `inputTokens` counts all input: the part read from the upstream's prompt cache
 * (`cachedInputTokens`), the part written to it (`cacheWriteInputTokens`) and the rest (no cache:
 * see inputNoCacheTokens). `outputTokens` counts all output: reasoning (`reasoningTokens`) and text.
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens read from the upstream's prompt cache (part of inputTokens). */
  cachedInputTokens?: number;
  /** Input tokens written to the upstream's prompt cache (part of inputTokens). */
  cacheWriteInputTokens?: number;
  /** Of those, the ones written to a one-hour cache (Anthropic's `ttl: "1h"`), which cost more than the 5-minute default. */
  cacheWrite1hInputTokens?: number;
  /** Output tokens spent on reasoning (part of outputTokens). */
  reasoningTokens?: number;
  /** The upstream's own usage object, as it reported it. */
  raw?: unknown;
}

export const inputNoCacheTokens = (usage: Usage): number =>
  Math.max(0, usage.inputTokens - (usage.cachedInputTokens ?? 0) - (usage.cacheWriteInputTokens ?? 0));

export type ReplyPart = TextPart | ToolCallPart | ReasoningPart | WebSearchPart;

export interface Reply {
  /** Upstream response id, when it gave one. */
  id?: string;
  content: ReplyPart[];
  /** The unified reason (see `finish` for the upstream's own). */
  finishReason: FinishReason;
  /** The upstream's raw reason and matched stop sequence, when the backend knows them. */
  finish?: Finish;
  usage: Usage;
  /** Reply-level provider data (e.g. `anthropic.stopReason`), read only by that provider's format. */
  providerMetadata?: ProviderMetadata;
  /** What the upstream returned that the client's format cannot carry; surfaced in svc_meta.warnings. */
  warnings?: string[];
}
