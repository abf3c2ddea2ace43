import type { FinishReason } from '../../core/reply.js';

const STOP_REASON: Record<FinishReason, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  'tool-calls': 'tool_use',
  'content-filter': 'refusal',
  error: 'end_turn',
};

export const anthropicStopReason = (reason: FinishReason): string => STOP_REASON[reason];
