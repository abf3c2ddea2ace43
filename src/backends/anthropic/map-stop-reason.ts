import type { Finish, FinishReason, Refusal } from '../../core/reply.js';
import type { ProviderMetadata } from '../../core/provider-metadata.js';

/**
 * Anthropic's stop_reason in canonical terms (https://docs.anthropic.com/en/api/handling-stop-reasons):
 * `pause_turn` (a server tool loop paused) and `stop_sequence` end the turn like `end_turn`.
 */
function finishReasonFromAnthropic(reason: unknown): FinishReason {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool-calls';
    case 'refusal':
      return 'content-filter';
    default:
      return 'stop';
  }
}

/**
 * The unified reason, the raw one and the matched stop sequence; the raw pair also in the anthropic
 * namespace. A refusal carries its `stop_details` category and explanation, which every client
 * format says in its own form.
 */
export function anthropicFinish(reason: unknown, stopSequence: unknown, stopDetails?: unknown): { finish: Finish; providerMetadata?: ProviderMetadata } {
  const unified = finishReasonFromAnthropic(reason);
  if (typeof reason !== 'string') return { finish: { unified } };
  const sequence = typeof stopSequence === 'string' ? stopSequence : undefined;
  const refusal = reason === 'refusal' ? refusalOf(stopDetails) : undefined;
  return {
    finish: { unified, raw: reason, ...(sequence !== undefined ? { stopSequence: sequence } : {}), ...(refusal ? { refusal } : {}) },
    providerMetadata: { anthropic: { stopReason: reason, ...(sequence !== undefined ? { stopSequence: sequence } : {}) } },
  };
}

/** `stop_details` of a refusal: its category and explanation, each null when absent. */
function refusalOf(details: unknown): Refusal {
  const record = details !== null && typeof details === 'object' ? (details as Record<string, unknown>) : {};
  return { category: typeof record.category === 'string' ? record.category : null, explanation: typeof record.explanation === 'string' ? record.explanation : null };
}
