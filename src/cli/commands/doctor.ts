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

  const { settings, file, problem, serve, storedReadable } = await loadConfig();
  // When config.json cannot be read, what it holds (the stored key, the address, backends and
  // routes) is not known: those checks are skipped, not judged on the defaults. A running serve
  // routes with the last version it read meanwhile.
  const unknown = (what: string): string =>
    `skipped: ${what} ${storedReadable ? `the declarative file ${file}` : file}, which cannot be read${serve ? `; the running serve (pid ${serve.pid}) routes with the last version it read` : ''}`;
  // Either base URL form is accepted: the OpenAI one (…/v1) and the Anthropic one (without).
  const address = routerAddress(settings, given ? { flag: givenUrl } : {});
  const root = address.origin;
  const baseUrl = given ? givenUrl.replace(/\/+$/, '') : `${root}/v1`;
  const givenKey = options.key ?? process.env.SVC_ROUTER_KEY;
  const key = givenKey ?? (problem && !storedReadable ? undefined : settings.localKey);
  const addressKnown = !(problem && !storedReadable) || address.source !== 'config';

  const keyResult = key === undefined && problem && !storedReadable ? skip('key', `${unknown('the stored key is in')}; --key checks one`) : checkKey(key);
  const router = (async (): Promise<CheckResult[]> => {
    if (!addressKnown) return [skip('reachable', `${unknown("the router's address is in")}; --base-url checks one`), skip('whoami', 'skipped: the router\'s address is not known')];
    const reachable = await checkReachable(new URL(root), timeoutMs);
    if (reachable.status === 'fail') return [reachable, skip('whoami', 'skipped: the router is not reachable')];
    if (keyResult.status !== 'pass') return [reachable, skip('whoami', 'skipped: no usable key (see the key check)')];
    const { result, body } = await checkWhoami(root, key!, timeoutMs);
    return body ? [reachable, result, checkUsageCap(body)] : [reachable, result];
  })();
  const readable = problem === undefined;
  const [routerResults, backends, servePort] = await Promise.all([
    router,
    readable ? checkBackends(settings, { timeoutMs, ...(serve ? { serve } : {}) }) : undefined,
    readable ? checkServePort(settings, timeoutMs) : skip('serve-port', unknown('server.port is in')),
  ]);
  const liveTimeoutMs = options.timeout === undefined ? DEFAULT_LIVE_TIMEOUT_MS : timeoutMs;
  const live = options.live && backends ? await checkLive(settings, backends.findings, liveTimeoutMs) : undefined;
  // The WebSocket client loads only when a backend asks for WebSocket mode.
  const sockets = backends && Object.values(settings.backends).some((backend) => backend.websocket) ? await (await import('../doctor/websocket-check.js')).checkSocketUpstreams(settings, backends.findings, timeoutMs) : [];
  const configured = (): CheckResult[] => {
    if (!backends) return [skip('backends', unknown('the backends are in')), skip('routes', unknown('the routes are in'))];
    const backendResults = Object.keys(settings.backends).length === 0 ? [skip('backends', `none configured; the built-in ${OFFLINE_BACKEND} backend serves every SKU`)] : backends.results;
    return [...backendResults, ...sockets, ...(live?.results ?? []), ...checkRoutes(settings, { findings: backends.findings, ...(live ? { answered: live.answered } : {}) }), ...checkContextWindows(settings)];
  };
  const clientResults = (): CheckResult[] => {
    if (!client) return [];
    return readable ? checkClient(client as DoctorClient, settings, root, key) : [skip(`client:${client}`, unknown('what it is checked against is in'))];
  };

  const configFile = checkConfigFile(file, problem, serve);
  const results: CheckResult[] = [
    // The cause first: every other line depends on the file.
    ...(readable ? [] : [configFile]),
    keyResult,
    checkBaseUrl(baseUrl, {
      given,
      ...(client ? { client: client as DoctorClient } : {}),
      source: address.source === 'serve' ? "running serve's" : 'configured',
      ...(serve ? { serve } : {}),
      answered: routerResults.some((result) => result.id === 'whoami' && result.status === 'pass'),
    }),
    ...routerResults,
    ...clientResults(),
    ...configured(),
    ...(readable ? [configFile] : []),
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
async function loadConfig(): Promise<{ settings: Settings; file: string; problem?: string; serve?: ServerState; storedReadable: boolean }> {
  let config;
  try {
    config = await configInForce();
    const settings = config.store.read();
    return { settings, file: config.store.path, ...(config.serve ? { serve: config.serve } : {}), storedReadable: true };
  } catch (error) {
    const home = process.env.SVC_ROUTER_HOME;
    const file = config?.file ?? (home ? path.join(path.resolve(home), 'config.json') : 'config.json');
    // `cannot be read: line 3, column 7: syntax error: …` (the check names the file first).
    const where = error instanceof BrokenFileError ? error.message.split(`${error.file} `).join('') : (error as Error).message;
    const stored = readStored(config);
    return { settings: stored ?? withDefaults({}), file, problem: `cannot be read: ${where}`, ...(config?.serve ? { serve: config.serve } : {}), storedReadable: stored !== undefined };
  }
}

/** config.json's own settings when only the declarative file over it failed (the local key is there). */
function readStored(config: Awaited<ReturnType<typeof configInForce>> | undefined): Settings | undefined {
  try {
    if (config?.file) return config.store.readStored();
  } catch {
    // config.json cannot be read either
  }
  return undefined;
}
