import type { Settings } from '../config/settings.js';
import { findConfiguredRoute } from './resolve-route.js';
import { formatTarget, OFFLINE_BACKEND, parseTarget, type Target } from '../core/target.js';
import type { BackendType } from '../core/backend-types.js';
import { modelInfo } from '../catalog/index.js';
import { priceProviderOf } from '../backends/registry.js';

/**
 * Context windows: the most tokens a routed model holds. Clients that compact their history
 * (Claude Code, Codex) need the number for the SKU they talk to; a client that guesses too high
 * never compacts until the upstream refuses the prompt.
 */

/**
 * The window of an upstream model from the model catalog (src/catalog/): where the vendor caps the
 * prompt below the window (GPT-5: 400,000 in all, at most 128,000 of them output, so 272,000 in),
 * the prompt's cap, which is what a client must compact under; else the window. Undefined when
 * the catalog does not know the model.
 */
export function catalogWindow(type: BackendType | undefined, upstreamModel: string): ContextWindow | undefined {
  const info = modelInfo({ type, priceProvider: priceProviderOf(type), upstreamModel });
  const known = info.maxInput ?? info.contextWindow;
  return known ? { tokens: known.value, source: 'catalog', from: known.source } : undefined;
}

export interface ContextWindow {
  tokens: number;
  /** `config`: set for the route or a target; `catalog`: the model catalog's. */
  source: 'config' | 'catalog';
  /** Where the number came from, for `models info` and `doctor` (the config key, the package and version, the vendor page). */
  from: string;
}

/** What is known of a model's window: a window, or why there is none. */
export type WindowLookup =
  | { known: true; window: ContextWindow }
  | { known: false; reason: 'offline' }
  | { known: false; reason: 'unknown-model'; targets: string[] };

/** A configured window, read only from the config's own keys (never through a prototype). */
function configured(settings: Settings, name: string): number | undefined {
  const windows = settings.contextWindows;
  const value = Object.hasOwn(windows, name) ? windows[name] : undefined;
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** A target's window: set for `BACKEND:MODEL`, else the catalog's for the upstream model on that backend's type. */
function targetWindow(settings: Settings, target: Target, clientModel: string): ContextWindow | undefined {
  const upstreamModel = target.upstreamModel ?? clientModel;
  const key = formatTarget({ backend: target.backend, upstreamModel });
  const set = configured(settings, key);
  if (set !== undefined) return { tokens: set, source: 'config', from: configSource(key) };
  const type = Object.hasOwn(settings.backends, target.backend) ? settings.backends[target.backend]!.type : undefined;
  return catalogWindow(type, upstreamModel);
}

const configSource = (key: string): string => `config: contextWindows[${JSON.stringify(key)}]`;

/**
 * The window of a model name as clients use it (an SKU, a claude-* id): the window set for it,
 * else the smallest window along its route (a fallback may land on any target, so the history must
 * fit the smallest). Unknown when a target's model is unknown; an unrouted name is served offline.
 */
export function contextWindowOf(settings: Settings, model: string): WindowLookup {
  const set = configured(settings, model);
  if (set !== undefined) return { known: true, window: { tokens: set, source: 'config', from: configSource(model) } };
  const route = findConfiguredRoute(settings.routes, model);
  if (route) {
    const set = configured(settings, route.name);
    if (set !== undefined) return { known: true, window: { tokens: set, source: 'config', from: configSource(route.name) } };
  }
  const targets = (route?.targets ?? []).map(parseTarget).filter((target) => target.backend !== OFFLINE_BACKEND);
  if (targets.length === 0) return { known: false, reason: 'offline' };
  const windows = targets.map((target) => targetWindow(settings, target, model));
  const unknown = targets.filter((_, index) => windows[index] === undefined).map((target) => formatTarget({ backend: target.backend, upstreamModel: target.upstreamModel ?? model }));
  if (unknown.length) return { known: false, reason: 'unknown-model', targets: unknown };
  const smallest = (windows as ContextWindow[]).reduce((least, window) => (window.tokens < least.tokens ? window : least));
  return { known: true, window: smallest };
}
