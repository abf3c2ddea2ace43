/**
 * The model names the router answers to, shared by every layer that reads one: routing resolves
 * them, config validation and the CLI refuse a route under any other, and a client format names
 * the ids it serves beyond the SKUs.
 */

/** The service's own model names, always listed and always routable (offline when unconfigured). */
export const SKUS = ['svc.intelligent-pro', 'svc.intelligent-basic', 'svc.intelligent-lite'] as const;

/** Anthropic model ids, plus the spec's `vendor-*` placeholder, accepted on /v1/messages. */
export const isAnthropicModelId = (model: string): boolean => /^(claude|vendor)-/i.test(model);

export const isSkuName = (model: string): boolean => model.startsWith('svc.');

/** Model names a route may be set for: an svc.* name, an Anthropic id, or a pattern of either. */
export function isRoutableModelName(model: string): boolean {
  return (isSkuName(model) || isAnthropicModelId(model)) && !/^gpt-/i.test(model) && /^[\w.*:-]+$/.test(model);
}

/** Model names a client format serves beyond the svc SKUs (e.g. claude-* ids on messages). */
export interface ModelIds {
  matches(model: string): boolean;
  /** Named in the unknown-model error: "a claude-* model id". */
  readonly description: string;
}
