import { invalidRequest } from '../core/errors.js';
import type { Settings } from '../config/settings.js';
import { isAnthropicModelId, isSkuName, OFFLINE_BACKEND, SKUS } from './skus.js';
import { parseTarget, type Target } from './target.js';

export type Endpoint = 'chat' | 'responses' | 'messages';

const SKU_LIST = SKUS.join(', ');

/**
 * Maps the model a client asked for to its ordered chain of targets, or explains in a 400 why
 * the name is not served on this endpoint.
 */
export function resolveRoute(settings: Settings, model: string, endpoint: Endpoint): Target[] {
  if (/^gpt-/i.test(model)) {
    throw invalidRequest(`The model '${model}' is not served here. Use one of the svc SKUs: ${SKU_LIST}.`, 'model', 'model_not_found');
  }
  const anthropicId = isAnthropicModelId(model);
  if (anthropicId && endpoint !== 'messages') {
    throw invalidRequest(
      `The model '${model}' is accepted only on /v1/messages. Use one of the svc SKUs here: ${SKU_LIST}.`,
      'model',
      'model_not_found',
    );
  }
  const configured = findConfiguredRoute(settings.routes, model);
  if (configured) return configured.map(parseTarget);
  if (anthropicId || (SKUS as readonly string[]).includes(model)) return [{ backend: OFFLINE_BACKEND }];
  const hint = endpoint === 'messages' ? `, or a claude-* model id` : '';
  throw invalidRequest(`Unknown model '${model}'. Use one of the svc SKUs: ${SKU_LIST}${hint}.`, 'model', 'model_not_found');
}

/** An exact route wins; otherwise the most specific (longest) matching `*` pattern. */
function findConfiguredRoute(routes: Settings['routes'], model: string): string[] | undefined {
  const exact = routes[model];
  if (exact) return exact;
  let best: { pattern: string; targets: string[] } | undefined;
  for (const [pattern, targets] of Object.entries(routes)) {
    if (!pattern.includes('*') || !globMatches(pattern, model)) continue;
    if (!best || pattern.length > best.pattern.length) best = { pattern, targets };
  }
  return best?.targets;
}

const compiled = new Map<string, RegExp>();

export function globMatches(pattern: string, name: string): boolean {
  let regExp = compiled.get(pattern);
  if (!regExp) {
    regExp = new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, 'i');
    compiled.set(pattern, regExp);
  }
  return regExp.test(name);
}

const escapeRegExp = (text: string): string => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');

/** Model names a route may be set for: an svc.* name, an Anthropic id, or a pattern of either. */
export function isRoutableModelName(model: string): boolean {
  return (isSkuName(model) || isAnthropicModelId(model)) && !/^gpt-/i.test(model) && /^[\w.*:-]+$/.test(model);
}
