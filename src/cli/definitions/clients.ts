import { Argument, Option } from 'commander';
import { CLIENTS } from '../connect-clients.js';
import { DOCTOR_CLIENTS } from '../doctor/doctor-clients.js';
import type { CommandDefinition } from './definition.js';

// What points a client at the router, and checks that it works.

export const env: CommandDefinition = (program) => {
  program
    .command('env')
    .description('print export lines for OPENAI_*, ANTHROPIC_* and Gemini (GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY) client variables')
    .option('--base-url <url>', "the router's address (default: from config)")
    .option('--key <key>', 'key to put in the lines (default: the stored local key)')
    .action(async (options) => (await import('../commands/env.js')).runEnv(options));
};

export const doctor: CommandDefinition = (program) => {
  program
    .command('doctor')
    .description("check the key, base URL, router, each backend's key, routes, config file and serve port; exit code = number of failures")
    .option('--base-url <url>', "the router's address as clients use it (env SVC_ROUTER_BASE_URL; default: from config)")
    .option('--key <key>', 'key to check (env SVC_ROUTER_KEY; default: the stored local key)')
    .option('--timeout <ms>', 'how long each network check may take, in milliseconds (default: 2000; the --live requests: 30000)')
    .option('--live', "also send a one-token request to each routed model, through its backend (it costs a few tokens); without it, each backend's key is proven on its free model list")
    .addOption(new Option('--client <client>', 'also check what this client needs: its base URL form, the settings connect --write manages, its environment variables').choices(DOCTOR_CLIENTS))
    .option('--json', 'print the results as JSON')
    .action(async (options) => (await import('../commands/doctor.js')).runDoctor(options));
};

export const connect: CommandDefinition = (program) => {
  program
    .command('connect')
    .description('print (or --write) the settings that point Codex, Claude Code, Gemini CLI or an SDK at this router; stdout is the file or module alone, hints go to stderr')
    .addArgument(new Argument('<client>', 'the client to connect').choices(CLIENTS))
    .option('--write', "merge the settings into the client's own config files (codex, claude, gemini), printing the changes (keys as hints) and keeping a backup")
    .option('--undo', 'put back the config files as they were before the last --write (codex, claude, gemini)')
    .option('--force', 'with --undo: restore even if the file has changed since the write')
    .option('--base-url <url>', "the router's address (default: from config)")
    .option('--key <key>', 'key to use (default: the stored local key)')
    .option('--model <sku>', 'with gemini: the svc SKU Gemini CLI asks for (default: the strongest one routed to a real backend)')
    .action(async (client, options) => (await import('../commands/connect.js')).runConnect(client, options));
};
