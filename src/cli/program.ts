import { Command } from 'commander';
import { backends } from './definitions/backends.js';
import { doctor, connect, env } from './definitions/clients.js';
import { completion } from './definitions/completion.js';
import { config } from './definitions/config.js';
import type { CommandDefinition } from './definitions/definition.js';
import { init, keys } from './definitions/keys.js';
import { restart, status, stop } from './definitions/lifecycle.js';
import { logs } from './definitions/logs.js';
import { prices } from './definitions/prices.js';
import { chat, models, usage, whoami } from './definitions/quick-checks.js';
import { routes } from './definitions/routes.js';
import { serve } from './definitions/serve.js';
import { sessions } from './definitions/sessions.js';
import { addExamples } from './help-examples.js';

/**
 * Every command, in the order --help, the reference and the completion scripts list them. Adding
 * one is a definition in src/cli/definitions/ (its options, and an action that imports its module
 * when it runs) and a line here; its --help examples go in help-examples.ts.
 */
export const COMMANDS: readonly CommandDefinition[] = [
  serve,
  logs,
  status,
  stop,
  restart,
  init,
  keys,
  backends,
  routes,
  prices,
  config,
  whoami,
  usage,
  sessions,
  models,
  chat,
  env,
  doctor,
  connect,
  completion,
];

/** The whole command tree. Actions import their modules only when they run, so `--help` loads nothing but the definitions. */
export function buildProgram(version: string): Command {
  const program = new Command('svc-router')
    .description('A local router for LLM traffic: OpenAI Chat, OpenAI Responses, Anthropic Messages and the Gemini API on one port.')
    .version(version, '-V, --version')
    .addHelpText('after', `\nExit codes: 0 ok · 1 request refused or operation failed · 2 usage · 3 not running (status) · 4 server unreachable.\nWith --json, errors are one JSON object on stderr: {"error":{"code","message","exit_code",…}}. See docs/cli.md.\n`);
  for (const define of COMMANDS) define(program);
  addExamples(program);
  return program;
}
