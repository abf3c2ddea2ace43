import { modelInfo, priceProviderKey, rateAt, type CatalogPrice, type PriceProvider } from '../catalog/index.js';
import { inputNoCacheTokens, type Usage } from '../core/reply.js';

/** The built-in offline backend answers locally: it truly costs nothing. */
const FREE_RATE = Object.freeze({ base: 0, tiers: [] });
const FREE: CatalogPrice = Object.freeze({ input: FREE_RATE, output: FREE_RATE, cacheRead: FREE_RATE, cacheWrite5m: FREE_RATE, cacheWrite1h: FREE_RATE });

/** Nano-dollars per (dollar per million tokens): costs are summed as whole nano-dollars, so totals are exact. */
const NANO_PER_PRICE_UNIT = 1_000;
export const NANO_PER_USD = 1_000_000_000;

/**
 * The price of one upstream model: the config's `prices["BACKEND:MODEL"]`, else `prices[MODEL]`,
 * else (for the offline backend) free, else the model catalog's (src/catalog/), looked up under
 * the backend type's price provider (`priceProviderOf` in src/backends/registry.ts), which every
 * caller must pass (undefined only for no configured backend); undefined when none is known.
 * Config tables are looked up by own property only: a model name comes from the route or the
 * client, and `constructor` must not find anything.
 */
export function priceFor(configured: Readonly<Record<string, unknown>>, backend: string, upstreamModel: string, offline = false, priceProvider: PriceProvider | undefined): CatalogPrice | undefined {
  // Asked once per request with the same few answers: remembered per config table and UTC day
  // (prices come into force by date), so a request pays a map lookup, not a catalog query.
  const day = Math.floor(Date.now() / DAY_MS);
  let known = pricesSeen.get(configured);
  if (known === undefined || known.day !== day) pricesSeen.set(configured, (known = { day, prices: new Map() }));
  const key = `${priceProviderKey(priceProvider)}\u0000${offline ? 1 : 0}\u0000${backend}\u0000${upstreamModel}`;
  if (known.prices.has(key)) return known.prices.get(key);
  const price = modelInfo({ type: undefined, priceProvider, upstreamModel, backendName: backend }, { prices: configured }).price;
  const value = offline && !price?.source.startsWith('config:') ? FREE : price?.value;
  if (known.prices.size >= MAX_PRICES_SEEN) known.prices.clear();
  known.prices.set(key, value);
  return value;
}

const DAY_MS = 86_400_000;
/** Per config table (a new one on every config change), so an edited price is never served stale. */
const pricesSeen = new WeakMap<object, { day: number; prices: Map<string, CatalogPrice | undefined> }>();
/** Model names come from routes and clients (pattern routes): bounded. */
const MAX_PRICES_SEEN = 1_000;

/**
 * One request's cost in whole nano-dollars, from its canonical usage: uncached input, cache reads,
 * cache writes by lifetime (5 minutes, one hour) and output each at their own rate, every one at
 * its long-context rate once the request's input passes that rate's threshold. Undefined when
 * there is no price, or when the request used a kind of token whose price is unknown: no number
 * rather than a wrong one.
 */
export function costNanoUsd(usage: Usage, price: CatalogPrice | undefined): number | undefined {
  if (!price) return undefined;
  const size = usage.inputTokens;
  const cacheRead = usage.cachedInputTokens ?? 0;
  const cacheWrite = usage.cacheWriteInputTokens ?? 0;
  const cacheWrite1h = Math.min(cacheWrite, usage.cacheWrite1hInputTokens ?? 0);
  const cacheWrite5m = cacheWrite - cacheWrite1h;
  const parts: Array<[number, CatalogPrice[keyof CatalogPrice]]> = [
    [inputNoCacheTokens(usage), price.input],
    [cacheRead, price.cacheRead],
    [cacheWrite5m, price.cacheWrite5m],
    [cacheWrite1h, price.cacheWrite1h],
    [usage.outputTokens, price.output],
  ];
  let perMillion = 0;
  for (const [tokens, rate] of parts) {
    if (tokens <= 0) continue;
    if (!rate) return undefined;
    perMillion += tokens * rateAt(rate, size);
  }
  return Number.isFinite(perMillion) ? Math.round(perMillion * NANO_PER_PRICE_UNIT) : undefined;
}

/** Nano-dollars as dollars (for svc_meta, /whoami and the CLI). */
export const usdOf = (nano: number): number => nano / NANO_PER_USD;
