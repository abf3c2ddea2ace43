import type { FinishReason } from '../../core/reply.js';

const CHAT_FINISH: Record<FinishReason, string> = {
  stop: 'stop',
  length: 'length',
  'tool-calls': 'tool_calls',
  'content-filter': 'content_filter',
  error: 'stop',
};

export const chatFinishReason = (reason: FinishReason): string => CHAT_FINISH[reason];
