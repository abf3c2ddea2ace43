import type { CommandDefinition } from './definition.js';

export const prices: CommandDefinition = (program) => {
  const prices = program.command('prices').description('what upstream models cost: shipped defaults and your overrides');
  prices
    .command('list')
    .description('list the prices in force (US dollars per million tokens), config over shipped defaults')
    .option('--json', 'print JSON')
    .action(async (options) => (await import('../commands/prices.js')).runPricesList(options));
  prices
    .command('set <model>')
    .description('price an upstream model (or BACKEND:MODEL) in US dollars per million tokens, over any default')
    .requiredOption('--input <usd>', 'uncached input')
    .requiredOption('--output <usd>', 'output')
    .option('--cache-read <usd>', 'input read from the prompt cache (without it, a request with cache reads gets no cost)')
    .option('--cache-write <usd>', 'input written to the prompt cache (without it, a request with cache writes gets no cost)')
    .action(async (model, options) => (await import('../commands/prices.js')).runPricesSet(model, options));
  prices
    .command('unset <model>')
    .description('remove a config price (a shipped default applies again)')
    .action(async (model) => (await import('../commands/prices.js')).runPricesUnset(model));
};
