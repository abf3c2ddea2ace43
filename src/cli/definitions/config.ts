import { Option } from 'commander';
import { completeArguments, completeWith } from '../completion-hints.js';
import type { CommandDefinition } from './definition.js';

export const config: CommandDefinition = (program) => {
  const config = program.command('config').description('read and change settings');
  config
    .command('path')
    .description('print the config file path')
    .action(async () => (await import('../commands/config.js')).runConfigPath());
  completeArguments(config.command('get <key>'), 'config-keys')
    .description('print a setting')
    .action(async (key) => (await import('../commands/config.js')).runConfigGet(key));
  completeArguments(config.command('set <key> <value>'), 'config-keys', 'config-value')
    .description('change a setting (server.host, server.port, server.bodyLimitBytes, usage.store, defaults.*)')
    .action(async (key, value) => (await import('../commands/config.js')).runConfigSet(key, value));
  config
    .command('export')
    .description('print the settings in force as a declarative file to commit or share (secrets only by environment-variable name; notes on stderr)')
    .addOption(completeWith(new Option('-o, --output <file>', 'write the file instead of printing it'), 'files'))
    .option('--force', 'replace an existing --output file')
    .option('--with-keys', "include issued keys' records (hashes, never keys), so routers sharing the file accept the same keys")
    .option('--schema-ref <ref>', 'the $schema reference to write (default: ./node_modules/svc-router/… when the project installs svc-router, else this svc-router\'s schema, relative to the file)')
    .action(async (options) => (await import('../commands/config-file.js')).runConfigExport(options));
  completeArguments(config.command('import <file>'), 'files')
    .description('write a declarative file into config.json, listing every change (nothing is written if the file is not valid)')
    .option('--dry-run', 'list the changes without writing them')
    .action(async (file, options) => (await import('../commands/config-file.js')).runConfigImport(file, options));
  completeArguments(config.command('validate [file]'), 'files')
    .description("check a declarative file (default: $SVC_ROUTER_CONFIG, else the running serve's), naming the line and column of each problem; exit code 2 if it is not valid")
    .option('--json', 'print the result as JSON')
    .action(async (file, options) => (await import('../commands/config-file.js')).runConfigValidate(file, options));
};
