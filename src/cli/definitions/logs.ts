import type { CommandDefinition } from './definition.js';

export const logs: CommandDefinition = (program) => {
  program
    .command('logs')
    .description('show the requests serve recorded (time, caller, model, each target tried, tokens, cost, status, error), newest last')
    .option('-f, --follow', 'keep printing requests as they finish')
    .option('--since <when>', 'only requests since a duration ago (30m, 2h, 7d) or a date (2026-11-20)')
    .option('--caller <slug>', "only this developer's requests")
    .option('--status <status>', "only this status (429), class (5xx) or 'error' (400 and up)")
    .option('--session <id>', 'only the requests of this session (its id as svc-router sessions shows it, or its first characters)')
    .option('--limit <n>', 'at most this many of the newest matching requests (default: 50)')
    .option('--json', 'one JSON object per line, as stored')
    .action(async (options) => (await import('../commands/logs.js')).runLogs(options));
};
