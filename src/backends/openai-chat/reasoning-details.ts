import type { ProviderMetadata } from '../../core/provider-metadata.js';

/**
 * OpenRouter's `reasoning_details`: the model's reasoning as blocks (`reasoning.text` with its
 * signature, `reasoning.summary`, `reasoning.encrypted`), which the next request of a tool-calling
 * turn must carry back unchanged on the assistant message for the model to go on reasoning
 * (https://openrouter.ai/docs/use-cases/reasoning-tokens#preserving-reasoning-blocks). They are kept
 * whole under the `openrouter` namespace of the reasoning part; the openrouter profile sends them back.
 */
export type ReasoningDetail = Record<string, unknown>;

export const REASONING_DETAILS_KEY = 'reasoningDetails';

/** The detail objects of a `reasoning_details` value; anything else in it is not a detail. */
export function readReasoningDetails(value: unknown): ReasoningDetail[] {
  if (!Array.isArray(value)) return [];
  return value.filter((detail): detail is ReasoningDetail => typeof detail === 'object' && detail !== null && !Array.isArray(detail));
}

export const reasoningDetailsMetadata = (details: readonly ReasoningDetail[]): ProviderMetadata | undefined =>
  details.length ? { openrouter: { [REASONING_DETAILS_KEY]: details } } : undefined;

/** The pieces of a streamed detail that arrive in parts, joined as they come. */
const JOINED = ['text', 'summary', 'data'] as const;

/**
 * Streamed details arrive in pieces, each naming the block it belongs to by `index` (and type):
 * pieces of one block are joined, its other fields (signature, id, format) taken as they come.
 */
export class ReasoningDetailsJoiner {
  private readonly blocks: ReasoningDetail[] = [];

  add(pieces: readonly ReasoningDetail[]): void {
    for (const piece of pieces) {
      const index = typeof piece.index === 'number' ? piece.index : undefined;
      const block = index === undefined ? undefined : this.blocks.find((held) => held.index === index && held.type === piece.type);
      if (!block) {
        this.blocks.push({ ...piece });
        continue;
      }
      for (const [key, value] of Object.entries(piece)) {
        if ((JOINED as readonly string[]).includes(key) && typeof value === 'string' && typeof block[key] === 'string') block[key] = (block[key] as string) + value;
        else if (value !== null && value !== undefined) block[key] = value;
      }
    }
  }

  get size(): number {
    return this.blocks.length;
  }

  /** The blocks so far, and a fresh start for the next reasoning block. */
  take(): ReasoningDetail[] {
    return this.blocks.splice(0);
  }
}
