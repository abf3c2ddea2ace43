import { metadataOf, type ProviderMetadata } from '../../core/provider-metadata.js';
import type { FinishReason, Refusal } from '../../core/reply.js';

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
export function anthropicStop(reason: FinishReason, providerMetadata: ProviderMetadata | undefined, stopSequence?: string, refusal?: Refusal): AnthropicStop {
  const own = metadataOf(providerMetadata, 'anthropic');
  if (typeof own?.stopReason === 'string') {
    return withDetails({ stop_reason: own.stopReason, stop_sequence: typeof own.stopSequence === 'string' ? own.stopSequence : null }, refusal);
  }
  if (stopSequence !== undefined && reason === 'stop') return { stop_reason: 'stop_sequence', stop_sequence: stopSequence };
  return withDetails({ stop_reason: STOP_REASON[reason], stop_sequence: null }, refusal);
}

type AnthropicStop = { stop_reason: string; stop_sequence: string | null; stop_details?: { type: 'refusal'; category: string | null; explanation: string | null } };

/**
 * A refusal's `stop_details` (https://platform.claude.com/docs/en/build-with-claude/refusals-and-fallback):
 * its category and explanation, null where the upstream gave none. An Anthropic upstream's own,
 * relayed with its unread fields, stands over this.
 */
function withDetails(stop: AnthropicStop, refusal: Refusal | undefined): AnthropicStop {
  if (stop.stop_reason !== 'refusal') return stop;
  return { ...stop, stop_details: { type: 'refusal', category: refusal?.category ?? null, explanation: refusal?.explanation ?? null } };
}
