import { EXIT_NOT_RUNNING } from '../cli-error.js';
import { describeOutput } from '../output-target.js';
import { chalk, printJson, printLine } from '../output.js';
import { redactRedisStores } from '../../core/redis-store.js';
import { findServer, type ServerState } from '../server-state.js';

/**
 * Whether `svc-router serve` runs for this config directory, where and since when. Exit code 0
 * when it runs, 3 when not (a stale state file, left by a killed server, is removed).
 */
export function runStatus(options: { json?: boolean }): void {
  const found = findServer();
  if (found.status === 'running') {
    const { state } = found;
    const uptimeSeconds = Math.max(0, Math.round((Date.now() - Date.parse(state.startedAt)) / 1000));
    const shown = shownState(state);
    if (options.json) {
      printJson({ running: true, ...shown, uptimeSeconds, stateFile: found.file });
    } else {
      printLine(`svc-router is ${chalk.green('running')} at ${chalk.bold(state.url)}`);
      printLine(`  pid ${state.pid} · up ${formatDuration(uptimeSeconds)} · bound to ${hostPort(state.host, state.port)} · usage store: ${state.usageStore}`);
      // A serve started before its output was recorded was taken to run in a terminal.
      const how = [state.detached ? 'in the background' : (describeOutput(state.output) ?? 'in a terminal'), state.logFile ? `log: ${state.logFile}` : undefined, state.tls ? `TLS certificate: ${state.tls.cert}` : undefined];
      printLine(`  ${how.filter(Boolean).join(' · ')}`);
      if (state.config) printLine(`  config: ${state.config} over config.json (other commands read it too)`);
      if (shown.argv) printLine(`  started as: svc-router serve ${shown.argv.join(' ')} (svc-router restart runs it again)`);
    }
    return;
  }
  process.exitCode = EXIT_NOT_RUNNING;
  if (options.json) {
    printJson({ running: false, stateFile: found.file, ...(found.status === 'stale' ? { stale: { pid: found.state.pid, url: found.state.url } } : {}) });
    return;
  }
  printLine(`svc-router is ${chalk.yellow('not running')}${staleNote(found)}`);
}

/** Why a server is not running when a state file said otherwise. */
export function staleNote(found: ReturnType<typeof findServer>): string {
  return found.status === 'stale' ? ` (pid ${found.state.pid}, last at ${found.state.url}, has exited; removed its stale state file ${found.file})` : '';
}

export const hostPort = (host: string, port: number): string => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** 3725 → "1h 2m 5s". */
export function formatDuration(seconds: number): string {
  const parts: string[] = [];
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days) parts.push(`${days}d`);
  if (hours || days) parts.push(`${hours}h`);
  if (minutes || hours || days) parts.push(`${minutes}m`);
  parts.push(`${seconds % 60}s`);
  return parts.join(' ');
}

/**
 * The state as status shows it: the state file keeps the Redis URL as serve opened it (a 0600
 * file), but nothing printed carries a password, in the URL field or among serve's arguments.
 */
function shownState(state: ServerState): Omit<ServerState, 'usageStoreUrl'> {
  const { usageStoreUrl: _secret, ...shown } = state;
  if (!shown.argv) return shown;
  return { ...shown, argv: shown.argv.map(withoutPassword) };
}

/** `redis://:pw@host`, `--usage-store=redis-sentinel://:pw@host,…` lose the password. */
const withoutPassword = (arg: string): string => redactRedisStores(arg);
