import path from 'node:path';
import { ConfigStore } from '../../config/store.js';
import { CliError, EXIT_FAILED } from '../cli-error.js';
import { startDetached } from '../detach.js';
import { printLine } from '../output.js';
import { findServer, type ServerState } from '../server-state.js';
import { DEFAULT_DETACHED_LOG, printDetached } from './serve.js';
import { stopServer, stopTimeout } from './stop.js';

/**
 * Stops the running serve and starts it again in the background, with the arguments and in the
 * directory it was started with (from its state file), so a changed certificate, offline script or
 * build takes effect. With none running, the last one's arguments (a stale state file) or none.
 * The new serve inherits this shell's environment: a shell without a variable the old one read
 * its keys from is refused before anything is stopped.
 */
export async function runRestart(options: { timeout?: string }): Promise<void> {
  const timeoutMs = stopTimeout(options.timeout);
  const found = findServer({ clean: false });
  const previous = found.status === 'none' ? undefined : found.state;
  if (previous) refuseWithoutItsVariables(previous, found.status === 'running');
  if (found.status === 'stale') findServer();
  if (found.status === 'running') await stopServer(found.state, timeoutMs);
  else printLine('svc-router is not running; starting it');
  const args = [...(previous?.argv ?? [])];
  // A declarative file named by SVC_ROUTER_CONFIG when it started is named outright: this shell may not set it.
  if (previous?.config && !args.some((arg) => arg === '--config' || arg.startsWith('--config='))) args.push('--config', previous.config);
  // A serve that ran in a terminal had no log file; in the background its output needs one.
  if (!args.some((arg) => arg === '--log-file' || arg.startsWith('--log-file='))) args.push('--log-file', path.join(new ConfigStore().dir, DEFAULT_DETACHED_LOG));
  printDetached(await startDetached(args, { cwd: previous?.cwd ?? process.cwd() }));
}

/** The variables (names only) the server had at start and this shell lacks: restarting here would lose its keys. */
function refuseWithoutItsVariables(state: ServerState, running: boolean): void {
  const missing = (state.environment?.set ?? []).filter((name) => !process.env[name]);
  if (!missing.length) return;
  const names = missing.map((name) => `$${name}`).join(', ');
  const which = running ? `the running serve (pid ${state.pid})` : `the last serve (pid ${state.pid})`;
  const them = missing.length > 1 ? 'them' : 'it';
  throw new CliError(
    `not restarting: ${which} was started with ${names} set, and this shell does not set ${them}; a serve started from here would run without ${them} (a backend's key: every request routed to it fails with 502). Set ${them} here and run svc-router restart again${running ? '; the serve is left running' : ''}.`,
    EXIT_FAILED,
    'missing_environment',
    { variables: missing },
  );
}
