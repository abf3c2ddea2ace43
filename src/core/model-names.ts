/**
 * The model names the router answers to, shared by every layer that reads one: routing resolves
 * them, config validation and the CLI refuse a route under any other, and a client format names
 * the ids it serves beyond the SKUs.
 */

/** The service's own model names, always listed and always routable (offline when unconfigured). */
export const SKUS = ['svc.intelligent-pro', 'svc.intelligent-basic', 'svc.intelligent-lite'] as const;

/** Model names a client format serves beyond the svc SKUs (e.g. claude-* ids on messages). */
export interface ModelIds {
  matches(model: string): boolean;
  /** Named in the unknown-model error: "a claude-* model id". */
  readonly description: string;
  /** A route pattern for the family, for messages that show one: `claude-*`. */
  readonly pattern: string;
}

/**
 * The provider model ids a client format serves beyond the SKUs, one family per format that has
 * them: Anthropic's (and the spec's `vendor-*` placeholder) on messages, Google's on gemini. The
 * agents of those formats send them and switch between them themselves (Claude Code's
 * `claude-haiku-*` side requests, Gemini CLI's `gemini-2.5-flash` fallback); routes may name them.
 */
export const MODEL_ID_FAMILIES = {
  anthropic: { matches: (model: string) => /^(claude|vendor)-/i.test(model), description: 'a claude-* model id', pattern: 'claude-*' },
  gemini: { matches: (model: string) => /^gemini-/i.test(model), description: 'a gemini-* model id', pattern: 'gemini-*' },
} as const satisfies Record<string, ModelIds>;

/** Anthropic model ids, plus the spec's `vendor-*` placeholder, accepted on /v1/messages. */
export const isAnthropicModelId = MODEL_ID_FAMILIES.anthropic.matches;

export const isSkuName = (model: string): boolean => model.startsWith('svc.');

const FAMILIES: readonly ModelIds[] = Object.values(MODEL_ID_FAMILIES);

/** Model names a route may be set for: an svc.* name, a family's id (claude-*, gemini-*), or a pattern of either. */
export function isRoutableModelName(model: string): boolean {
  return (isSkuName(model) || FAMILIES.some((family) => family.matches(model))) && !/^gpt-/i.test(model) && /^[\w.*:-]+$/.test(model);
}

/** What a route may be named, for the message that refuses another name: "a claude-* or gemini-* id or pattern (e.g. 'claude-*')". */
export const ROUTABLE_IDS = `a ${FAMILIES.map((family) => family.pattern).join(' or ')} id or pattern (e.g. '${FAMILIES[0]!.pattern}')`;
