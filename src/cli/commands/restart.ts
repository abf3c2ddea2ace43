import path from 'node:path';
import { ConfigStore } from '../../config/store.js';
import { startDetached } from '../detach.js';
import { printLine } from '../output.js';
import { findServer } from '../server-state.js';
import { DEFAULT_DETACHED_LOG, printDetached } from './serve.js';
import { stopServer, stopTimeout } from './stop.js';

/**
 * Stops the running serve and starts it again in the background, with the arguments and in the
 * directory it was started with (from its state file), so a changed certificate, offline script or
 * build takes effect. With none running, the last one's arguments (a stale state file) or none.
 */
export async function runRestart(options: { timeout?: string }): Promise<void> {
  const timeoutMs = stopTimeout(options.timeout);
  const found = findServer();
  const previous = found.status === 'none' ? undefined : found.state;
  if (found.status === 'running') await stopServer(found.state, timeoutMs);
  else printLine('svc-router is not running; starting it');
  const args = [...(previous?.argv ?? [])];
  // A serve that ran in a terminal had no log file; in the background its output needs one.
  if (!args.some((arg) => arg === '--log-file' || arg.startsWith('--log-file='))) args.push('--log-file', path.join(new ConfigStore().dir, DEFAULT_DETACHED_LOG));
  printDetached(await startDetached(args, { cwd: previous?.cwd ?? process.cwd() }));
}
