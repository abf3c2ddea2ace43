import { CliError, EXIT_FAILED } from '../cli-error.js';
import { printLine } from '../output.js';
import { parsePositiveInteger } from '../parse-options.js';
import { findServer, isProcessAlive, removeServerState, type ServerState } from '../server-state.js';
import { staleNote } from './status.js';

/** serve finishes in-flight requests for up to 10 s after SIGTERM; this waits a little longer. */
const DEFAULT_TIMEOUT_MS = 15_000;

export const stopTimeout = (timeout: string | undefined): number => (timeout === undefined ? DEFAULT_TIMEOUT_MS : parsePositiveInteger(timeout, '--timeout'));

/**
 * Stops the `svc-router serve` its state file names: SIGTERM, then wait until the process has
 * gone. Nothing running is not an error (exit 0), so `stop` can always be called.
 */
export async function runStop(options: { timeout?: string }): Promise<void> {
  const timeoutMs = stopTimeout(options.timeout);
  const found = findServer();
  if (found.status !== 'running') {
    printLine(`svc-router is not running${staleNote(found)}`);
    return;
  }
  await stopServer(found.state, timeoutMs);
}

/** SIGTERM to a running serve, and wait (up to `timeoutMs`) until it has exited. */
export async function stopServer(state: ServerState, timeoutMs: number): Promise<void> {
  const { pid, url } = state;
  try {
    process.kill(pid, 'SIGTERM');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw new CliError(`cannot stop svc-router (pid ${pid}): ${(error as Error).message}`, EXIT_FAILED);
  }
  printLine(`stopping svc-router (pid ${pid}) at ${url}…`);
  const deadline = Date.now() + timeoutMs;
  while (isProcessAlive(pid)) {
    if (Date.now() >= deadline) {
      throw new CliError(`svc-router (pid ${pid}) is still running after ${timeoutMs} ms; \`kill -9 ${pid}\` ends it at once`, EXIT_FAILED);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // Its own exit removes the file; this covers a server that could not.
  removeServerState(pid);
  printLine('stopped');
}
