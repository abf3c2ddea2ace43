import { Option, type Command } from 'commander';
import { completeArguments, completeWith } from '../completion-hints.js';
import type { CommandDefinition } from './definition.js';

// The commands that ask the router something with a key: in-process from the config, or over HTTP with --base-url.

const connection = (command: Command) =>
  command
    .option('--base-url <url>', 'talk to a router over HTTP instead of in-process (env SVC_ROUTER_BASE_URL)')
    .option('--key <key>', 'key to send (env SVC_ROUTER_KEY; default: the stored local key)')
    .option('--json', 'print the raw response body');

export const whoami: CommandDefinition = (program) => {
  connection(program.command('whoami').description('show who the key belongs to and its usage against the 30-day cap')).action(async (options) =>
    (await import('../commands/quick-checks.js')).runWhoami(options),
  );
};

export const usage: CommandDefinition = (program) => {
  connection(program.command('usage').description("everyone's usage and cost over the 30-day window by key, SKU, upstream model and day, with bar charts (needs an admin key: the local key, or one with --tier admin)")).action(
    async (options) => (await import('../commands/usage.js')).runUsage(options),
  );
};

export const models: CommandDefinition = (program) => {
  const models = program.command('models').description('the models the router serves, and what the catalog knows of each');
  // `svc-router models` alone lists them, as it did before `info` joined it.
  connection(models.command('list', { isDefault: true }).description('list the models the router serves')).action(async (options) =>
    (await import('../commands/quick-checks.js')).runModels(options),
  );
  completeArguments(models.command('info <model>'), 'route-models')
    .description("what the model catalog knows of a model (a route, BACKEND:MODEL or an upstream model): context window, output cap, prices, capabilities, each with its source")
    .option('--json', 'print JSON')
    .action(async (model, options) => (await import('../commands/models-info.js')).runModelsInfo(model, options));
};

export const chat: CommandDefinition = (program) => {
  connection(
    program
      .command('chat [prompt...]')
      .description('send one chat message (prompt from the arguments, or standard input)')
      .addOption(completeWith(new Option('-m, --model <model>', 'model to ask').default('svc.intelligent-basic'), 'skus'))
      .option('-s, --system <text>', 'system prompt')
      .option('--max-tokens <n>', 'output cap')
      .option('--stream', 'print tokens as they arrive'),
  ).action(async (prompt, options) => (await import('../commands/chat.js')).runChat(prompt, options));
};
