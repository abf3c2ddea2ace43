import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { loadScript } from '../../backends/offline/script.js';
import { newSealingSecret, type Settings } from '../../config/settings.js';
import { slugOfKey } from '../../core/router-keys.js';
import { whitespaceIn } from '../../identity/key-whitespace.js';
import { confConfigDirectory } from '../../config/conf-location.js';
import { ConfigStore } from '../../config/store.js';
import { createApp } from '../../handlers/app.js';
import { formatCount } from '../../core/format-numbers.js';
import { isMissingPackage, MissingDependencyError } from '../../core/optional-dependency.js';
import { usageStoreProblem } from '../../usage/open-ledger.js';
import { createHttpServer } from '../../server/http-server.js';
import { loadEndpointHandlers } from '../../server/endpoints.js';
import { loadPriceTable } from '../../catalog/price-package.js';
import { createRequestLog, LOG_FORMATS, type LogFormat } from '../../server/request-log.js';
import { createRequestStore, fanOut } from '../../server/request-store.js';
import { SKUS } from '../../core/model-names.js';
import { CliError, EXIT_FAILED, usageError } from '../cli-error.js';
import { keepRunningWhenOutputCloses } from '../closed-output.js';
import { isLoopbackHost } from '../loopback.js';
import { chalk, printLine, warn } from '../output.js';
import { DETACHED_ENV, reportListening, serveArgsFromArgv, startDetached } from '../detach.js';
import { DEFAULT_LOG_KEEP, DEFAULT_LOG_MAX_BYTES, redirectOutputTo, RotatingLogFile } from '../log-file.js';
import { outputTarget } from '../output-target.js';
import { parsePort, parsePositiveInteger } from '../parse-options.js';
import { claimServerState, displayUsageStore, findServer, removeServerState, type ServerState } from '../server-state.js';
import { keyVariables, namesSet, splitSet, unsetKeyWarnings } from '../key-variables.js';
import { loadTlsIdentity } from '../tls-files.js';
import { envLines } from './env.js';
import { hostForUrl } from '../router-origin.js';
import { initialise } from './init.js';

export interface ServeOptions {
  host?: string;
  port?: string;
  offlineScript?: string;
  usageStore?: string;
  logFormat?: string;
  quiet?: boolean;
  logBodies?: boolean;
  metrics?: boolean;
  ui?: boolean;
  /** `--otel` alone (true), or `--otel URL`. */
  otel?: boolean | string;
  config?: string;
  tlsCert?: string;
  tlsKey?: string;
  detach?: boolean;
  logFile?: string;
  logMaxSize?: string;
  logKeep?: string;
}

/** Where a background serve logs when no --log-file is given: beside its state file. */
export const DEFAULT_DETACHED_LOG = 'serve.log';

/** How long in-flight requests may run on after SIGINT/SIGTERM before their sockets are closed. */
const SHUTDOWN_GRACE_MS = 10_000;

export async function runServe(options: ServeOptions): Promise<void> {
  // Two serves on one config directory would share one state file: the second is refused, naming the first.
  const running = findServer();
  if (running.status === 'running' && running.state.pid !== process.pid) throw alreadyRunning(running.state, path.dirname(running.file));
  if (options.detach) return runDetached(options);
  // `serve | head -1`, or a closed terminal: the banner and log are dropped, the server serves on.
  keepRunningWhenOutputCloses();
  const config = await openConfig(options.config);
  let settings = config.read();
  // Said before it listens, so that `serve --detach` relays it to the terminal too.
  for (const line of unsetVariableWarnings(settings, config)) warn(line);
  const logFile = options.logFile === undefined ? undefined : openLogFile(options);
  const tls = loadTlsIdentity(options, settings.server);
  const host = options.host ?? settings.server.host;
  const port = options.port === undefined ? settings.server.port : parsePort(options.port);
  const logFormat = (options.logFormat ?? 'text') as LogFormat;
  if (!LOG_FORMATS.includes(logFormat)) throw usageError(`--log-format: expected one of ${LOG_FORMATS.join(', ')}, got '${options.logFormat}'`);
  let offlineScript;
  try {
    offlineScript = options.offlineScript ? loadScript(options.offlineScript) : undefined;
  } catch (error) {
    throw usageError((error as Error).message);
  }
  if (settings.localKey && whitespaceIn(settings.localKey)) {
    warn(`the stored key (localKey in ${config.path}) holds whitespace: clients given it are refused (401). Remove the whitespace from the file.`);
  }
  if (!settings.localKey) {
    // Zero configuration: the first serve issues the local developer's key, as init would.
    const { developer } = initialise(config, {});
    printLine(`${chalk.green('✓')} First run: issued a local key for ${chalk.bold(developer)} (stored in ${config.path})`);
    settings = config.read();
  } else if (!settings.secret) {
    settings = config.update((draft) => void (draft.secret = newSealingSecret()));
  }

  const storeProblem = options.usageStore === undefined ? undefined : usageStoreProblem(options.usageStore);
  if (storeProblem) throw usageError(`--usage-store: ${storeProblem}`);
  const metricsOn = options.metrics === true || settings.server.metrics === true;
  const metrics = metricsOn ? new (await loadMetrics()).RouterMetrics() : undefined;
  const app = createApp({
    config,
    offlineScript,
    ...(options.usageStore ? { usageStore: options.usageStore } : {}),
    ...(metrics ? { wrapBackend: metrics.wrapBackend } : {}),
  });
  // What other commands load on first use is loaded now, so that the first request does not wait for it.
  await loadEndpointHandlers();
  loadPriceTable();
  const uiOn = options.ui === true || settings.server.ui === true;
  const ui = uiOn ? (await import('../../server/dashboard/dashboard.js')).createDashboard() : undefined;
  const otelOn = options.otel !== undefined || settings.server.otel === true;
  const otel = otelOn ? await startOtelExport(typeof options.otel === 'string' ? options.otel : undefined, config) : undefined;
  // The one request log the server calls per finished request: standard error and the searchable
  // store (not with --quiet), the dashboard's live feed (with --ui) and OpenTelemetry (with --otel).
  const requestLog = fanOut([
    ...(options.quiet
      ? []
      : [
          createRequestLog({ format: logFormat, color: !logFile && logColour(), logBodies: options.logBodies ?? false }),
          createRequestStore({ dir: config.dir, retentionDays: settings.server.requestLogDays, maxBytes: settings.server.requestLogMaxBytes, logBodies: options.logBodies ?? false }),
        ]),
    ...(ui ? [ui.feed] : []),
    ...(otel ? [otel.log] : []),
  ]);
  const server = createHttpServer(app, { ...(requestLog ? { requestLog } : {}), ...(metrics ? { metrics } : {}), ...(tls ? { tls } : {}), ...(ui ? { ui } : {}) });
  // Whatever is still queued reaches the log however the process ends.
  if (requestLog) process.on('exit', () => requestLog.flush());
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
  } catch (error) {
    await app.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw await portInUse(host, port, config.dir);
    throw new CliError(`cannot listen on ${host}:${port}: ${(error as Error).message}`, EXIT_FAILED);
  }

  const address = server.address() as AddressInfo;
  const origin = `${tls ? 'https' : 'http'}://${hostForUrl(host)}:${address.port}`;
  const detached = process.env[DETACHED_ENV] === '1';
  if (logFile && !detached && process.stdout.isTTY === true) {
    // On a terminal, the banner with the key is for the user; the log file gets it without. Output
    // that is not a terminal (a service manager's journal) is a log too, and gets nothing.
    printBanner(origin, settings.localKey!, settings, offlineScript !== undefined);
    printLine(`  Log: ${logFile.file} (requests, and everything below)`);
  }
  // Where the output went before any --log-file takes it: what status tells of this serve.
  const output = outputTarget();
  // Startup problems were told on the terminal; from here on, everything goes to the log file.
  if (logFile) redirectOutputTo(logFile);
  const usageStore = options.usageStore ?? settings.usage.store;
  const variables = splitSet([...keyVariables(settings).map((entry) => entry.variable), ...(config.overlay?.variables?.() ?? [])]);
  const other = claimServerState(
    {
      pid: process.pid,
      host: address.address,
      port: address.port,
      url: origin,
      usageStore: displayUsageStore(usageStore),
      ...(usageStore === 'file' ? {} : { usageStoreUrl: usageStore }),
      startedAt: new Date().toISOString(),
      argv: serveArgsFromArgv(),
      cwd: process.cwd(),
      ...(logFile ? { logFile: logFile.file } : {}),
      ...(output ? { output } : {}),
      ...(tls ? { tls: tls.files } : {}),
      detached,
      ...(config.overlay ? { config: config.overlay.path } : {}),
      environment: { ...variables, all: namesSet() },
    },
    config.dir,
  );
  if (other) {
    // Another serve of this directory claimed it first (both started at once): this one stops.
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await app.close();
    throw alreadyRunning(other, config.dir);
  }
  // However the process ends (a signal, an uncaught error), it no longer claims to be running.
  process.on('exit', () => removeServerState(process.pid, config.dir));
  printBanner(origin, settings.localKey!, settings, offlineScript !== undefined, { maskKey: logFile !== undefined });
  printCap(settings);
  if (metrics) printLine(`  Metrics (Prometheus): ${origin}/metrics`);
  if (otel) printLine(`  OpenTelemetry: a span per request to ${otel.url}`);
  if (tls) printLine(`  TLS: certificate ${tls.files.cert}; clients that do not trust its CA need it, e.g. NODE_EXTRA_CA_CERTS=/path/to/ca.pem`);
  // The address actually bound decides, so a name that resolves to loopback counts as loopback.
  const loopback = isLoopbackHost(address.address);
  if (ui) {
    ui.requireAdminKey = !loopback;
    // The config in force is the stored one with this serve's flags over it.
    ui.inForce = {
      server: { host, port: address.port, ui: true, metrics: metricsOn, otel: otelOn, ...(tls ? { tls: tls.files } : {}) },
      usageStore,
    };
    printLine(`  Dashboard: ${origin}/ui${loopback ? '' : ' (asks for an admin key: the local key, or one issued with --tier admin)'}`);
  }
  // Beyond loopback, a browser or scraper elsewhere names the router as it knows it: that name must be listed.
  if ((ui || metrics) && !loopback && !(Array.isArray(settings.server.hosts) && settings.server.hosts.length > 0)) {
    printLine(chalk.dim('  The dashboard, /admin and /metrics answer only to loopback names and the address bound; list the names other machines use: svc-router config set server.hosts NAME (a comma-separated list)'));
  }
  printLine(chalk.dim(detached ? 'Stop it with `svc-router stop`.' : 'Stop with Ctrl-C, or `svc-router stop` from another terminal.'));
  reportListening({ pid: process.pid, url: origin, logFile: logFile?.file ?? '' });
  if (!loopback) warn(`listening on ${host}, reachable from other machines: anyone with a key can use your backends.`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      // A second signal does not wait for in-flight requests.
      server.closeAllConnections();
      return;
    }
    stopping = true;
    printLine(chalk.dim(`${signal}: finishing in-flight requests (up to ${SHUTDOWN_GRACE_MS / 1000} s; again to stop now)…`));
    const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    force.unref();
    server.close(async () => {
      clearTimeout(force);
      await app.close();
      requestLog?.flush();
      await otel?.log.shutdown().catch(() => undefined);
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => stop(signal));
}

/** What `serve` says when a serve of the same config directory already runs. */
function alreadyRunning(other: ServerState, dir: string): CliError {
  return new CliError(
    `this config directory (${dir}) is already in use by svc-router (pid ${other.pid}) at ${other.url}, which svc-router status shows; stop it first (svc-router stop, or svc-router restart), or give this one its own directory (SVC_ROUTER_HOME=DIR)`,
    EXIT_FAILED,
    'already_running',
    { pid: other.pid, url: other.url },
  );
}

/**
 * Each backend whose key variable is unset here (its requests would all fail with 502), and any
 * other variable the declarative file names that is unset (the sealing secret).
 */
function unsetVariableWarnings(settings: Settings, config: ConfigStore): string[] {
  const keyed = new Set(keyVariables(settings).map((entry) => entry.variable));
  const others = (config.overlay?.variables?.() ?? []).filter((name) => !keyed.has(name) && !process.env[name]);
  return [...unsetKeyWarnings(settings), ...others.map((name) => `$${name}, named by ${config.overlay!.path}, is not set here; serve runs without it`)];
}

/** config.json, with the declarative file over it when `--config` (or SVC_ROUTER_CONFIG) names one. */
async function openConfig(file: string | undefined): Promise<ConfigStore> {
  const given = file ?? (process.env.SVC_ROUTER_CONFIG || undefined);
  const overlay = given === undefined ? undefined : new (await import('../../config/declarative/file-source.js')).DeclarativeFile(given, undefined, { warnUnsetEnv: true });
  // Fields of config.json the settings do not know are named once per version, at start and on each reload.
  const config = new ConfigStore(await confConfigDirectory(), { reportUnknownFields: true, ...(overlay ? { overlay } : {}) });
  try {
    config.read();
  } catch (error) {
    // A file that is missing or not valid at start: say where, and serve nothing rather than the wrong routes.
    if ((error as Error).name === 'DeclarativeFileError') throw usageError((error as Error).message);
    throw error;
  }
  if (config.overlay) printLine(`${chalk.dim('Config:')} ${config.overlay.path} (reloaded when it changes)`);
  return config;
}

/** What `serve` prints once it listens. `maskKey`: for a log file, which never holds the key (`svc-router env` prints it). */
function printBanner(origin: string, key: string, settings: Settings, scripted: boolean, options: { maskKey?: boolean } = {}): void {
  const routeCount = Object.keys(settings.routes).length;
  printLine(`svc-router listening on ${chalk.bold(origin)}`);
  printLine(`  OpenAI base URL (chat, responses): ${origin}/v1`);
  printLine(`  Anthropic base URL (messages):     ${origin}`);
  printLine(`  Gemini base URL (generateContent): ${origin}`);
  const backend = routeCount === 0 ? `built-in offline backend${scripted ? ' (scripted)' : ''}; add backends and routes to reach real models` : `${routeCount} route(s) configured`;
  printLine(`  Models: ${SKUS.join(', ')} · ${backend}`);
  printLine();
  printLine(chalk.dim(options.maskKey ? '# point clients here (keys are not written to logs: `svc-router env` prints these lines with the key):' : '# point clients here:'));
  for (const line of envLines(origin, key, settings, options)) printLine(line);
}

/** The metrics module, whose prom-client is an optional dependency. */
async function loadMetrics(): Promise<typeof import('../../server/metrics.js')> {
  try {
    return await import('../../server/metrics.js');
  } catch (error) {
    if (isMissingPackage(error, 'prom-client')) throw new CliError(new MissingDependencyError('prom-client', '--metrics').message, EXIT_FAILED);
    throw error;
  }
}

/**
 * `--otel [URL]` or config server.otel: the exporter, whose @opentelemetry packages are optional
 * dependencies imported only here. A missing one is a message naming it.
 */
async function startOtelExport(given: string | undefined, config: ConfigStore): Promise<{ log: import('../../server/otel-export.js').OtelExport; url: string }> {
  const { createOtelExport, OTEL_PACKAGES, resolveTracesUrl } = await import('../../server/otel-export.js');
  let url: string;
  try {
    url = resolveTracesUrl(given);
  } catch (error) {
    throw usageError((error as Error).message);
  }
  try {
    const log = await createOtelExport({
      tracesUrl: url,
      serviceVersion: packageVersion(),
      backendType: (name) => {
        const backends = config.read().backends;
        return Object.hasOwn(backends, name) ? backends[name]!.type : name === 'offline' ? 'offline' : undefined;
      },
    });
    return { log, url };
  } catch (error) {
    const missing = OTEL_PACKAGES.find((name) => isMissingPackage(error, name));
    if (missing) throw new CliError(new MissingDependencyError(missing, '--otel').message, EXIT_FAILED);
    throw error;
  }
}

function packageVersion(): string {
  return (JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** What holds the port, and the next free one to use instead. */
async function portInUse(host: string, port: number, configDir: string): Promise<CliError> {
  const { describePortHolder, nextFreePort } = await import('../port-holder.js');
  const found = findServer({ dir: configDir });
  const [holder, free] = await Promise.all([describePortHolder(hostForUrl(host).replace(/^\[|\]$/g, ''), port, found.status === 'running' ? found.state : undefined), nextFreePort(host, port)]);
  const offer = free === undefined ? 'pick another with --port (0 picks a free one)' : `port ${free} is free: svc-router serve --port ${free} (or config set server.port ${free})`;
  return new CliError(`port ${port} on ${host} is already in use by ${holder}; ${offer}`, EXIT_FAILED, 'port_in_use', { port, ...(free === undefined ? {} : { free_port: free }) });
}

/** The local key's 30-day cap, and the command that raises it (the 429 at the cap names it too). */
function printCap(settings: Settings): void {
  const developer = settings.localKey ? slugOfKey(settings.localKey) : undefined;
  const record = developer !== undefined && Object.hasOwn(settings.keys, developer) ? settings.keys[developer] : undefined;
  if (!record) return;
  printLine(chalk.dim(`# usage cap: ${formatCount(record.capTokens)} tokens / 30 days for ${developer}; raise it: svc-router keys cap ${developer} TOKENS`));
}

/** Colour the request log only on a terminal, and never under NO_COLOR. */
function logColour(): boolean {
  return process.stderr.isTTY === true && !process.env.NO_COLOR;
}

/** `serve --log-file FILE [--log-max-size BYTES] [--log-keep N]`, opened before anything listens. */
function openLogFile(options: ServeOptions): RotatingLogFile {
  const maxBytes = options.logMaxSize === undefined ? DEFAULT_LOG_MAX_BYTES : parsePositiveInteger(options.logMaxSize, '--log-max-size');
  const keep = options.logKeep === undefined ? DEFAULT_LOG_KEEP : parseCount(options.logKeep, '--log-keep');
  try {
    return new RotatingLogFile(path.resolve(options.logFile!), maxBytes, keep);
  } catch (error) {
    throw usageError(`--log-file: cannot open ${options.logFile}: ${(error as Error).message}`);
  }
}

function parseCount(value: string, name: string): number {
  return value === '0' ? 0 : parsePositiveInteger(value, name);
}

/**
 * `serve --detach`: the same serve, in the background with its output in a log file (FILE from
 * --log-file, else serve.log in the config directory); this command returns once it listens.
 */
async function runDetached(options: ServeOptions): Promise<void> {
  const args = serveArgsFromArgv();
  if (options.logFile === undefined) args.push('--log-file', path.join(new ConfigStore().dir, DEFAULT_DETACHED_LOG));
  const started = await startDetached(args, { cwd: process.cwd() });
  printDetached(started);
}

/** What `serve --detach` and `restart` say once the background serve listens. */
export function printDetached(started: { pid: number; url: string; logFile: string }): void {
  printLine(`svc-router is running in the background (pid ${started.pid}) at ${chalk.bold(started.url)}`);
  printLine(`  log: ${started.logFile}`);
  printLine(`  client settings: svc-router env · status: svc-router status · stop: svc-router stop · restart: svc-router restart`);
}
