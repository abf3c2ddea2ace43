/**
 * A model's prices in USD per million tokens, each a base rate and the rates that replace it for
 * the whole request once its input passes a size (long-context pricing: Anthropic, OpenAI and
 * Google all charge every token of such a request at the higher rate).
 */
export interface Rate {
  base: number;
  /** Ascending by `aboveInputTokens`: the last one the request's input exceeds applies. */
  tiers: ReadonlyArray<{ aboveInputTokens: number; price: number }>;
}

export interface CatalogPrice {
  input: Rate;
  output: Rate;
  /** A prompt-cache hit. */
  cacheRead?: Rate;
  /** A prompt-cache write kept 5 minutes (Anthropic's default lifetime; OpenAI's automatic cache). */
  cacheWrite5m?: Rate;
  /** A prompt-cache write kept one hour (Anthropic's `ttl: "1h"`). */
  cacheWrite1h?: Rate;
}

/** The rate for a request of this many input tokens. */
export function rateAt(rate: Rate, inputTokens: number): number {
  let price = rate.base;
  for (const tier of rate.tiers) if (inputTokens > tier.aboveInputTokens) price = tier.price;
  return price;
}

/** A price as the config writes it (`prices` in config.json): flat rates, one long-context step. */
export interface PriceOverride {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  longContext?: { aboveInputTokens: number; input: number; output: number; cacheRead?: number; cacheWrite?: number };
}

/** A long-context step the config left out of one kind of token is unknown (NaN), so such a request gets no cost. */
const rate = (base: number, above: number | undefined, long: number | undefined): Rate => ({ base, tiers: above === undefined ? [] : [{ aboveInputTokens: above, price: long ?? Number.NaN }] });

/**
 * A config price as a catalog price. The config's `cacheWrite` is the 5-minute write; it names no
 * one-hour rate, so a request that wrote for an hour gets no cost rather than a guessed one.
 */
export function fromOverride(price: PriceOverride): CatalogPrice {
  const long = price.longContext;
  const above = long?.aboveInputTokens;
  return {
    input: rate(price.input, above, long?.input),
    output: rate(price.output, above, long?.output),
    ...(price.cacheRead !== undefined ? { cacheRead: rate(price.cacheRead, above, long?.cacheRead) } : {}),
    ...(price.cacheWrite !== undefined ? { cacheWrite5m: rate(price.cacheWrite, above, long?.cacheWrite) } : {}),
  };
}

/** A config entry a hand edit left malformed (a price as a string, a negative price) prices nothing. */
export function isPriceOverride(value: unknown): value is PriceOverride {
  if (typeof value !== 'object' || value === null) return false;
  const price = value as Record<string, unknown>;
  const valid = (field: unknown, optional: boolean) => (optional && field === undefined) || (typeof field === 'number' && Number.isFinite(field) && field >= 0);
  if (!valid(price.input, false) || !valid(price.output, false) || !valid(price.cacheRead, true) || !valid(price.cacheWrite, true)) return false;
  if (price.longContext === undefined) return true;
  const long = price.longContext as Record<string, unknown> | null;
  return (
    typeof long === 'object' && long !== null && valid(long.aboveInputTokens, false) && valid(long.input, false) && valid(long.output, false) && valid(long.cacheRead, true) && valid(long.cacheWrite, true)
  );
}
