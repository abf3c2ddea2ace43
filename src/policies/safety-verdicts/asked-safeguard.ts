import type { CanonicalRequest } from '../../core/request.js';

/**
 * Claude Code's auto mode asks for a verdict on every tool call of the reply with one entry of the
 * Messages request's `safeguards` list: `{type: "dangerous_tool_use", classifier_context: {…}}`
 * (seen in its requests since 2.1.278; the `dangerous-tool-use-2026-09-03` beta). The context says
 * where the agent works and under which rules: permission mode, platform, working and home
 * directories, trusted directories, the user's permission rules and auto mode lists, git state.
 */
export const DANGEROUS_TOOL_USE = 'dangerous_tool_use';

/** Entries of `safeguards` looked at: the list Claude Code sends has one. */
const MAX_ENTRIES = 16;

export interface AskedSafeguard {
  /** The `classifier_context` as sent (an empty object when it sent none). */
  context: Readonly<Record<string, unknown>>;
}

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The request's `dangerous_tool_use` safeguard, when a Messages client asked for one. */
export function askedSafeguard(request: CanonicalRequest): AskedSafeguard | undefined {
  const body = request.forwardBody?.format === 'messages' ? request.forwardBody.body : undefined;
  const list = body && Object.hasOwn(body, 'safeguards') ? body.safeguards : undefined;
  if (!Array.isArray(list)) return undefined;
  for (const entry of list.slice(0, MAX_ENTRIES)) {
    if (!isRecord(entry) || entry.type !== DANGEROUS_TOOL_USE) continue;
    const context = Object.hasOwn(entry, 'classifier_context') ? entry.classifier_context : undefined;
    return { context: isRecord(context) ? context : {} };
  }
  return undefined;
}
