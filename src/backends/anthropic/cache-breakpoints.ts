import type { AnthropicRequestBlock, AnthropicRequestBody } from './api.js';

/**
 * Cache breakpoints for a request whose client set none: a Chat or Responses client, whose own
 * providers cache without them (a Messages client's own breakpoints reach the upstream as sent).
 * Anthropic caches a prompt only up to a `cache_control` breakpoint, takes at most four, and looks
 * for an earlier entry only about 20 blocks back from each
 * (https://platform.claude.com/docs/en/build-with-claude/prompt-caching). So, after its
 * multi-turn advice:
 *
 * - the last tool and the last system block: the longest stable prefix, kept should anything in
 *   the conversation change;
 * - the last block of each of the last two user turns (tool results included): the newest writes
 *   this turn's prompt for the next one, and the one before falls on the very block where the
 *   previous turn wrote, so the read never depends on how many blocks its answer and tool results
 *   added since.
 *
 * Markers are not part of the cached text, so moving them on from turn to turn costs nothing.
 */
const EPHEMERAL = { type: 'ephemeral' } as const;

export function placeAnthropicBreakpoints(body: AnthropicRequestBody): void {
  if (hasBreakpoint(body)) return;
  const tool = body.tools?.at(-1);
  if (tool) (tool as { cache_control?: unknown }).cache_control = EPHEMERAL;
  const system = body.system?.at(-1);
  if (system) system.cache_control = EPHEMERAL;
  for (const turn of body.messages.filter((message) => message.role === 'user').slice(-2)) {
    const block = turn.content.findLast(canCarryBreakpoint);
    if (block) block.cache_control = EPHEMERAL;
  }
}

/** Thinking blocks cannot carry a breakpoint; an empty text block is never sent. */
const canCarryBreakpoint = (block: AnthropicRequestBlock): boolean => block.type !== 'thinking' && block.type !== 'redacted_thinking';

function hasBreakpoint(body: AnthropicRequestBody): boolean {
  const marked = (block: { cache_control?: unknown }): boolean => block.cache_control !== undefined && block.cache_control !== null;
  const inBlocks = (blocks: AnthropicRequestBlock[]): boolean => blocks.some((block) => marked(block) || (block.type === 'tool_result' && inBlocks(block.content)));
  return (body.tools ?? []).some((tool) => marked(tool as { cache_control?: unknown })) || (body.system ?? []).some(marked) || body.messages.some((message) => inBlocks(message.content));
}
