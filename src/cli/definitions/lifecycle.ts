import type { CommandDefinition } from './definition.js';

// The running serve's lifecycle, each read from the state file serve writes (src/cli/server-state.ts).

export const status: CommandDefinition = (program) => {
  program
    .command('status')
    .description('show whether serve is running (from its state file in the config directory): address, pid, uptime; exit code 0 if running, 3 if not')
    .option('--json', 'print a JSON object')
    .action(async (options) => (await import('../commands/status.js')).runStatus(options));
};

export const stop: CommandDefinition = (program) => {
  program
    .command('stop')
    .description('stop the running serve (SIGTERM to the pid in its state file) and wait until it has exited; exit code 0 also when none runs')
    .option('--timeout <ms>', 'how long to wait for it to exit, in milliseconds (default: 15000)')
    .action(async (options) => (await import('../commands/stop.js')).runStop(options));
};

export const restart: CommandDefinition = (program) => {
  program
    .command('restart')
    .description('stop the running serve and start it again in the background with the same arguments (or start one, when none runs)')
    .option('--timeout <ms>', 'how long to wait for the old one to exit, in milliseconds (default: 15000)')
    .action(async (options) => (await import('../commands/restart.js')).runRestart(options));
};
