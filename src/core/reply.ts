import type { ReasoningPart, TextPart, ToolCallPart } from './request.js';

export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error';

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from the upstream's prompt cache (part of inputTokens). */
  cachedInputTokens?: number;
  /** Output tokens spent on reasoning (part of outputTokens). */
  reasoningTokens?: number;
}

export type ReplyPart = TextPart | ToolCallPart | ReasoningPart;

export interface Reply {
  /** Upstream response id, when it gave one. */
  id?: string;
  content: ReplyPart[];
  finishReason: FinishReason;
  usage: Usage;
}

export const totalTokens = (usage: Usage): number => usage.inputTokens + usage.outputTokens;

export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0 });
