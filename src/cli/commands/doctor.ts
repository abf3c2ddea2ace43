import path from 'node:path';
import { withDefaults, type Settings } from '../../config/settings.js';
import { BrokenFileError } from '../../files/broken-file.js';
import { usageError } from '../cli-error.js';
import { configInForce } from '../config-in-force.js';
import { checkBackends } from '../doctor/backend-checks.js';
import { checkLive } from '../doctor/live-checks.js';
import type { ServerState } from '../server-state.js';
import { checkBaseUrl } from '../doctor/base-url.js';
import { checkConfigFile, checkKey, checkReachable, checkRoutes, checkServePort, checkUsageCap, checkWhoami } from '../doctor/checks.js';
import { checkContextWindows } from '../doctor/context-windows.js';
import { DOCTOR_CLIENTS, type DoctorClient } from '../doctor/doctor-clients.js';
import { checkClient } from '../doctor/client-checks.js';
import { skip, type CheckResult } from '../doctor/result.js';
import { OFFLINE_BACKEND } from '../../core/target.js';
import { chalk, printJson, printLine } from '../output.js';
import { parseHttpUrl, parsePositiveInteger } from '../parse-options.js';
import { routerAddress } from '../router-address.js';

export interface DoctorOptions {
  baseUrl?: string;
  key?: string;
  timeout?: string;
  client?: string;
  json?: boolean;
  /** Also send a one-token request to each routed target (it costs a few tokens). */
  live?: boolean;
}

const DEFAULT_TIMEOUT_MS = 2_000;
/** A completion takes longer than a connection: the live requests' own default. */
const DEFAULT_LIVE_TIMEOUT_MS = 30_000;
/** Exit codes stay clear of the shell's own (126 and up). */
const MAX_EXIT_CODE = 100;

/**
 * Runs every check, prints one line each (with the remedy under a failure), and exits with the
 * number of failures: 0 means everything a client needs is in place.
 */
export async function runDoctor(options: DoctorOptions): Promise<void> {
  const timeoutMs = options.timeout === undefined ? DEFAULT_TIMEOUT_MS : parsePositiveInteger(options.timeout, '--timeout');
  const givenUrl = options.baseUrl ?? process.env.SVC_ROUTER_BASE_URL;
  const given = givenUrl !== undefined && givenUrl !== '';
  if (given) parseHttpUrl(givenUrl, '--base-url');
  const client = options.client;
  if (client !== undefined && !(DOCTOR_CLIENTS as readonly string[]).includes(client)) throw usageError(`--client: expected one of ${DOCTOR_CLIENTS.join(', ')}, got '${client}'`);

  const { settings, file, problem, serve } = await loadConfig();
  // Either base URL form is accepted: the OpenAI one (…/v1) and the Anthropic one (without).
  const address = routerAddress(settings, given ? { flag: givenUrl } : {});
  const root = address.origin;
  const baseUrl = given ? givenUrl.replace(/\/+$/, '') : `${root}/v1`;
  const key = options.key ?? process.env.SVC_ROUTER_KEY ?? settings.localKey;

  const keyResult = checkKey(key);
  const router = (async (): Promise<CheckResult[]> => {
    const reachable = await checkReachable(new URL(root), timeoutMs);
    if (reachable.status === 'fail') return [reachable, skip('whoami', 'skipped: the router is not reachable')];
    if (keyResult.status === 'fail') return [reachable, skip('whoami', 'skipped: no usable key (see the key check)')];
    const { result, body } = await checkWhoami(root, key!, timeoutMs);
    return body ? [reachable, result, checkUsageCap(body)] : [reachable, result];
  })();
  const [routerResults, backends, servePort] = await Promise.all([router, checkBackends(settings, { timeoutMs, ...(serve ? { serve } : {}) }), checkServePort(settings, timeoutMs)]);
  const liveTimeoutMs = options.timeout === undefined ? DEFAULT_LIVE_TIMEOUT_MS : timeoutMs;
  const live = options.live ? await checkLive(settings, backends.findings, liveTimeoutMs) : undefined;
  const backendResults = Object.keys(settings.backends).length === 0 ? [skip('backends', `none configured; the built-in ${OFFLINE_BACKEND} backend serves every SKU`)] : backends.results;

  const results: CheckResult[] = [
    keyResult,
    checkBaseUrl(baseUrl, {
      given,
      ...(client ? { client: client as DoctorClient } : {}),
      source: address.source === 'serve' ? "running serve's" : 'configured',
      ...(serve ? { serve } : {}),
      answered: routerResults.some((result) => result.id === 'whoami' && result.status === 'pass'),
    }),
    ...routerResults,
    ...(client ? checkClient(client as DoctorClient, settings, root, key) : []),
    ...backendResults,
    ...(live?.results ?? []),
    ...checkRoutes(settings, { findings: backends.findings, ...(live ? { answered: live.answered } : {}) }),
    ...checkContextWindows(settings),
    checkConfigFile(file, problem),
    servePort,
  ];
  const failures = results.filter((result) => result.status === 'fail').length;
  process.exitCode = Math.min(failures, MAX_EXIT_CODE);

  if (options.json) return printJson({ base_url: baseUrl, failures, checks: results });
  printLine(`svc-router doctor: ${baseUrl}`);
  const width = Math.max(...results.map((result) => result.id.length));
  for (const result of results) {
    const mark = result.status === 'pass' ? chalk.green('✓') : result.status === 'fail' ? chalk.red('✗') : result.status === 'warn' ? chalk.yellow('!') : chalk.dim('-');
    const message = result.status === 'skip' ? chalk.dim(result.message) : result.message;
    printLine(`${mark} ${result.id.padEnd(width)}  ${message}`);
    if (result.remedy) printLine(`  ${' '.repeat(width)}  ${chalk.yellow('fix:')} ${result.remedy}`);
  }
  printLine();
  printLine(failures === 0 ? chalk.green('No problems found.') : chalk.red(`${failures} problem${failures === 1 ? '' : 's'} found.`));
}

/**
 * The settings in force (the running serve's declarative file over config.json, unless
 * SVC_ROUTER_CONFIG names another), or the defaults and what is wrong when they cannot be read.
 */
async function loadConfig(): Promise<{ settings: Settings; file: string; problem?: string; serve?: ServerState }> {
  let config;
  try {
    config = await configInForce();
    const settings = config.store.read();
    return { settings, file: config.store.path, ...(config.serve ? { serve: config.serve } : {}) };
  } catch (error) {
    const home = process.env.SVC_ROUTER_HOME;
    const file = config?.file ?? (home ? path.join(path.resolve(home), 'config.json') : 'config.json');
    // `cannot be read: line 3, column 7: syntax error: …` (the check names the file first).
    const where = error instanceof BrokenFileError ? error.message.split(`${error.file} `).join('') : (error as Error).message;
    return { settings: storedOrDefaults(config), file, problem: `cannot be read: ${where}`, ...(config?.serve ? { serve: config.serve } : {}) };
  }
}

/** config.json's own settings when only the declarative file over it failed (the local key is there), else the defaults. */
function storedOrDefaults(config: Awaited<ReturnType<typeof configInForce>> | undefined): Settings {
  try {
    if (config?.file) return config.store.readStored();
  } catch {
    // config.json cannot be read either
  }
  return withDefaults({});
}
