/**
 * What an Anthropic upstream sends that the canonical form does not model, kept by the decoders in
 * the anthropic provider namespace so a Messages client gets it back in its native place.
 */

/** A content block the canonical stream has no form for (server tools), as the upstream sent it. */
export interface RawAnthropicBlock {
  block: Record<string, unknown>;
  deltas: unknown[];
}

/** `value`'s own keys outside `known`, or undefined when there are none. */
export function extraKeys(value: unknown, known: ReadonlySet<string>): Record<string, unknown> | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  // Read on every reply and stream event: nothing is built unless a key is unknown.
  let extra: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    if (!known.has(key)) (extra ??= {})[key] = (value as Record<string, unknown>)[key];
  }
  return extra;
}
