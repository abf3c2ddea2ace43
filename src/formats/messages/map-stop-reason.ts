import { metadataOf, type ProviderMetadata } from '../../core/provider-metadata.js';
import type { FinishReason } from '../../core/reply.js';

const STOP_REASON: Record<FinishReason, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  'tool-calls': 'tool_use',
  'content-filter': 'refusal',
  error: 'end_turn',
};

/**
 * stop_reason and stop_sequence for a Messages client: exactly what an Anthropic upstream said
 * (`pause_turn`, `stop_sequence` with the sequence it matched, `refusal`), else the nearest value
 * for the unified reason (https://docs.anthropic.com/en/api/handling-stop-reasons). A stop
 * sequence another upstream reports is kept too.
 */
export function anthropicStop(reason: FinishReason, providerMetadata: ProviderMetadata | undefined, stopSequence?: string): { stop_reason: string; stop_sequence: string | null } {
  const own = metadataOf(providerMetadata, 'anthropic');
  if (typeof own?.stopReason === 'string') {
    return { stop_reason: own.stopReason, stop_sequence: typeof own.stopSequence === 'string' ? own.stopSequence : null };
  }
  if (stopSequence !== undefined && reason === 'stop') return { stop_reason: 'stop_sequence', stop_sequence: stopSequence };
  return { stop_reason: STOP_REASON[reason], stop_sequence: null };
}
