import { SECRETS_MODES, type SecretsMode, type Settings, type TaskConditions, type TaskRule } from '../../config/settings.js';
import { formatCount } from '../../core/format-numbers.js';
import { contextWindowOf } from '../../routing/context-windows.js';
import { isRoutableModelName, isSkuName, ROUTABLE_IDS, SKUS } from '../../core/model-names.js';
import { skuTypoOf } from '../../core/sku-typo.js';
import { OFFLINE_BACKEND, parseTarget } from '../../core/target.js';
import { failedError, usageError } from '../cli-error.js';
import { didYouMean } from '../did-you-mean.js';
import { chalk, printJson, printLine, printTable } from '../output.js';
import { parsePositiveInteger } from '../parse-options.js';
import { openConfig, requireStored } from '../config-in-force.js';
import type { ConfigStore } from '../../config/store.js';

export async function runRoutesSet(model: string, targets: string[], options: { contextWindow?: string; new?: boolean } = {}): Promise<void> {
  if (!isRoutableModelName(model)) {
    throw usageError(`cannot route '${model}': use an svc.* name (e.g. ${SKUS[0]}) or ${ROUTABLE_IDS}`);
  }
  const window = options.contextWindow === undefined ? undefined : parsePositiveInteger(options.contextWindow, '--context-window');
  const config = await openConfig();
  const settings = config.read();
  checkSkuName(model, settings, options.new === true);
  checkTargets(targets, settings.backends);
  config.update((settings) => {
    settings.routes[model] = targets;
    if (window !== undefined) settings.contextWindows[model] = window;
  });
  printLine(`${chalk.green('✓')} ${chalk.bold(model)} → ${targets.join(' → ')}`);
  printLine(describeWindow(config.read(), model));
}

/**
 * A route under an svc.* name that is neither a built-in SKU nor routed already makes a new SKU,
 * which takes `--new`; a near miss of a built-in SKU is refused even then (see skuTypoOf).
 */
function checkSkuName(model: string, settings: Settings, isNew: boolean): void {
  if (!isSkuName(model) || (SKUS as readonly string[]).includes(model) || Object.hasOwn(settings.routes, model)) return;
  const typo = skuTypoOf(model);
  if (typo) throw usageError(`'${model}' is not a SKU (did you mean '${typo}'?); a new SKU needs a name clearly apart from ${SKUS.join(', ')}`);
  if (!isNew) {
    throw usageError(`'${model}' is not a SKU yet${didYouMean(model, knownSkus(settings))}; to create a new SKU, add --new (SKUs: ${knownSkus(settings).join(', ')})`);
  }
}

/** The built-in SKUs and the svc.* names routed in the config. */
const knownSkus = (settings: Settings): string[] => [...new Set([...SKUS, ...Object.keys(settings.routes).filter(isSkuName)])];

/** A route (or built-in SKU) a command acts on must exist; a claude-* id or pattern need not. */
function requireRouteName(name: string, settings: Settings): void {
  if (!isSkuName(name) || knownSkus(settings).includes(name)) return;
  throw failedError(`no route is set for '${name}'${didYouMean(name, knownSkus(settings)) || howToCreate(name)}`);
}

/** The configured route a command acts on (exit 1 when there is none, or when only the file in force has it). */
function requireRoute(config: ConfigStore, model: string): void {
  const { routes } = config.read();
  requireStored(config, 'routes', model, `no route is set for '${model}'${didYouMean(model, [...Object.keys(routes), ...SKUS]) || howToCreate(model)}`);
}

/** The command that sets a route under this name, when one can. */
function howToCreate(model: string): string {
  if (!isRoutableModelName(model) || skuTypoOf(model)) return '';
  const isNew = isSkuName(model) && !(SKUS as readonly string[]).includes(model);
  return `; set one first (svc-router routes set ${model} TARGET...${isNew ? ' --new' : ''})`;
}

/**
 * Sets (or with `unset`, removes) the context window of a route (`svc.intelligent-pro`,
 * `claude-*`) or of one target (`BACKEND:UPSTREAM_MODEL`), which clients are told to compact under.
 */
export async function runRoutesWindow(name: string, tokens: string | undefined, options: { unset?: boolean } = {}): Promise<void> {
  const isTarget = !isRoutableModelName(name) && name.includes(':');
  if (!isRoutableModelName(name) && !isTarget) {
    throw usageError(`cannot set a window for '${name}': name a route (e.g. ${SKUS[0]} or 'claude-*') or a target BACKEND:UPSTREAM_MODEL (e.g. oa:gpt-4o)`);
  }
  if (!options.unset && tokens === undefined) throw usageError('give the window in tokens (e.g. 128000), or --unset');
  const window = options.unset ? undefined : parsePositiveInteger(tokens!, 'the context window');
  const config = await openConfig();
  if (!isTarget) requireRouteName(name, config.read());
  if (window === undefined) {
    requireStored(config, 'contextWindows', name, `no context window is set for '${name}'`);
    config.update((settings) => {
      delete settings.contextWindows[name];
    });
    printLine(`${chalk.green('✓')} Unset the context window of ${chalk.bold(name)}`);
  } else {
    config.update((settings) => {
      settings.contextWindows[name] = window;
    });
    printLine(`${chalk.green('✓')} ${chalk.bold(name)}: a context window of ${formatCount(window)} tokens`);
  }
  if (!isTarget) printLine(describeWindow(config.read(), name));
}

/** One line on what clients are told of a route's window. */
function describeWindow(settings: Settings, model: string): string {
  const lookup = contextWindowOf(settings, model);
  if (lookup.known) return chalk.dim(`  context window: ${formatCount(lookup.window.tokens)} tokens (${lookup.window.from})`);
  if (lookup.reason === 'offline') return chalk.dim('  context window: none (served offline)');
  return chalk.yellow(
    `  context window: unknown for ${lookup.targets.join(', ')}; clients will guess. Set it: svc-router routes window ${model} TOKENS (or for a target: svc-router routes window ${lookup.targets[0]} TOKENS)`,
  );
}

export async function runRoutesUnset(model: string): Promise<void> {
  const config = await openConfig();
  requireRoute(config, model);
  config.update((settings) => {
    delete settings.routes[model];
    // Its rules and weights go with it: they mean nothing without the route.
    delete settings.routePolicies[model];
  });
  const fallback = (SKUS as readonly string[]).includes(model) ? ` (now served by the built-in ${OFFLINE_BACKEND} backend)` : '';
  printLine(`${chalk.green('✓')} Unset the route for ${chalk.bold(model)}${fallback}`);
}

export async function runRoutesList(options: { json?: boolean }): Promise<void> {
  const config = await openConfig();
  const settings = config.read();
  const { routes, routePolicies } = settings;
  // A declarative file that sets `routes` replaces config.json's whole table: every configured route is then its.
  const from = config.overlay?.hides?.([['routes']], settings).length ? config.overlay.path : 'config.json';
  type Row = {
    model: string;
    targets: string[];
    source: 'config' | 'default';
    /** Where it comes from: config.json, the declarative file in force (its path), or built in. */
    from: string;
    contextWindow: number | null;
    rules?: TaskRule[];
    weights?: Record<string, number>;
    guardrails?: { secrets?: SecretsMode };
    search?: string;
  };
  const rows: Row[] = Object.entries(routes).map(([model, targets]) => {
    const policy = Object.hasOwn(routePolicies, model) ? routePolicies[model] : undefined;
    return {
      model,
      targets,
      source: 'config',
      from,
      contextWindow: windowTokens(settings, model),
      ...(policy?.rules?.length ? { rules: policy.rules } : {}),
      ...(policy?.weights ? { weights: { ...policy.weights } } : {}),
      ...(policy?.guardrails?.secrets ? { guardrails: { secrets: policy.guardrails.secrets } } : {}),
      ...(policy?.search ? { search: policy.search } : {}),
    };
  });
  for (const sku of SKUS) if (!Object.hasOwn(routes, sku)) rows.push({ model: sku, targets: [OFFLINE_BACKEND], source: 'default', from: 'built-in', contextWindow: null });
  if (options.json) return printJson(rows);
  const lines: string[][] = [];
  for (const row of rows) {
    const weighted = (target: string) => (row.weights?.[target] !== undefined ? `${target}×${row.weights[target]}` : target);
    lines.push([row.model, row.targets.map(weighted).join(' → '), row.contextWindow === null ? '-' : String(row.contextWindow), row.from]);
    for (const rule of row.rules ?? []) lines.push([`  rule ${rule.name}`, `${describeConditions(rule.when)}: ${rule.targets.map(weighted).join(' → ')}`, '', '']);
    if (row.guardrails?.secrets) lines.push(['  guard', `secrets: ${row.guardrails.secrets}`, '', '']);
    if (row.search) lines.push(['  search', row.search, '', '']);
  }
  printTable(lines, ['MODEL', 'TARGETS (fallback order)', 'WINDOW', 'SOURCE']);
}

export interface RuleOptions {
  background?: boolean;
  thinking?: boolean;
  contextAbove?: string;
  image?: boolean;
  webSearch?: boolean;
  model?: string;
}

/** Adds a task rule to a route (or replaces the rule of that name, in place). */
export async function runRoutesRule(model: string, name: string, targets: string[], options: RuleOptions): Promise<void> {
  const config = await openConfig();
  const settings = config.read();
  if (!/^[a-z0-9][a-z0-9_-]{0,39}$/i.test(name)) throw usageError(`rule name '${name}' is not valid: use letters, digits, '-' and '_' (up to 40)`);
  const when: TaskConditions = {};
  if (options.background) when.background = true;
  if (options.thinking) when.thinking = true;
  if (options.image) when.image = true;
  if (options.webSearch) when.webSearch = true;
  if (options.contextAbove !== undefined) when.contextAbove = parsePositiveInteger(options.contextAbove, '--context-above');
  if (options.model !== undefined) {
    if (!/^[\w.*:-]+$/.test(options.model)) throw usageError(`--model must be a model name or '*' pattern, got '${options.model}'`);
    when.model = options.model;
  }
  if (Object.keys(when).length === 0) throw usageError('a rule needs a condition: --background, --thinking, --context-above N, --image, --web-search or --model PATTERN');
  requireRoute(config, model);
  checkTargets(targets, settings.backends);
  const rule: TaskRule = { name, when, targets };
  config.update((draft) => {
    const policy = (draft.routePolicies[model] ??= {});
    const rules = (policy.rules ??= []);
    const at = rules.findIndex((existing) => existing.name === name);
    if (at === -1) rules.push(rule);
    else rules[at] = rule;
  });
  printLine(`${chalk.green('✓')} ${chalk.bold(model)} rule ${chalk.bold(name)} (${describeConditions(when)}) → ${targets.join(' → ')}`);
}

export async function runRoutesRuleRemove(model: string, name: string): Promise<void> {
  const config = await openConfig();
  requireRoute(config, model);
  const rules = config.readStored().routePolicies[model]?.rules ?? [];
  if (!rules.some((rule) => rule.name === name)) throw failedError(`route '${model}' has no rule named '${name}'${didYouMean(name, rules.map((rule) => rule.name))}`);
  config.update((draft) => {
    const policy = draft.routePolicies[model]!;
    policy.rules = policy.rules!.filter((rule) => rule.name !== name);
    if (policy.rules.length === 0) delete policy.rules;
    if (Object.keys(policy).length === 0) delete draft.routePolicies[model];
  });
  printLine(`${chalk.green('✓')} Removed rule ${chalk.bold(name)} from ${chalk.bold(model)}`);
}

/** Sets the weights that balance which target leads a route's chain (`TARGET=WEIGHT`), or with none clears them. */
export async function runRoutesWeights(model: string, pairs: string[]): Promise<void> {
  const config = await openConfig();
  const settings = config.read();
  const weights: Record<string, number> = Object.create(null) as Record<string, number>;
  for (const pair of pairs) {
    const equals = pair.lastIndexOf('=');
    const target = equals > 0 ? pair.slice(0, equals) : '';
    if (!target) throw usageError(`weights are TARGET=WEIGHT, got '${pair}'`);
    weights[target] = parsePositiveInteger(pair.slice(equals + 1), `weight of ${target}`);
  }
  requireRoute(config, model);
  checkTargets(Object.keys(weights), settings.backends);
  const known = new Set([...settings.routes[model]!, ...(settings.routePolicies[model]?.rules ?? []).flatMap((rule) => rule.targets)]);
  const strangers = Object.keys(weights).filter((target) => !known.has(target));
  if (strangers.length) throw failedError(`${strangers.join(', ')} ${strangers.length === 1 ? 'is' : 'are'} not a target of '${model}' or its rules; a weight picks among a chain's own targets`);
  config.update((draft) => {
    const policy = (draft.routePolicies[model] ??= {});
    if (pairs.length) policy.weights = { ...weights };
    else delete policy.weights;
    if (Object.keys(policy).length === 0) delete draft.routePolicies[model];
  });
  printLine(pairs.length ? `${chalk.green('✓')} ${chalk.bold(model)} balances ${pairs.join(', ')}` : `${chalk.green('✓')} ${chalk.bold(model)} has no weights`);
}

/**
 * Sets what the secrets guardrail does on one route (off, warn, mask or refuse), over the router's
 * `guardrails.secrets`; `--unset` lets the router's setting apply again.
 */
export async function runRoutesGuard(model: string, mode: string | undefined, options: { unset?: boolean } = {}): Promise<void> {
  if (!options.unset) {
    if (mode === undefined) throw usageError(`give a mode (${SECRETS_MODES.join(', ')}), or --unset`);
    if (!(SECRETS_MODES as readonly string[]).includes(mode)) throw usageError(`guard mode must be one of ${SECRETS_MODES.join(', ')}, got '${mode}'`);
  }
  const config = await openConfig();
  requireRoute(config, model);
  if (options.unset) {
    config.update((draft) => {
      const policy = draft.routePolicies[model];
      if (!policy?.guardrails) return;
      delete policy.guardrails;
      if (Object.keys(policy).length === 0) delete draft.routePolicies[model];
    });
    printLine(`${chalk.green('✓')} ${chalk.bold(model)} follows the router's guardrails.secrets (${config.read().guardrails.secrets})`);
    return;
  }
  config.update((draft) => {
    const policy = (draft.routePolicies[model] ??= {});
    policy.guardrails = { ...policy.guardrails, secrets: mode as SecretsMode };
  });
  printLine(`${chalk.green('✓')} ${chalk.bold(model)}: credentials in a request are ${GUARD_VERBS[mode as SecretsMode]}`);
}

/** Backend types whose upstream searches the web itself (Backend.nativeWebSearch). */
const SEARCHING_TYPES = new Set(['anthropic', 'openai-responses', 'gemini']);

/**
 * Names where web search runs for a route's targets that have none of their own (a target
 * `BACKEND[:UPSTREAM_MODEL]` of a type that searches natively), or with `--unset` removes it:
 * requests offering search to such a target are then refused.
 */
export async function runRoutesSearch(model: string, target: string | undefined, options: { unset?: boolean } = {}): Promise<void> {
  if (!options.unset && target === undefined) throw usageError('give the search target BACKEND[:UPSTREAM_MODEL] (a backend of type anthropic, openai-responses or gemini), or --unset');
  const config = await openConfig();
  requireRoute(config, model);
  if (options.unset) {
    config.update((draft) => {
      const policy = draft.routePolicies[model];
      if (!policy?.search) return;
      delete policy.search;
      if (Object.keys(policy).length === 0) delete draft.routePolicies[model];
    });
    printLine(`${chalk.green('✓')} ${chalk.bold(model)} has no search target: web search runs only where the upstream has its own`);
    return;
  }
  const settings = config.read();
  checkTargets([target!], settings.backends);
  const { backend } = parseTarget(target!);
  const type = backend === OFFLINE_BACKEND ? OFFLINE_BACKEND : settings.backends[backend]!.type;
  if (!SEARCHING_TYPES.has(type)) throw failedError(`'${backend}' is a ${type} backend, which has no web search of its own; name one of type ${[...SEARCHING_TYPES].join(', ')}`);
  config.update((draft) => {
    (draft.routePolicies[model] ??= {}).search = target!;
  });
  printLine(`${chalk.green('✓')} ${chalk.bold(model)}: web search runs on ${target} where the answering upstream has none of its own`);
}

const GUARD_VERBS: Record<SecretsMode, string> = {
  off: 'not looked for',
  warn: 'sent on, and named in x-svc-warning',
  mask: 'replaced by placeholders before the upstream sees them',
  refuse: 'refused with a 400',
};

function checkTargets(targets: string[], backends: Settings['backends']): void {
  for (const text of targets) {
    const target = parseTarget(text);
    if (target.backend !== OFFLINE_BACKEND && !Object.hasOwn(backends, target.backend)) {
      throw failedError(`target '${text}' names backend '${target.backend}', which does not exist${didYouMean(target.backend, Object.keys(backends))} (see svc-router backends list)`);
    }
  }
}

function describeConditions(when: TaskConditions): string {
  const parts: string[] = [];
  if (when.background) parts.push('background');
  if (when.thinking) parts.push('thinking');
  if (when.contextAbove !== undefined) parts.push(`context > ${when.contextAbove}`);
  if (when.image) parts.push('image');
  if (when.webSearch) parts.push('web search');
  if (when.model !== undefined) parts.push(`model ${when.model}`);
  return parts.join(' and ');
}

function windowTokens(settings: Settings, model: string): number | null {
  const lookup = contextWindowOf(settings, model);
  return lookup.known ? lookup.window.tokens : null;
}
