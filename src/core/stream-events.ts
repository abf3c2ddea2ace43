import type { RouterError } from './errors.js';
import type { ProviderMetadata } from './provider-metadata.js';
import type { Finish, FinishReason, Usage } from './reply.js';
import type { Citation, WebSearchPart } from './web-search.js';

/**
 * The canonical stream: backends turn upstream bytes into these, client encoders turn them into
 * their own event grammar. Blocks open and close in order; at most one text or reasoning block is
 * open at a time, while tool calls are identified by id so parallel calls may interleave.
 *
 * Provider data for a block (a signature, an encrypted payload, a Gemini thoughtSignature) rides
 * on the block's start or end event, never on its deltas: deltas are most of a stream and stay
 * as small as they are. A part folded from the events gets the start's and end's metadata merged.
 * Citations likewise ride on the text block's end.
 */
export type StreamEvent =
  | { type: 'start'; id?: string; usage?: Usage; providerMetadata?: ProviderMetadata }
  | { type: 'text-start'; providerMetadata?: ProviderMetadata }
  | { type: 'text-delta'; text: string }
  | { type: 'text-end'; providerMetadata?: ProviderMetadata; citations?: Citation[] }
  | { type: 'reasoning-start'; providerMetadata?: ProviderMetadata }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'reasoning-end'; providerMetadata?: ProviderMetadata }
  | { type: 'tool-call-start'; id: string; name: string; providerMetadata?: ProviderMetadata }
  | { type: 'tool-call-delta'; id: string; argumentsDelta: string }
  | { type: 'tool-call-end'; id: string; providerMetadata?: ProviderMetadata }
  /** A web search the upstream ran, whole (query and results), between blocks: never while a text or reasoning block is open. */
  | { type: 'web-search'; part: WebSearchPart }
  | {
      type: 'finish';
      /** The unified reason. */
      reason: FinishReason;
      /** The upstream's raw reason and matched stop sequence, when known. */
      finish?: Finish;
      usage: Usage;
      providerMetadata?: ProviderMetadata;
      /** What the upstream sent that the client's format cannot carry; surfaced in svc_meta.warnings. */
      warnings?: string[];
    }
  | { type: 'error'; error: RouterError };
