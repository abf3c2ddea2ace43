/**
 * What a closed standard output means. For a command (`models | head -1`) the reader has all it
 * wants: the command ends quietly with exit 0. A server keeps serving: its banner and log lines
 * are dropped.
 */
let whenOutputCloses: 'exit' | 'drop' = 'exit';

/** For `serve`: writes to a closed stdout or stderr are dropped, never fatal. */
export function keepRunningWhenOutputCloses(): void {
  whenOutputCloses = 'drop';
}

const CLOSED = new Set(['EPIPE', 'ERR_STREAM_DESTROYED']);

/**
 * Installs the one handler for write errors on stdout and stderr (called once, first thing in
 * main). Without it a reader that goes away (`| head -1`) turns the next write into an uncaught
 * EPIPE and a stack trace.
 */
export function handleClosedOutput(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (whenOutputCloses === 'drop') return;
    if (CLOSED.has(error.code ?? '')) process.exit(0);
    process.stderr.write(`svc-router: cannot write to standard output: ${error.message}\n`);
    process.exit(1);
  });
  // Diagnostics are best effort: a closed stderr never ends a command or the server.
  process.stderr.on('error', () => {});
}
