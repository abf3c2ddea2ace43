import { createHash } from 'node:crypto';

/** Converse's ToolUseBlock id: 1–64 of letters, digits, `_` and `-` (API_runtime_ToolUseBlock). */
const TOOL_USE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The id a call (and its result) carries on Converse. Bedrock's own ids and most others already
 * fit and go as they are, so a conversation keeps its ids; any other is replaced by a digest of
 * it, the same for the call and its result, so the pair still matches.
 */
export function converseToolUseId(id: string): string {
  return TOOL_USE_ID.test(id) ? id : `tooluse_${createHash('sha256').update(id).digest('base64url').slice(0, 32)}`;
}
