import { SECRETS_MODES } from '../../config/settings.js';
import { SKUS } from '../../core/model-names.js';
import { completeArguments } from '../completion-hints.js';
import type { CommandDefinition } from './definition.js';

export const routes: CommandDefinition = (program) => {
  const routes = program.command('routes').description('map models to backends');
  completeArguments(routes.command('set <model> <targets...>'), 'route-models', 'targets')
    .description(`route a model (${SKUS.join(', ')}, or a pattern such as 'claude-*') to BACKEND[:UPSTREAM_MODEL] targets, in fallback order`)
    .option('--context-window <tokens>', "the route's context window (default: the smallest of its targets' known model families)")
    .option('--new', 'create a new svc.* SKU (without it, an svc.* name must be a built-in SKU or an existing route)')
    .action(async (model, targets, options) => (await import('../commands/routes.js')).runRoutesSet(model, targets, options));
  completeArguments(routes.command('window <name> [tokens]'), 'route-models')
    .description('set the context window clients are told for a route, or for a target BACKEND:UPSTREAM_MODEL')
    .option('--unset', 'remove the set window (the model catalog\'s applies again)')
    .action(async (name, tokens, options) => (await import('../commands/routes.js')).runRoutesWindow(name, tokens, options));
  routes
    .command('list')
    .description('list routes, including the offline defaults')
    .option('--json', 'print JSON')
    .action(async (options) => (await import('../commands/routes.js')).runRoutesList(options));
  completeArguments(routes.command('rule <model> <name> <targets...>'), 'route-models', undefined, 'targets')
    .description('add (or replace) a task rule: requests to the route that match every condition given go to these targets')
    .option('--background', 'the client asked for a small model (*haiku*), as for background work')
    .option('--thinking', 'thinking is on (a budget, or an effort above minimal)')
    .option('--context-above <tokens>', 'the estimated input is above this many tokens')
    .option('--image', 'an image is in the conversation')
    .option('--web-search', 'the request offers a web search tool')
    .option('--model <pattern>', "the client's model name matches this '*' pattern")
    .action(async (model, name, targets, options) => (await import('../commands/routes.js')).runRoutesRule(model, name, targets, options));
  completeArguments(routes.command('rule-remove <model> <name>'), 'route-models')
    .description("remove a route's task rule")
    .action(async (model, name) => (await import('../commands/routes.js')).runRoutesRuleRemove(model, name));
  completeArguments(routes.command('weights <model> [pairs...]'), 'route-models')
    .description('balance which target leads the chain: TARGET=WEIGHT pairs (none: clear the weights)')
    .action(async (model, pairs) => (await import('../commands/routes.js')).runRoutesWeights(model, pairs));
  completeArguments(routes.command('guard <model> [mode]'), 'route-models', { words: SECRETS_MODES })
    .description("what the secrets guardrail does on this route's requests: off, warn, mask or refuse, over the router's guardrails.secrets")
    .option('--unset', "follow the router's guardrails.secrets again")
    .action(async (model, mode, options) => (await import('../commands/routes.js')).runRoutesGuard(model, mode, options));
  completeArguments(routes.command('search <model> [target]'), 'route-models')
    .description('where web search runs for targets without their own: BACKEND[:MODEL] of type anthropic, openai-responses or gemini')
    .option('--unset', 'remove the search target (requests offering search to such targets are refused)')
    .action(async (model, target, options) => (await import('../commands/routes.js')).runRoutesSearch(model, target, options));
  completeArguments(routes.command('unset <model>'), 'route-models')
    .description('remove a route')
    .action(async (model) => (await import('../commands/routes.js')).runRoutesUnset(model));
};
