import type { ModelPrice } from '../config/settings.js';
import { inputNoCacheTokens, type Usage } from '../core/reply.js';
import { DEFAULT_PRICES } from './default-prices.js';

/** The built-in offline backend answers locally: it truly costs nothing. */
const FREE: ModelPrice = Object.freeze({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

/** Nano-dollars per (dollar per million tokens): costs are summed as whole nano-dollars, so totals are exact. */
const NANO_PER_PRICE_UNIT = 1_000;
export const NANO_PER_USD = 1_000_000_000;

/**
 * The price of one upstream model: the config's `prices["BACKEND:MODEL"]`, else `prices[MODEL]`,
 * else (for the offline backend) free, else the shipped default for the model or its undated name;
 * undefined when none is known. Config tables are looked up by own property only: a model name
 * comes from the route or the client, and `constructor` must not find anything.
 */
export function priceFor(configured: Readonly<Record<string, ModelPrice>>, backend: string, upstreamModel: string, offline = false): ModelPrice | undefined {
  // Looked up once per price table (a config change brings a new one) and target, not per request.
  let known = lookedUp.get(configured);
  if (!known) lookedUp.set(configured, (known = new Map()));
  const key = `${offline ? '1' : '0'}${backend}:${upstreamModel}`;
  if (known.has(key)) return known.get(key);
  const price = findPrice(configured, backend, upstreamModel, offline);
  if (known.size < MAX_REMEMBERED) known.set(key, price);
  return price;
}

const lookedUp = new WeakMap<object, Map<string, ModelPrice | undefined>>();
/** Enough for every target a config routes to; model names clients invent (pattern routes) stop being remembered. */
const MAX_REMEMBERED = 1_000;

function findPrice(configured: Readonly<Record<string, ModelPrice>>, backend: string, upstreamModel: string, offline: boolean): ModelPrice | undefined {
  for (const key of [`${backend}:${upstreamModel}`, upstreamModel]) {
    if (Object.hasOwn(configured, key) && isPrice(configured[key])) return configured[key];
  }
  if (offline) return FREE;
  for (const name of baseNames(upstreamModel)) if (Object.hasOwn(DEFAULT_PRICES, name)) return DEFAULT_PRICES[name];
  return undefined;
}

/**
 * A model name and the names it is a snapshot of: without a `models/` prefix (Gemini), and without a
 * date (`-20250929`, `-2024-08-06`, `@20250929`) or `-latest` at its end.
 */
export function baseNames(model: string): string[] {
  const bare = model.startsWith('models/') ? model.slice('models/'.length) : model;
  const undated = bare.replace(/(?:[-@]\d{8}|-\d{4}-\d{2}-\d{2}|-latest)$/, '');
  return [...new Set([model, bare, undated])];
}

/**
 * One request's cost in whole nano-dollars, from its canonical usage: uncached input, cache reads,
 * cache writes and output each at their own rate (the long-context rates for all of them once the
 * input passes the model's threshold). Undefined when there is no price, or when the request used a
 * kind of token whose price is unknown: no number rather than a wrong one.
 */
export function costNanoUsd(usage: Usage, price: ModelPrice | undefined): number | undefined {
  if (!price) return undefined;
  const long = price.longContext && usage.inputTokens > price.longContext.aboveInputTokens ? price.longContext : undefined;
  const rates = long ?? price;
  const cacheRead = usage.cachedInputTokens ?? 0;
  const cacheWrite = usage.cacheWriteInputTokens ?? 0;
  if ((cacheRead > 0 && rates.cacheRead === undefined) || (cacheWrite > 0 && rates.cacheWrite === undefined)) return undefined;
  const perMillion =
    inputNoCacheTokens(usage) * rates.input + cacheRead * (rates.cacheRead ?? 0) + cacheWrite * (rates.cacheWrite ?? 0) + usage.outputTokens * rates.output;
  return Number.isFinite(perMillion) ? Math.round(perMillion * NANO_PER_PRICE_UNIT) : undefined;
}

/** Nano-dollars as dollars (for svc_meta, /whoami and the CLI). */
export const usdOf = (nano: number): number => nano / NANO_PER_USD;

/** A config entry a hand edit left malformed (a price as a string, a negative price) prices nothing. */
function isPrice(value: unknown): value is ModelPrice {
  if (typeof value !== 'object' || value === null) return false;
  const price = value as Record<string, unknown>;
  const rate = (field: unknown, optional: boolean) => (optional && field === undefined) || (typeof field === 'number' && Number.isFinite(field) && field >= 0);
  if (!rate(price.input, false) || !rate(price.output, false) || !rate(price.cacheRead, true) || !rate(price.cacheWrite, true)) return false;
  if (price.longContext === undefined) return true;
  const long = price.longContext as Record<string, unknown> | null;
  return (
    typeof long === 'object' && long !== null && rate(long.aboveInputTokens, false) && rate(long.input, false) && rate(long.output, false) && rate(long.cacheRead, true) && rate(long.cacheWrite, true)
  );
}
