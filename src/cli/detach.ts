import { spawn } from 'node:child_process';
import path from 'node:path';
import { CliError, EXIT_FAILED } from './cli-error.js';

/** Set in the environment of a serve started by `serve --detach` or `restart`. */
export const DETACHED_ENV = 'SVC_ROUTER_DETACHED';

/** What a detached serve tells the command that started it, once it listens. */
export interface ListeningMessage {
  type: 'svc-router-listening';
  pid: number;
  url: string;
  logFile: string;
}

/** How long a background serve may take to listen (a Redis usage store is connected first). */
const START_TIMEOUT_MS = 30_000;

/**
 * Starts `svc-router serve ARGS` in the background, in its own session so it outlives this
 * terminal, and resolves once it listens. Until then its output is relayed here (a bad flag or
 * a taken port reads as in the foreground); from then on it writes only to its log file. If it
 * exits first, this fails with its exit code.
 */
export function startDetached(serveArgs: string[], options: { cwd: string }): Promise<ListeningMessage> {
  const cli = process.argv[1];
  if (!cli) throw new CliError('cannot tell where the svc-router CLI is to start it in the background', EXIT_FAILED);
  const child = spawn(process.execPath, [...process.execArgv, path.resolve(cli), 'serve', ...serveArgs], {
    cwd: options.cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { ...process.env, [DETACHED_ENV]: '1' },
  });
  child.stdout!.pipe(process.stdout, { end: false });
  child.stderr!.pipe(process.stderr, { end: false });
  return new Promise<ListeningMessage>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new CliError(`serve did not start listening within ${START_TIMEOUT_MS / 1000} s; stopped it`, EXIT_FAILED));
    }, START_TIMEOUT_MS);
    const detach = (): void => {
      clearTimeout(timer);
      child.stdout!.unpipe(process.stdout);
      child.stderr!.unpipe(process.stderr);
      child.stdout!.destroy();
      child.stderr!.destroy();
      if (child.connected) child.disconnect();
      child.unref();
    };
    child.on('message', (message: Partial<ListeningMessage>) => {
      if (message?.type !== 'svc-router-listening') return;
      detach();
      resolve(message as ListeningMessage);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      // Its own message is already on stderr (relayed); this says only that it did not start.
      reject(new CliError(`serve exited before it listened (${signal ?? `exit code ${code}`})`, code && code > 0 ? code : EXIT_FAILED));
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new CliError(`cannot start serve in the background: ${error.message}`, EXIT_FAILED));
    });
  });
}

/** Tells the starting command (when there is one) that this serve listens, then lets it go. */
export function reportListening(message: Omit<ListeningMessage, 'type'>): void {
  if (process.env[DETACHED_ENV] !== '1' || typeof process.send !== 'function') return;
  process.send({ type: 'svc-router-listening', ...message } satisfies ListeningMessage, () => {
    if (process.connected) process.disconnect();
  });
}

/** serve's own arguments, as given, without --detach: what the background serve and `restart` run. */
export function serveArgsFromArgv(argv: string[] = process.argv): string[] {
  const serveAt = argv.indexOf('serve', 2);
  return (serveAt === -1 ? [] : argv.slice(serveAt + 1)).filter((arg) => arg !== '--detach');
}
