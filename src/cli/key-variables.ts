import type { Settings } from '../config/settings.js';
import { OFFLINE_BACKEND, parseTarget } from '../core/target.js';
import type { ServerState } from './server-state.js';

/** A variable a backend reads its key from: its own (`apiKeyEnv`) or one of its pool's. */
export interface KeyVariable {
  backend: string;
  variable: string;
  pooled: boolean;
}

/** Every variable the backends in force read keys from. A pool replaces the backend's own key, so then only the pool's count. */
export function keyVariables(settings: Settings): KeyVariable[] {
  return Object.entries(settings.backends).flatMap(([backend, config]): KeyVariable[] => {
    if (config.keyPool?.keys.length) {
      return config.keyPool.keys.flatMap((key) => ('apiKeyEnv' in key ? [{ backend, variable: key.apiKeyEnv, pooled: true }] : []));
    }
    return config.apiKey === undefined && config.apiKeyEnv !== undefined ? [{ backend, variable: config.apiKeyEnv, pooled: false }] : [];
  });
}

/** The variables of `names` that are set (non-empty) in `env`, and those that are not: names only, never values. */
export function splitSet(names: Iterable<string>, env: NodeJS.ProcessEnv = process.env): { set: string[]; unset: string[] } {
  const unique = [...new Set(names)].sort();
  return { set: unique.filter((name) => Boolean(env[name])), unset: unique.filter((name) => !env[name]) };
}

/** Every variable set (non-empty) in `env`, by name: what a serve records of the environment it runs with. */
export const namesSet = (env: NodeJS.ProcessEnv = process.env): string[] => Object.keys(env).filter((name) => Boolean(env[name])).sort();

/**
 * Whether the running serve has a variable: its environment is the one it started with, whatever
 * the shell asking has. Undefined when its state file does not say (a serve of an older build,
 * and a variable its settings did not name when it started).
 */
export function serveHas(serve: ServerState, variable: string): boolean | undefined {
  const environment = serve.environment;
  if (!environment) return undefined;
  if (environment.set.includes(variable)) return true;
  if (environment.unset.includes(variable)) return false;
  return environment.all ? environment.all.includes(variable) : undefined;
}

/** What serveEnvironment puts for a variable the running serve has and this shell does not: its value cannot be read from here. */
export const SERVE_ONLY = '\u0000set in the running serve';

/**
 * The environment as the running serve sees it, as far as its state file tells (names only): a
 * variable it lacks is left out though this shell sets it, and one only it has stands as
 * SERVE_ONLY. Without a serve (or a state file that names no variables), this shell's.
 */
export function serveEnvironment(serve: ServerState | undefined, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const all = serve?.environment?.all;
  if (!all) return env;
  return Object.fromEntries(all.map((name) => [name, env[name] || SERVE_ONLY]));
}

/**
 * What a running serve lacks of the key variables a changed backend names, as one warning: the
 * change is in force at once, but its key is read from the serve's environment.
 */
export function serveLacksWarning(serve: ServerState | undefined, backend: string, variables: readonly string[]): string | undefined {
  if (!serve) return undefined;
  const lacking = variables.filter((variable) => serveHas(serve, variable) !== true);
  if (!lacking.length) return undefined;
  const names = lacking.map((name) => `$${name}`).join(', ');
  const plural = lacking.length > 1;
  const known = lacking.every((variable) => serveHas(serve, variable) === false);
  const lacks = known ? `does not have ${names} (${plural ? 'they were' : 'it was'} not set when it started)` : `may not have ${names} (its state file does not say)`;
  return `the running serve (pid ${serve.pid}) reads keys from its own environment, and ${lacks}: requests routed to '${backend}' fail with 502 until you set ${plural ? 'them' : 'it'} in a shell and run svc-router restart from it`;
}

/** The routes (and task rules) that send requests to a backend. */
function routesUsing(settings: Settings, backend: string): string[] {
  if (backend === OFFLINE_BACKEND) return [];
  const uses = (targets: unknown) => Array.isArray(targets) && targets.some((target) => parseTarget(String(target)).backend === backend);
  return Object.entries(settings.routes)
    .filter(([model, targets]) => uses(targets) || (Object.hasOwn(settings.routePolicies, model) && (settings.routePolicies[model]!.rules ?? []).some((rule) => uses(rule.targets))))
    .map(([model]) => model);
}

/**
 * One warning per backend whose key variable is not set here: every request routed to it would
 * fail with 502 (a pool goes on with the keys it has).
 */
export function unsetKeyWarnings(settings: Settings, env: NodeJS.ProcessEnv = process.env): string[] {
  const byBackend = new Map<string, { missing: string[]; pooled: number }>();
  for (const { backend, variable, pooled } of keyVariables(settings)) {
    const entry = byBackend.get(backend) ?? { missing: [], pooled: 0 };
    if (pooled) entry.pooled++;
    if (!env[variable]) entry.missing.push(variable);
    byBackend.set(backend, entry);
  }
  const warnings: string[] = [];
  for (const [backend, { missing, pooled }] of byBackend) {
    if (!missing.length) continue;
    const routes = routesUsing(settings, backend);
    const used = routes.length ? `routes ${routes.join(', ')}` : 'no route yet';
    const names = missing.map((name) => `$${name}`).join(', ');
    const stored = settings.backends[backend]?.keyPool?.keys.filter((key) => 'apiKey' in key).length ?? 0;
    const left = pooled + stored - missing.length;
    warnings.push(
      pooled && left > 0
        ? `backend '${backend}' (${used}): ${names} ${missing.length > 1 ? 'are' : 'is'} not set, so its pool has ${left} key(s) of ${pooled + stored}`
        : `backend '${backend}' (${used}) takes its key from ${names}, which ${missing.length > 1 ? 'are' : 'is'} not set here: every request routed to it fails with 502. Set it and restart serve.`,
    );
  }
  return warnings;
}
