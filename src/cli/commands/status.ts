import { EXIT_NOT_RUNNING } from '../cli-error.js';
import { chalk, printJson, printLine } from '../output.js';
import { findServer } from '../server-state.js';

/**
 * Whether `svc-router serve` runs for this config directory, where and since when. Exit code 0
 * when it runs, 3 when not (a stale state file, left by a killed server, is removed).
 */
export function runStatus(options: { json?: boolean }): void {
  const found = findServer();
  if (found.status === 'running') {
    const { state } = found;
    const uptimeSeconds = Math.max(0, Math.round((Date.now() - Date.parse(state.startedAt)) / 1000));
    if (options.json) {
      printJson({ running: true, ...state, uptimeSeconds, stateFile: found.file });
    } else {
      printLine(`svc-router is ${chalk.green('running')} at ${chalk.bold(state.url)}`);
      printLine(`  pid ${state.pid} · up ${formatDuration(uptimeSeconds)} · bound to ${hostPort(state.host, state.port)} · usage store: ${state.usageStore}`);
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
