import { metadataOf, type ProviderMetadata } from '../../core/provider-metadata.js';

/**
 * What an Anthropic upstream sent that the canonical form does not model, kept in the anthropic
 * namespace by its decoders and written back here in its native place: content blocks with no
 * canonical form (`server_tool_use`, `web_search_tool_result`, …) with their stream deltas, the
 * fields of message_delta and of its `delta` the decoder does not read (`safeguard_results`), and
 * the reply's own unread fields. Only an Anthropic upstream fills these, so a Messages client
 * served by any other gets none of them.
 */
export interface RelayedBlock {
  block: Record<string, unknown>;
  deltas: unknown[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The blocks held under `key` (`precedingBlocks` on a part or start event, `trailingBlocks` on the reply or finish). */
export function rawBlocksOf(providerMetadata: ProviderMetadata | undefined, key: 'precedingBlocks' | 'trailingBlocks'): RelayedBlock[] {
  const held = metadataOf(providerMetadata, 'anthropic')?.[key];
  if (!Array.isArray(held)) return [];
  return held.filter((entry): entry is RelayedBlock => isRecord(entry) && isRecord(entry.block) && Array.isArray(entry.deltas));
}

/** Blocks a non-streamed Anthropic reply held, each with the index of the part it stood before. */
export function placedBlocksOf(providerMetadata: ProviderMetadata | undefined): Array<RelayedBlock & { at: number }> {
  const held = metadataOf(providerMetadata, 'anthropic')?.placedBlocks;
  if (!Array.isArray(held)) return [];
  return held.filter((entry): entry is RelayedBlock & { at: number } => isRecord(entry) && isRecord(entry.block) && Array.isArray(entry.deltas) && typeof entry.at === 'number');
}

/** A relayed block as one reply block: a streamed tool input's JSON fragments folded into `input`. */
export function foldedBlock({ block, deltas }: RelayedBlock): Record<string, unknown> {
  const fragments = deltas.filter(isRecord).filter((d) => d.type === 'input_json_delta' && typeof d.partial_json === 'string');
  if (!fragments.length) return block;
  const json = fragments.map((d) => d.partial_json as string).join('');
  if (json.trim() === '') return block;
  try {
    return { ...block, input: JSON.parse(json) };
  } catch {
    return block;
  }
}

/** The upstream's own unread fields: message_start's message's, message_delta's, its delta's, and the reply body's. */
export function ownReplyExtras(providerMetadata: ProviderMetadata | undefined): {
  messageStartExtra?: Record<string, unknown>;
  messageDeltaExtra?: Record<string, unknown>;
  messageDeltaEventExtra?: Record<string, unknown>;
  replyExtra?: Record<string, unknown>;
} {
  const own = metadataOf(providerMetadata, 'anthropic');
  const pick = (key: string) => (isRecord(own?.[key]) ? (own[key] as Record<string, unknown>) : undefined);
  return { messageStartExtra: pick('messageStartExtra'), messageDeltaExtra: pick('messageDeltaExtra'), messageDeltaEventExtra: pick('messageDeltaEventExtra'), replyExtra: pick('replyExtra') };
}

/** The warnings less those about blocks this client gets back whole. */
export function withoutRelayed(warnings: string[] | undefined, providerMetadata: ProviderMetadata | undefined): string[] | undefined {
  const relayed = metadataOf(providerMetadata, 'anthropic')?.relayedBlockWarnings;
  if (!warnings || !Array.isArray(relayed)) return warnings;
  const left = warnings.filter((warning) => !relayed.includes(warning));
  return left.length ? left : undefined;
}
