import type { FinishReason } from '../../core/reply.js';

/** Chat Completions finish reasons (and the older `function_call`) in canonical terms. */
export function finishReasonFromChat(reason: unknown): FinishReason {
  switch (reason) {
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'content_filter':
      return 'content-filter';
    default:
      return 'stop';
  }
}
