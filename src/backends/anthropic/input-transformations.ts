/**
 * Anthropic drops a thinking block the requested model cannot read (another model wrote it) before
 * the model sees it, and with the `thinking-binding-controls-2026-08-01` beta says so in a
 * top-level `input_transformations` array (`thinking_dropped` entries, reason
 * `model_binding_mismatch`), final in message_start when streaming
 * (https://platform.claude.com/docs/en/models/fable-5-1/whats-new-fable-5-1, "Earlier models can't
 * read Claude Fable 5.1 thinking blocks"). A Messages client's own thinking blocks carry
 * Anthropic's signature, which says which model wrote them to Anthropic alone: the router asks for
 * this report on such a forwarded call and names what it says, as it names what it leaves out itself.
 */
export const BINDING_BETA = 'thinking-binding-controls-2026-08-01';

/** What an `input_transformations` value reports dropped for another model's: how many, and the warning; undefined when none. */
export function droppedThinking(transformations: unknown, model: unknown): { blocks: number; warning: string } | undefined {
  if (!Array.isArray(transformations)) return undefined;
  const paths = transformations.flatMap((entry) =>
    entry && typeof entry === 'object' && (entry as Record<string, unknown>).type === 'thinking_dropped' && (entry as Record<string, unknown>).reason === 'model_binding_mismatch'
      ? [String((entry as Record<string, unknown>).path)]
      : [],
  );
  if (!paths.length) return undefined;
  const who = typeof model === 'string' && model ? model : 'the model';
  const blocks = paths.length === 1 ? '1 reasoning block' : `${paths.length} reasoning blocks`;
  return { blocks: paths.length, warning: `reasoning from another model: ${who} does not read ${blocks} another model wrote (${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ', …' : ''}); Anthropic left ${paths.length === 1 ? 'it' : 'them'} out.` };
}
