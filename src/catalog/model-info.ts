import type { BackendType } from '../core/backend-types.js';
import { fromOverride, isPriceOverride, type CatalogPrice } from './catalog-price.js';
import { capabilityRow, type Capabilities } from './model-capabilities.js';
import { PRICE_PACKAGE_SOURCE, packageEntry, packagePrice, priceProviderKey, type PriceProvider } from './price-package.js';

/**
 * One lookup for what is known of an upstream model: (price provider, backend type, upstream
 * model) → its context window, output cap, prices and capabilities, each with where it came from.
 * The price provider is the caller's, from the backend type's definition. The config's own
 * values (`prices`, `routes window`) win over the package's and the local table's; a model none of
 * them knows has no numbers at all, never a guess.
 */

export interface Sourced<T> {
  value: T;
  /** `@pydantic/genai-prices 0.1.8`, `local table (https://…)` or `config: prices["…"]`. */
  source: string;
}

export interface ModelInfo {
  /** The upstream model as asked. */
  model: string;
  /** The price package's own id for it, when it lists it. */
  catalogId?: string;
  contextWindow?: Sourced<number>;
  /** The most input tokens, where the vendor caps the prompt below the window. */
  maxInput?: Sourced<number>;
  maxOutput?: Sourced<number>;
  price?: Sourced<CatalogPrice>;
  capabilities?: Sourced<Capabilities>;
}

/** The config's values that win: `prices` and `contextWindows`, each by `BACKEND:MODEL`, then by model. */
export interface CatalogOverrides {
  prices?: Readonly<Record<string, unknown>>;
  contextWindows?: Readonly<Record<string, unknown>>;
}

export interface ModelQuery {
  /** The backend's type, when it is configured, for the capability rows of the families it serves. */
  type: BackendType | undefined;
  /** Where the price package lists the backend's models, as its type's definition says; undefined matches by model name alone. */
  priceProvider: PriceProvider | undefined;
  upstreamModel: string;
  /** The backend's configured name, for the config's `BACKEND:MODEL` keys. */
  backendName?: string;
}

const local = (doc: string): string => `local table (${doc})`;

/**
 * What the catalog knows of one upstream model, with the config's overrides on top. Config keys
 * are read as own properties only (a model name may come from a client: `constructor` finds nothing).
 */
export function modelInfo(query: ModelQuery, overrides: CatalogOverrides = {}, when: Date = new Date()): ModelInfo {
  const known = builtIn(query, when);
  const info: ModelInfo = { ...known };
  const keys = [...(query.backendName ? [`${query.backendName}:${query.upstreamModel}`] : []), query.upstreamModel];
  const price = firstOwn(overrides.prices, keys, isPriceOverride);
  if (price) info.price = { value: fromOverride(price.value), source: `config: prices[${JSON.stringify(price.key)}]` };
  const window = firstOwn(overrides.contextWindows, keys, isWindow);
  if (window) info.contextWindow = { value: window.value, source: `config: contextWindows[${JSON.stringify(window.key)}]` };
  return info;
}

/** The package's and the local table's values for a model, remembered: translators ask once per request. */
function builtIn({ type, priceProvider, upstreamModel }: Omit<ModelQuery, 'backendName'>, when: Date): ModelInfo {
  const day = when.toISOString().slice(0, 10);
  const key = `${type ?? ''}\u0000${priceProviderKey(priceProvider)}\u0000${upstreamModel}\u0000${day}`;
  const cached = remembered.get(key);
  if (cached) return cached;
  const info: ModelInfo = { model: upstreamModel };
  const entry = packageEntry(priceProvider, upstreamModel);
  if (entry) {
    info.catalogId = entry.id;
    if (entry.contextWindow) info.contextWindow = { value: entry.contextWindow, source: PRICE_PACKAGE_SOURCE };
    const price = packagePrice(entry, when);
    if (price) info.price = { value: price, source: PRICE_PACKAGE_SOURCE };
  }
  const row = capabilityRow(type, upstreamModel);
  if (row) {
    info.capabilities = { value: row.capabilities, source: local(row.doc) };
    if (row.capabilities.maxOutput) info.maxOutput = { value: row.capabilities.maxOutput, source: local(row.doc) };
    if (row.capabilities.maxInput) info.maxInput = { value: row.capabilities.maxInput, source: local(row.doc) };
    if (!info.contextWindow && row.capabilities.contextWindow) info.contextWindow = { value: row.capabilities.contextWindow, source: local(row.doc) };
  }
  if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!);
  remembered.set(key, info);
  return info;
}

const remembered = new Map<string, ModelInfo>();
/** Enough for every target a config routes to; names clients invent (pattern routes) push out the oldest. */
const MAX_REMEMBERED = 1_000;

/** The capabilities alone, for a translator: undefined when no row names the model. Prices play no part, so the price table is not asked. */
export function capabilitiesOf(type: BackendType | undefined, upstreamModel: string): Capabilities | undefined {
  return capabilityRow(type, upstreamModel)?.capabilities;
}

const isWindow = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value > 0;

function firstOwn<T>(table: Readonly<Record<string, unknown>> | undefined, keys: readonly string[], valid: (value: unknown) => value is T): { key: string; value: T } | undefined {
  if (!table) return undefined;
  for (const key of keys) {
    if (!Object.hasOwn(table, key)) continue;
    const value = table[key];
    if (valid(value)) return { key, value };
  }
  return undefined;
}
