import type { Settings } from '../config/settings.js';
import { findConfiguredRoute } from './resolve-route.js';
import { formatTarget, OFFLINE_BACKEND, parseTarget, type Target } from '../core/target.js';

/**
 * Context windows: the most tokens a routed model holds. Clients that compact their history
 * (Claude Code, Codex) need the number for the SKU they talk to; a client that guesses too high
 * never compacts until the upstream refuses the prompt.
 */

/**
 * Known model families, most specific first, from the vendors' model pages (OpenAI's "Models",
 * Anthropic's "Models overview", Google's "Gemini models"). Where a vendor caps the prompt below
 * the window (GPT-5: 400,000 in all, at most 128,000 of them output), the prompt's cap is used:
 * it is what a client must compact under.
 */
const FAMILY_WINDOWS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^gpt-5/i, 272_000],
  [/^gpt-4\.1/i, 1_047_576],
  [/^gpt-4o/i, 128_000],
  [/^gpt-4-turbo/i, 128_000],
  [/^gpt-4(?:-\d{4})?$/i, 8_192],
  [/^gpt-3\.5-turbo/i, 16_385],
  [/^o1-mini/i, 128_000],
  [/^o\d(?:-(?:mini|pro))?(?:-\d{4}-\d{2}-\d{2})?$/i, 200_000],
  // Sonnet's 1M window needs a beta header the router does not add: 200k is what every Claude takes.
  [/^claude-/i, 200_000],
  [/^gemini-1\.5-pro/i, 2_097_152],
  [/^gemini-/i, 1_048_576],
];

/** The window of a known upstream model family, else undefined. */
export function familyWindow(upstreamModel: string): number | undefined {
  const bare = upstreamModel.replace(/^.*\//, ''); // `models/gemini-…`, `openai/gpt-…`
  return FAMILY_WINDOWS.find(([family]) => family.test(bare))?.[1];
}

export interface ContextWindow {
  tokens: number;
  /** `config`: set for the route or a target; `default`: from a known model family. */
  source: 'config' | 'default';
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

/** A target's window: set for `BACKEND:MODEL`, else the upstream model's family. */
function targetWindow(settings: Settings, target: Target, clientModel: string): ContextWindow | undefined {
  const upstreamModel = target.upstreamModel ?? clientModel;
  const set = configured(settings, formatTarget({ backend: target.backend, upstreamModel }));
  if (set !== undefined) return { tokens: set, source: 'config' };
  const family = familyWindow(upstreamModel);
  return family === undefined ? undefined : { tokens: family, source: 'default' };
}

/**
 * The window of a model name as clients use it (an SKU, a claude-* id): the window set for it,
 * else the smallest window along its route (a fallback may land on any target, so the history must
 * fit the smallest). Unknown when a target's model is unknown; an unrouted name is served offline.
 */
export function contextWindowOf(settings: Settings, model: string): WindowLookup {
  const set = configured(settings, model);
  if (set !== undefined) return { known: true, window: { tokens: set, source: 'config' } };
  const route = findConfiguredRoute(settings.routes, model);
  if (route) {
    const set = configured(settings, route.name);
    if (set !== undefined) return { known: true, window: { tokens: set, source: 'config' } };
  }
  const targets = (route?.targets ?? []).map(parseTarget).filter((target) => target.backend !== OFFLINE_BACKEND);
  if (targets.length === 0) return { known: false, reason: 'offline' };
  const windows = targets.map((target) => targetWindow(settings, target, model));
  const unknown = targets.filter((_, index) => windows[index] === undefined).map((target) => formatTarget({ backend: target.backend, upstreamModel: target.upstreamModel ?? model }));
  if (unknown.length) return { known: false, reason: 'unknown-model', targets: unknown };
  const smallest = (windows as ContextWindow[]).reduce((least, window) => (window.tokens < least.tokens ? window : least));
  return { known: true, window: smallest };
}
