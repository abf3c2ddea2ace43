import type { Settings } from '../config/settings.js';
import { FALLBACK_CONTEXT_WINDOW } from '../formats/responses/codex-models.js';
import { contextWindowOf } from '../routing/context-windows.js';
import { SKUS } from '../core/model-names.js';
import { OFFLINE_BACKEND, parseTarget } from '../core/target.js';

type Sku = (typeof SKUS)[number];

/**
 * Which SKU each of Claude Code's model tiers uses, and the context window to tell it. Claude Code
 * 2.1.330 picks a model per purpose: the main loop (ANTHROPIC_MODEL), the opus/sonnet/haiku/fable
 * aliases (ANTHROPIC_DEFAULT_*_MODEL; haiku also serves background requests, as the older
 * ANTHROPIC_SMALL_FAST_MODEL did), subagents (CLAUDE_CODE_SUBAGENT_MODEL) and auto mode's own
 * classifier (CLAUDE_CODE_AUTO_MODE_MODEL). Any of them left at its claude-* default would ask the
 * router for a model no route names.
 */
export interface ClaudeModelPlan {
  main: Sku;
  opus: Sku;
  sonnet: Sku;
  haiku: Sku;
  /** The window of the smallest SKU in the plan; undefined when a routed SKU's window is unknown. */
  contextWindow: number | undefined;
  /** Routed SKUs in the plan whose window is unknown (for a hint naming the fix). */
  unknownWindows: string[];
}

/** Each tier's SKUs in order of preference: the tier's own, then the nearest. */
const PREFERENCE: Record<'main' | 'opus' | 'sonnet' | 'haiku', readonly Sku[]> = {
  main: ['svc.intelligent-pro', 'svc.intelligent-basic', 'svc.intelligent-lite'],
  opus: ['svc.intelligent-pro', 'svc.intelligent-basic', 'svc.intelligent-lite'],
  sonnet: ['svc.intelligent-basic', 'svc.intelligent-pro', 'svc.intelligent-lite'],
  haiku: ['svc.intelligent-lite', 'svc.intelligent-basic', 'svc.intelligent-pro'],
};

const routedToRealBackend = (settings: Settings, sku: string): boolean => {
  const targets = Object.hasOwn(settings.routes, sku) ? settings.routes[sku] : undefined;
  return Array.isArray(targets) && targets.some((text) => parseTarget(String(text)).backend !== OFFLINE_BACKEND);
};

/**
 * Each tier gets its preferred SKU among those routed to a real backend, so no tier lands on the
 * offline backend while a real route exists. With none routed (the zero-config start) every tier
 * keeps its own SKU, all served offline.
 */
export function claudeModelPlan(settings: Settings): ClaudeModelPlan {
  const real = SKUS.filter((sku) => routedToRealBackend(settings, sku));
  const pick = (tier: keyof typeof PREFERENCE): Sku => (real.length ? PREFERENCE[tier].find((sku) => real.includes(sku))! : PREFERENCE[tier][0]!);
  const tiers = { main: pick('main'), opus: pick('opus'), sonnet: pick('sonnet'), haiku: pick('haiku') };
  const used = [...new Set(Object.values(tiers))];
  const lookups = used.map((sku) => ({ sku, lookup: contextWindowOf(settings, sku) }));
  const unknownWindows = lookups.filter(({ lookup }) => !lookup.known && lookup.reason === 'unknown-model').map(({ sku }) => sku);
  const known = lookups.flatMap(({ lookup }) => (lookup.known ? [lookup.window.tokens] : []));
  // Offline answers are short: any window holds them; say one so Claude Code does not guess 1M.
  const allOffline = lookups.every(({ lookup }) => !lookup.known && lookup.reason === 'offline');
  const contextWindow = unknownWindows.length ? undefined : allOffline ? FALLBACK_CONTEXT_WINDOW : Math.min(...known);
  return { ...tiers, contextWindow, unknownWindows };
}
