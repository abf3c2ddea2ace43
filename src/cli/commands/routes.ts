import { ConfigStore } from '../../config/store.js';
import { isRoutableModelName } from '../../routing/resolve-route.js';
import { OFFLINE_BACKEND, SKUS } from '../../routing/skus.js';
import { parseTarget } from '../../routing/target.js';
import { usageError } from '../cli-error.js';
import { chalk, printJson, printLine, printTable } from '../output.js';

export function runRoutesSet(model: string, targets: string[]): void {
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
  config.update((settings) => {
    settings.routes[model] = targets;
  });
  printLine(`${chalk.green('✓')} ${chalk.bold(model)} → ${targets.join(' → ')}`);
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
  const { routes } = new ConfigStore().read();
  const rows: Array<{ model: string; targets: string[]; source: 'config' | 'default' }> = Object.entries(routes).map(([model, targets]) => ({
    model,
    targets,
    source: 'config',
  }));
  for (const sku of SKUS) if (!(sku in routes)) rows.push({ model: sku, targets: [OFFLINE_BACKEND], source: 'default' });
  if (options.json) return printJson(rows);
  printTable(rows.map((row) => [row.model, row.targets.join(' → '), row.source]), ['MODEL', 'TARGETS (fallback order)', 'SOURCE']);
}
