import type { Settings } from '../../config/settings.js';
import { ConfigStore } from '../../config/store.js';
import { contextWindowOf } from '../../routing/context-windows.js';
import { isRoutableModelName } from '../../routing/resolve-route.js';
import { OFFLINE_BACKEND, SKUS } from '../../routing/skus.js';
import { parseTarget } from '../../routing/target.js';
import { usageError } from '../cli-error.js';
import { chalk, printJson, printLine, printTable } from '../output.js';
import { parsePositiveInteger } from '../parse-options.js';

export function runRoutesSet(model: string, targets: string[], options: { contextWindow?: string } = {}): void {
  if (!isRoutableModelName(model)) {
    throw usageError(`cannot route '${model}': use an svc.* name (e.g. ${SKUS[0]}) or a claude-* id or pattern (e.g. 'claude-*')`);
  }
  const config = new ConfigStore();
  const { backends } = config.read();
  for (const text of targets) {
    const target = parseTarget(text);
    if (target.backend !== OFFLINE_BACKEND && !(target.backend in backends)) {
      throw usageError(`route target '${text}' names backend '${target.backend}', which does not exist (see svc-router backends list)`);
    }
  }
  const window = options.contextWindow === undefined ? undefined : parsePositiveInteger(options.contextWindow, '--context-window');
  config.update((settings) => {
    settings.routes[model] = targets;
    if (window !== undefined) settings.contextWindows[model] = window;
  });
  printLine(`${chalk.green('✓')} ${chalk.bold(model)} → ${targets.join(' → ')}`);
  printLine(describeWindow(new ConfigStore().read(), model));
}

/**
 * Sets (or with `unset`, removes) the context window of a route (`svc.intelligent-pro`,
 * `claude-*`) or of one target (`BACKEND:UPSTREAM_MODEL`), which clients are told to compact under.
 */
export function runRoutesWindow(name: string, tokens: string | undefined, options: { unset?: boolean } = {}): void {
  const isTarget = !isRoutableModelName(name) && name.includes(':');
  if (!isRoutableModelName(name) && !isTarget) {
    throw usageError(`cannot set a window for '${name}': name a route (e.g. ${SKUS[0]} or 'claude-*') or a target BACKEND:UPSTREAM_MODEL (e.g. oa:gpt-4o)`);
  }
  const config = new ConfigStore();
  if (options.unset) {
    if (!Object.hasOwn(config.read().contextWindows, name)) throw usageError(`no context window is set for '${name}'`);
    config.update((settings) => {
      delete settings.contextWindows[name];
    });
    printLine(`${chalk.green('✓')} Unset the context window of ${chalk.bold(name)}`);
  } else {
    if (tokens === undefined) throw usageError('give the window in tokens (e.g. 128000), or --unset');
    const window = parsePositiveInteger(tokens, 'the context window');
    config.update((settings) => {
      settings.contextWindows[name] = window;
    });
    printLine(`${chalk.green('✓')} ${chalk.bold(name)}: a context window of ${window.toLocaleString('en-US')} tokens`);
  }
  if (!isTarget) printLine(describeWindow(config.read(), name));
}

/** One line on what clients are told of a route's window. */
function describeWindow(settings: Settings, model: string): string {
  const lookup = contextWindowOf(settings, model);
  if (lookup.known) return chalk.dim(`  context window: ${lookup.window.tokens.toLocaleString('en-US')} tokens (${lookup.window.source === 'config' ? 'set' : 'the model family\'s'})`);
  if (lookup.reason === 'offline') return chalk.dim('  context window: none (served offline)');
  return chalk.yellow(
    `  context window: unknown for ${lookup.targets.join(', ')}; clients will guess. Set it: svc-router routes window ${model} TOKENS (or for a target: svc-router routes window ${lookup.targets[0]} TOKENS)`,
  );
}

export function runRoutesUnset(model: string): void {
  const config = new ConfigStore();
  if (!(model in config.read().routes)) throw usageError(`no route is set for '${model}'`);
  config.update((settings) => {
    delete settings.routes[model];
  });
  const fallback = (SKUS as readonly string[]).includes(model) ? ` (now served by the built-in ${OFFLINE_BACKEND} backend)` : '';
  printLine(`${chalk.green('✓')} Unset the route for ${chalk.bold(model)}${fallback}`);
}

export function runRoutesList(options: { json?: boolean }): void {
  const settings = new ConfigStore().read();
  const { routes } = settings;
  const rows: Array<{ model: string; targets: string[]; source: 'config' | 'default'; contextWindow: number | null }> = Object.entries(routes).map(
    ([model, targets]) => ({ model, targets, source: 'config', contextWindow: windowTokens(settings, model) }),
  );
  for (const sku of SKUS) if (!Object.hasOwn(routes, sku)) rows.push({ model: sku, targets: [OFFLINE_BACKEND], source: 'default', contextWindow: null });
  if (options.json) return printJson(rows);
  printTable(
    rows.map((row) => [row.model, row.targets.join(' → '), row.contextWindow === null ? '-' : String(row.contextWindow), row.source]),
    ['MODEL', 'TARGETS (fallback order)', 'WINDOW', 'SOURCE'],
  );
}

function windowTokens(settings: Settings, model: string): number | null {
  const lookup = contextWindowOf(settings, model);
  return lookup.known ? lookup.window.tokens : null;
}
