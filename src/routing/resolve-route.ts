import { invalidRequest } from '../core/errors.js';
import type { Settings } from '../config/settings.js';
import { type ModelIds, SKUS } from '../core/model-names.js';
import { OFFLINE_BACKEND, parseTarget, type Target } from '../core/target.js';
import { globMatches } from './model-pattern.js';
import { firstMatchingRule, type RequestTraits } from './task-rules.js';

/** What routing needs of a client format: its paths, and the model ids it serves beyond the SKUs. */
export interface RoutedFormat {
  readonly routes: readonly { readonly path: string }[];
  readonly modelIds?: ModelIds;
}

const SKU_LIST = SKUS.join(', ');

/**
 * Maps the model a client asked for to its ordered chain of targets, or explains in a 400 why
 * the name is not served in this format. `formats` are all the formats served, to point a client
 * that asks for another format's model id (claude-* on chat) to where it is served.
 */
export function resolveRoute(settings: Settings, model: string, format: RoutedFormat, formats: readonly RoutedFormat[] = []): Target[] {
  return resolveChain(settings, model, format, formats).targets;
}

/** Refuses a model name not served in this format (400); whether it is one of the format's own ids. */
function checkServed(model: string, format: RoutedFormat, formats: readonly RoutedFormat[]): boolean {
  if (/^gpt-/i.test(model)) {
    throw invalidRequest(`The model '${model}' is not served here. Use one of the svc SKUs: ${SKU_LIST}.`, 'model', 'model_not_found');
  }
  const ownId = format.modelIds?.matches(model) === true;
  const home = ownId ? undefined : formats.find((other) => other !== format && other.modelIds?.matches(model));
  if (home) {
    throw invalidRequest(
      `The model '${model}' is accepted only on ${home.routes[0]?.path ?? 'another endpoint'}. Use one of the svc SKUs here: ${SKU_LIST}.`,
      'model',
      'model_not_found',
    );
  }
  return ownId;
}

/** A route's chain, and the task rule that chose it when one did. */
export interface Chain {
  targets: Target[];
  /** The configured route serving the request (its name in settings.routes); absent when none is. */
  route?: string;
  /** The name of the task rule whose targets these are (absent: the route's own). */
  rule?: string;
  /** Set when an unrouted format-own id (claude-*) is served by this SKU's route instead of offline. */
  servedAs?: string;
  /** Where web search runs for targets without their own (`routes search`). */
  searchTarget?: Target;
}

/**
 * As resolveRoute, then the route's policy: the first task rule that matches the request picks the
 * chain, and its weighted targets carry their weights. Which of them leads is drawn where the
 * chain is called (src/routing/chain-lead.ts), once per session: the rest follow in order, as
 * fallbacks. A route with no policy costs one lookup; the request's traits are worked out only for rules.
 *
 * A format's own id without a route of its own (Claude Code's `claude-haiku-*` side requests) is
 * served by the first SKU routed to a real backend, in SKU order, with that SKU's policy: once any
 * real route exists, canned offline text never stands in for a real model. With no real route at
 * all, the offline backend serves it (the zero-config start).
 */
export function resolveChain(settings: Settings, model: string, format: RoutedFormat, formats: readonly RoutedFormat[] = [], traits?: () => RequestTraits): Chain {
  const ownId = checkServed(model, format, formats);
  const configured = findConfiguredRoute(settings.routes, model);
  if (configured) {
    const policy = settings.routePolicies && Object.hasOwn(settings.routePolicies, configured.name) ? settings.routePolicies[configured.name] : undefined;
    if (!policy) return { targets: configured.targets.map(parseTarget), route: configured.name };
    const search = typeof policy.search === 'string' && policy.search ? { searchTarget: parseTarget(policy.search) } : {};
    const rule = policy.rules?.length && traits ? firstMatchingRule(policy.rules, traits()) : undefined;
    const chain = rule ? rule.targets : configured.targets;
    const weights = policy.weights;
    const targets = chain.map((text) => {
      const target = parseTarget(text);
      const weight = weights && Object.hasOwn(weights, text) ? weights[text] : undefined;
      // A weight of 0 (or one not a number) keeps the target out of the draw, as a fallback only.
      return weight !== undefined && Number.isFinite(weight) && weight > 0 ? { ...target, weight } : target;
    });
    return { targets, route: configured.name, ...(rule ? { rule: rule.name } : {}), ...search };
  }
  if (ownId) {
    const sku = firstRealSku(settings);
    if (sku) return { ...resolveChain(settings, sku.name, format, formats, traits), servedAs: sku.name };
  }
  if (ownId || (SKUS as readonly string[]).includes(model)) return { targets: [{ backend: OFFLINE_BACKEND }] };
  const hint = format.modelIds ? `, or ${format.modelIds.description}` : '';
  throw invalidRequest(`Unknown model '${model}'. Use one of the svc SKUs: ${SKU_LIST}${hint}.`, 'model', 'model_not_found');
}

/**
 * An exact route wins; otherwise the most specific (longest) matching `*` pattern. Only entries the
 * config holds count: a client's name is never looked up through a prototype (`constructor`,
 * `__proto__`, `toString` … are routes only if the config has one by that name).
 */
export function findConfiguredRoute(routes: Settings['routes'], model: string): { name: string; targets: string[] } | undefined {
  const exact = Object.hasOwn(routes, model) ? routes[model] : undefined;
  if (Array.isArray(exact)) return { name: model, targets: exact };
  let best: { name: string; targets: string[] } | undefined;
  for (const [pattern, targets] of Object.entries(routes)) {
    if (!pattern.includes('*') || !Array.isArray(targets) || !globMatches(pattern, model)) continue;
    if (!best || pattern.length > best.name.length) best = { name: pattern, targets };
  }
  return best;
}

/** The first SKU (in SKU order) whose route has a target other than the offline backend. */
function firstRealSku(settings: Settings): { name: string; targets: Target[] } | undefined {
  for (const name of SKUS) {
    const route = Object.hasOwn(settings.routes, name) ? settings.routes[name] : undefined;
    if (!Array.isArray(route)) continue;
    const targets = route.map(parseTarget);
    if (targets.some((target) => target.backend !== OFFLINE_BACKEND)) return { name, targets };
  }
  return undefined;
}

/** The label of a model name no configured route or SKU claims. */
export const OTHER_ROUTE = 'other';

/**
 * The route a model name is served by, as a bounded label: the configured route's own name (exact
 * name or pattern), a built-in SKU, or `other` for anything else (unrouted claude-* ids served
 * offline, unknown names). The set of answers is fixed by the config, whatever clients send.
 */
export function routeLabel(settings: Settings, model: string): string {
  const configured = findConfiguredRoute(settings.routes, model);
  if (configured) return configured.name;
  return (SKUS as readonly string[]).includes(model) ? model : OTHER_ROUTE;
}

