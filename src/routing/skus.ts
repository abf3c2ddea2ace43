/** The service's own model names, always listed and always routable (offline when unconfigured). */
export const SKUS = ['svc.intelligent-pro', 'svc.intelligent-basic', 'svc.intelligent-lite'] as const;

/** Anthropic model ids, plus the spec's `vendor-*` placeholder, accepted on /v1/messages. */
export const isAnthropicModelId = (model: string): boolean => /^(claude|vendor)-/i.test(model);

export const isSkuName = (model: string): boolean => model.startsWith('svc.');

/** The built-in backend that serves whatever has no configured route. */
export const OFFLINE_BACKEND = 'offline';
