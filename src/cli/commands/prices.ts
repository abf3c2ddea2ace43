import type { ModelPrice } from '../../config/settings.js';
import { formatCount, formatUsdRate } from '../../core/format-numbers.js';
import { fromOverride, PRICE_PACKAGE_SOURCE, packagePriceList, type CatalogPrice } from '../../catalog/index.js';
import { priceProviderIds } from '../../backends/registry.js';
import { usageError } from '../cli-error.js';
import { didYouMean } from '../did-you-mean.js';
import { chalk, printJson, printLine, printTable } from '../output.js';
import { openConfig, requireStored } from '../config-in-force.js';

export interface PriceOptions {
  input: string;
  output: string;
  cacheRead?: string;
  cacheWrite?: string;
}

/** A rate in US dollars per million tokens: a non-negative number. */
function parseRate(value: string, name: string): number {
  const rate = Number(value);
  if (value.trim() === '' || !Number.isFinite(rate) || rate < 0) throw usageError(`${name}: expected US dollars per million tokens (a number of 0 or more), got '${value}'`);
  return rate;
}

/** `prices set MODEL`: a config price for an upstream model (or BACKEND:MODEL), over any shipped default. */
export async function runPricesSet(model: string, options: PriceOptions): Promise<void> {
  if (model.trim() === '') throw usageError('the model name is empty');
  const price: ModelPrice = {
    input: parseRate(options.input, '--input'),
    output: parseRate(options.output, '--output'),
    ...(options.cacheRead !== undefined ? { cacheRead: parseRate(options.cacheRead, '--cache-read') } : {}),
    ...(options.cacheWrite !== undefined ? { cacheWrite: parseRate(options.cacheWrite, '--cache-write') } : {}),
  };
  (await openConfig()).update((settings) => void (settings.prices[model] = price));
  printLine(`${chalk.green('✓')} Priced ${chalk.bold(model)}: ${formatUsdRate(price.input)} in, ${formatUsdRate(price.output)} out per million tokens; applies from the next request.`);
}

export async function runPricesUnset(model: string): Promise<void> {
  const config = await openConfig();
  requireStored(config, 'prices', model, `no config price for '${model}'${didYouMean(model, Object.keys(config.read().prices))} (shipped defaults cannot be removed, only overridden; svc-router prices list shows them)`);
  config.update((settings) => void delete settings.prices[model]);
  printLine(`${chalk.green('✓')} Removed the config price of ${chalk.bold(model)}; the model catalog's price (${PRICE_PACKAGE_SOURCE}), if it lists one, applies again.`);
}

/** `prices list`: the prices in force, config over the model catalog's (src/catalog/). */
export async function runPricesList(options: { json?: boolean }): Promise<void> {
  const configured = (await openConfig()).read().prices;
  const row = (model: string, source: string, price: CatalogPrice) => ({
    model,
    source,
    input: price.input.base,
    output: price.output.base,
    ...(price.cacheRead ? { cacheRead: price.cacheRead.base } : {}),
    ...(price.cacheWrite5m ? { cacheWrite: price.cacheWrite5m.base } : {}),
    ...(price.cacheWrite1h ? { cacheWrite1h: price.cacheWrite1h.base } : {}),
    ...(price.input.tiers.length ? { longContextAbove: price.input.tiers[0]!.aboveInputTokens } : {}),
  });
  const rows = [
    ...Object.entries(configured).map(([model, price]) => row(model, 'config', fromOverride(price))),
    ...packagePriceList(new Date(), priceProviderIds())
      .filter(({ id }) => !Object.hasOwn(configured, id))
      .map(({ id, price }) => row(id, PRICE_PACKAGE_SOURCE, price)),
  ];
  if (options.json) return printJson({ defaults_source: PRICE_PACKAGE_SOURCE, prices: rows });
  const rate = (value: number | undefined) => (value === undefined ? '-' : formatUsdRate(value));
  printTable(
    rows.map((line) => [line.model, rate(line.input), rate(line.output), rate(line.cacheRead), rate(line.cacheWrite), rate(line.cacheWrite1h), line.longContextAbove !== undefined ? `> ${formatCount(line.longContextAbove)} in` : '', line.source]),
    ['MODEL', 'INPUT', 'OUTPUT', 'CACHE READ', 'CACHE WRITE 5M', 'CACHE WRITE 1H', 'LONG CONTEXT', 'SOURCE'],
  );
  printLine(chalk.dim('US dollars per million tokens. A model not listed has no price: its requests get no cost (never $0).'));
}
