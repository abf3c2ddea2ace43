import type { CommandDefinition } from './definition.js';

export const sessions: CommandDefinition = (program) => {
  program
    .command('sessions')
    .description(
      "each session the running router served: client, route, target and pooled key, turns, tokens, cache-hit share, cost, duration, and every turn whose cached share dropped with the reason the router saw (needs an admin key)",
    )
    .option('--base-url <url>', "the router to ask: sessions live in its memory (env SVC_ROUTER_BASE_URL; default: the running serve's address)")
    .option('--key <key>', 'key to send (env SVC_ROUTER_KEY; default: the stored local key)')
    .option('--json', 'print the report as GET /admin/sessions returns it')
    .action(async (options) => (await import('../commands/sessions.js')).runSessions(options));
};
