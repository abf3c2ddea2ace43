import type { ProviderMetadata } from '../../core/provider-metadata.js';
import { DANGEROUS_TOOL_USE, isRecord } from './asked-safeguard.js';

/**
 * `safeguard_results` as Anthropic writes it in `message_delta.delta` (a JSON reply's top level):
 * one entry per safeguard asked, its status `available` with a verdict per tool_use id, or
 * `unavailable` with a reason. The shape is what Claude Code 2.1.330 reads: a verdict is
 * `{type: "evaluated", outcome: "flagged" | "not_flagged", explanation?}` (`skipped` and per-call
 * `unavailable` exist too, and the router writes neither).
 */
export interface ToolUseVerdict {
  type: 'evaluated';
  outcome: 'flagged' | 'not_flagged';
  /** Shown by Claude Code under "Blocked by auto mode", and given to the model, for a flagged call. */
  explanation?: string;
}

export type SafeguardResult =
  | { type: typeof DANGEROUS_TOOL_USE; status: { type: 'available'; tool_uses: Record<string, ToolUseVerdict> } }
  | { type: typeof DANGEROUS_TOOL_USE; status: { type: 'unavailable'; reason: 'disabled' } };

/** A verdict for every tool call of the reply, by tool_use id (none: a reply without tool calls). */
export function verdictsFor(verdicts: ReadonlyArray<readonly [string, ToolUseVerdict]>): SafeguardResult[] {
  // fromEntries defines each id as an own key, whatever the id (`__proto__` included).
  return [{ type: DANGEROUS_TOOL_USE, status: { type: 'available', tool_uses: Object.fromEntries(verdicts) } }];
}

/**
 * No verdict for this reply. Of the ways to say so, this one makes Claude Code 2.1.330 ask the
 * user about each call that needs the check ("Auto mode can't check actions in this session, so
 * this one needs your approval"), default No. Seen by running it: a per-call `unavailable` (any
 * reason) or a status `unavailable` with reason `error` has it refuse the call unasked ("Not run ·
 * auto mode's check had no usable answer") and the model try again; `unsupported`, or no
 * `safeguard_results` at all, stops the turn with a dialog to stay in auto mode or leave it.
 */
export const NO_VERDICTS: readonly SafeguardResult[] = Object.freeze([{ type: DANGEROUS_TOOL_USE, status: { type: 'unavailable', reason: 'disabled' } }]);

/** Whether the upstream wrote its own `safeguard_results` (an Anthropic upstream, which runs the check itself). */
export function upstreamResults(providerMetadata: ProviderMetadata | undefined): boolean {
  const own = providerMetadata?.anthropic;
  return ['messageDeltaExtra', 'replyExtra'].some((key) => {
    const extra = own && Object.hasOwn(own, key) ? own[key] : undefined;
    return isRecord(extra) && Object.hasOwn(extra, 'safeguard_results');
  });
}

/**
 * The reply's end metadata with `results` where a Messages client's encoder writes
 * `message_delta.delta` fields (and a JSON reply's top-level ones): the anthropic namespace's
 * `messageDeltaExtra`, beside whatever else it holds.
 */
export function withSafeguardResults(providerMetadata: ProviderMetadata | undefined, results: readonly SafeguardResult[]): ProviderMetadata {
  const own = providerMetadata?.anthropic;
  const deltaExtra = own && Object.hasOwn(own, 'messageDeltaExtra') && isRecord(own.messageDeltaExtra) ? own.messageDeltaExtra : undefined;
  return { ...providerMetadata, anthropic: { ...own, messageDeltaExtra: { ...deltaExtra, safeguard_results: results } } };
}
