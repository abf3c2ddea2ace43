import type { ModelPrice } from '../../config/settings.js';
import { formatCount, formatUsdRate } from '../../core/format-numbers.js';
import { DEFAULT_PRICES, DEFAULT_PRICES_DATE } from '../../usage/default-prices.js';
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
  printLine(`${chalk.green('✓')} Removed the config price of ${chalk.bold(model)}${Object.hasOwn(DEFAULT_PRICES, model) ? '; the shipped default applies again' : ''}.`);
}

/** `prices list`: the prices in force, config over shipped defaults. */
export async function runPricesList(options: { json?: boolean }): Promise<void> {
  const configured = (await openConfig()).read().prices;
  const rows = [
    ...Object.entries(configured).map(([model, price]) => ({ model, source: 'config', ...price })),
    ...Object.entries(DEFAULT_PRICES)
      .filter(([model]) => !Object.hasOwn(configured, model))
      .map(([model, price]) => ({ model, source: `default ${DEFAULT_PRICES_DATE}`, ...price })),
  ];
  if (options.json) return printJson({ defaults_date: DEFAULT_PRICES_DATE, prices: rows });
  const rate = (value: number | undefined) => (value === undefined ? '-' : formatUsdRate(value));
  printTable(
    rows.map((row) => [row.model, rate(row.input), rate(row.output), rate(row.cacheRead), rate(row.cacheWrite), row.longContext ? `> ${formatCount(row.longContext.aboveInputTokens)} in` : '', row.source]),
    ['MODEL', 'INPUT', 'OUTPUT', 'CACHE READ', 'CACHE WRITE', 'LONG CONTEXT', 'SOURCE'],
  );
  printLine(chalk.dim('US dollars per million tokens. A model not listed has no price: its requests get no cost (never $0).'));
}
