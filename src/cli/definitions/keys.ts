import type { CommandDefinition } from './definition.js';

export const init: CommandDefinition = (program) => {
  program
    .command('init')
    .description("issue the local developer's own key and store it for the CLI")
    .option('--developer <slug>', 'developer slug (default: your login name)')
    .option('--org <name>', 'organisation')
    .option('--tier <name>', 'tier')
    .option('--cap <tokens>', '30-day token cap (default: config defaults.capTokens, 200000000)')
    .option('--force', 'replace an existing local key')
    .option('--json', 'print a JSON object')
    .action(async (options) => (await import('../commands/init.js')).runInit(options));
};

export const keys: CommandDefinition = (program) => {
  const keys = program.command('keys').description('issue, list and revoke keys for developers');
  keys
    .command('issue')
    .description('issue a key for a developer (printed once; only its hash is stored)')
    .requiredOption('--developer <slug>', 'developer slug, e.g. alice')
    .option('--org <name>', 'organisation')
    .option('--tier <name>', 'tier')
    .option('--cap <tokens>', '30-day token cap')
    .option('--force', "replace the developer's existing key")
    .option('--json', 'print a JSON object')
    .action(async (options) => (await import('../commands/keys.js')).runKeysIssue(options));
  keys
    .command('cap <slug> <tokens>')
    .description("change a developer's 30-day token cap, keeping the key (a running server applies it on the next request)")
    .option('--json', 'print a JSON object')
    .action(async (slug, tokens, options) => (await import('../commands/keys.js')).runKeysCap(slug, tokens, options));
  keys
    .command('list')
    .description('list issued keys (never prints a key)')
    .option('--json', 'print JSON')
    .action(async (options) => (await import('../commands/keys.js')).runKeysList(options));
  keys
    .command('limit <slug>')
    .description("set a developer key's rate limits per minute, shared by every router on the usage store")
    .option('--rpm <requests>', 'requests per minute')
    .option('--tpm <tokens>', 'input + output tokens per minute')
    .option('--clear', 'remove the limits')
    .action(async (slug, options) => (await import('../commands/keys.js')).runKeysLimit(slug, options));
  keys
    .command('revoke <slug>')
    .description("revoke a developer's key")
    .action(async (slug) => (await import('../commands/keys.js')).runKeysRevoke(slug));
};
