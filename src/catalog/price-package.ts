import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { MatchLogic, ModelInfo as PackageModel, ModelPrice as PackagePrice, Provider } from '@pydantic/genai-prices';
import type { CatalogPrice, Rate } from './catalog-price.js';

/**
 * Prices and context windows from @pydantic/genai-prices, a maintained table of the providers'
 * published prices (MIT, no dependencies, released often). It is read as it ships: the router
 * never fetches its remote update, so a price changes only with the package's version.
 */

const PACKAGE = '@pydantic/genai-prices';

type PriceTable = typeof import('@pydantic/genai-prices');
let table: PriceTable | undefined;

/**
 * The package, loaded on the first lookup rather than with this module: its table is most of a
 * command's start-up, and most commands never price anything. Its CommonJS build (the same
 * table) is what a synchronous lookup can load; `loadPriceTable` loads it ahead, for a server.
 */
export function loadPriceTable(): PriceTable {
  return (table ??= createRequire(import.meta.url)(PACKAGE) as PriceTable);
}

const findProvider: PriceTable['findProvider'] = (options) => loadPriceTable().findProvider(options);

/** The package and its version as a source ("@pydantic/genai-prices 0.1.8"). */
export const PRICE_PACKAGE_SOURCE = `${PACKAGE} ${packageVersion()}`;

function packageVersion(): string {
  try {
    // The package exports no package.json; its entry point sits in dist/, one level below it.
    const entry = createRequire(import.meta.url).resolve(PACKAGE);
    const json = JSON.parse(fs.readFileSync(path.join(path.dirname(entry), '..', 'package.json'), 'utf8')) as { version?: unknown };
    return typeof json.version === 'string' ? json.version : 'unknown version';
  } catch {
    return 'unknown version';
  }
}

/**
 * Where the package lists a backend's models. Each backend type says its own (its folder's
 * definition.ts): the catalog names no backend type, so adding one never touches it.
 */
export interface PriceProvider {
  /** The package's provider id: `openai`, `anthropic`, `google`, `aws`. */
  id: string;
  /**
   * The backend also serves models this provider does not list (an OpenAI-compatible server may
   * serve anyone's, Vertex serves Anthropic's beside Google's): those are found by their name.
   */
  othersByName?: boolean;
}

/** A provider as a cache key: two that look models up alike give the same key. */
export const priceProviderKey = (provider: PriceProvider | undefined): string => (provider ? `${provider.id}${provider.othersByName ? '+' : ''}` : '');

export interface PackageEntry {
  provider: string;
  /** The package's own id for the model (`claude-sonnet-4-5` for `claude-sonnet-4-5-20250929`). */
  id: string;
  contextWindow?: number;
  model: PackageModel;
}

/** A model name as the package lists it: no `models/` (Gemini) or `vendor/` prefix. */
const bare = (model: string): string => model.replace(/^models\//, '').replace(/^[\w.-]+\//, '');

/** `-20250929` as the package also spells it (`-2025-09-29`), as its own lookup does. */
const dashedDate = (model: string): string => model.replace(/-(20\d{2})(\d{2})(\d{2})(?=$|-|:)/, '-$1-$2-$3');

/** Names longer than any model's are nobody's; a client cannot make the matcher work on megabytes. */
const MAX_NAME = 200;

/**
 * The package's entry for an upstream model on a backend with this price provider; undefined when
 * it lists none. No provider (a model asked of no configured backend) matches by name alone.
 */
export function packageEntry(priceProvider: PriceProvider | undefined, upstreamModel: string): PackageEntry | undefined {
  const name = bare(upstreamModel);
  if (!name || name.length > MAX_NAME) return undefined;
  const providers = priceProvider ? [findProvider({ providerId: priceProvider.id })] : [];
  if (!priceProvider || priceProvider.othersByName) providers.push(findProvider({ modelId: name }));
  for (const provider of providers) {
    if (!provider) continue;
    const model = findModel(provider, name) ?? findModel(provider, dashedDate(name));
    if (model) return { provider: provider.id, id: model.id, ...(model.context_window ? { contextWindow: model.context_window } : {}), model };
  }
  return undefined;
}

function findModel(provider: Provider, name: string): PackageModel | undefined {
  const own = provider.models.find((model) => matches(model.match, name));
  if (own) return own;
  // Google's list defers Claude on Vertex to Anthropic's.
  for (const id of provider.fallback_model_providers ?? []) {
    const fallback = findProvider({ providerId: id });
    const model = fallback?.models.find((candidate) => matches(candidate.match, name));
    if (model) return model;
  }
  return undefined;
}

const compiled = new Map<string, RegExp>();

/** The package's match logic (its own, which it does not export): case-blind, except a regex. */
function matches(logic: MatchLogic, name: string): boolean {
  const lower = name.toLowerCase();
  if ('or' in logic) return logic.or.some((inner) => matches(inner, name));
  if ('and' in logic) return logic.and.every((inner) => matches(inner, name));
  if ('equals' in logic) return lower === logic.equals.toLowerCase();
  if ('starts_with' in logic) return lower.startsWith(logic.starts_with.toLowerCase());
  if ('ends_with' in logic) return lower.endsWith(logic.ends_with.toLowerCase());
  if ('contains' in logic) return lower.includes(logic.contains.toLowerCase());
  if ('regex' in logic) {
    let pattern = compiled.get(logic.regex);
    if (!pattern) compiled.set(logic.regex, (pattern = new RegExp(logic.regex)));
    return pattern.test(name);
  }
  return false;
}

/**
 * The model's price in force at `when` (a price list may change on a date), as a catalog price;
 * undefined when the package lists no input and output price for text.
 */
export function packagePrice(entry: PackageEntry, when: Date): CatalogPrice | undefined {
  const prices = priceInForce(entry.model, when);
  const input = rateOf(prices.input_mtok);
  const output = rateOf(prices.output_mtok);
  if (!input || !output) return undefined;
  const cacheRead = rateOf(prices.cache_read_mtok);
  const cacheWrite5m = rateOf(prices.cache_write_mtok);
  const cacheWrite1h = rateOf(prices.cache_write_1h_mtok);
  return { input, output, ...(cacheRead ? { cacheRead } : {}), ...(cacheWrite5m ? { cacheWrite5m } : {}), ...(cacheWrite1h ? { cacheWrite1h } : {}) };
}

/** The last price whose start date has passed, as the package's own calculator picks it. */
function priceInForce(model: PackageModel, when: Date): PackagePrice {
  if (!Array.isArray(model.prices)) return model.prices;
  for (let index = model.prices.length - 1; index >= 0; index--) {
    const { constraint, prices } = model.prices[index]!;
    if (!constraint) return prices;
    if (constraint.type === 'start_date' && when >= new Date(constraint.start_date)) return prices;
  }
  return model.prices[0]!.prices;
}

function rateOf(value: PackagePrice[string]): Rate | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? { base: value, tiers: [] } : undefined;
  if (!value || typeof value !== 'object' || typeof value.base !== 'number') return undefined;
  const tiers = [...value.tiers].sort((a, b) => a.start - b.start).map((tier) => ({ aboveInputTokens: tier.start, price: tier.price }));
  return { base: value.base, tiers };
}

/** Every text model of the given providers (the backend types' own), with its price in force (for `prices list`). */
export function packagePriceList(when: Date, providerIds: Iterable<string>): Array<{ provider: string; id: string; price: CatalogPrice }> {
  const rows: Array<{ provider: string; id: string; price: CatalogPrice }> = [];
  for (const id of new Set(providerIds)) {
    const provider = findProvider({ providerId: id });
    for (const model of provider?.models ?? []) {
      if (model.deprecated) continue;
      const price = packagePrice({ provider: id, id: model.id, model }, when);
      if (price) rows.push({ provider: id, id: model.id, price });
    }
  }
  return rows;
}
