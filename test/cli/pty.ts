import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, cliEnv } from './run-cli.js';

/** Quotes one word for sh. */
export const shellQuote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

export const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
export const hasTmux = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;

export interface PtyRun {
  child: ChildProcess;
  /** Everything the terminal has shown so far (raw bytes, escape sequences included). */
  output(): string;
  /** The pid of the svc-router process inside the terminal, once it has started. */
  pid: Promise<number>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(): void;
}

/**
 * Runs the built CLI on a real pseudo-terminal (util-linux `script`) whose size is set with stty
 * first: `cols 0 rows 0` is what some agents' shells and CI wrappers report.
 */
export function runInPty(args: string[], options: { home: string; cols: number; rows: number; env?: Record<string, string | undefined> }): PtyRun {
  const command = `stty cols ${options.cols} rows ${options.rows}; echo "PID=$$"; exec ${[process.execPath, BIN, ...args].map(shellQuote).join(' ')}`;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: options.home,
    env: cliEnv(options.home, { TERM: 'xterm-256color', CI: undefined, ...options.env }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let innerPid: number | undefined;
  let resolvePid!: (pid: number) => void;
  const pid = new Promise<number>((resolve) => (resolvePid = resolve));
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    const match = /PID=(\d+)/.exec(output);
    if (match && innerPid === undefined) resolvePid((innerPid = Number(match[1])));
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return {
    child,
    output: () => output,
    pid,
    exited,
    // A CLI spinning in a loop never sees the hang-up a closed terminal sends: kill it directly.
    kill: () => {
      if (child.exitCode !== null || child.signalCode !== null) return; // script waits for its child
      if (innerPid !== undefined) {
        try {
          process.kill(innerPid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      child.kill('SIGKILL');
    },
  };
}

/** Resolves with `promise`, or rejects once `ms` have passed (a bound, not a wait). */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)));
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

/** Polls `condition` every 25 ms until it holds, failing after `ms`. */
export async function until(condition: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Runs the built CLI in a detached tmux session (a real terminal emulator) and returns the screen
 * as tmux renders it once the command has exited: what a person would actually see.
 */
export async function screenAfterRun(args: string[], options: { home: string; cols: number; rows: number; timeoutMs?: number }): Promise<string> {
  const socket = `svc-router-test-${process.pid}-${Math.random().toString(36).slice(2)}`;
  // The pane stays on screen after the command exits, so it can be read.
  const conf = path.join(options.home, 'tmux.conf');
  fs.writeFileSync(conf, 'set -g remain-on-exit on\n');
  const tmux = (...tmuxArgs: string[]) =>
    spawnSync('tmux', ['-L', socket, '-f', conf, ...tmuxArgs], { cwd: options.home, env: cliEnv(options.home, { TMUX: undefined, CI: undefined }), encoding: 'utf8' });
  const command = `${[process.execPath, BIN, ...args].map(shellQuote).join(' ')}; echo "EXIT=$?"`;
  try {
    const started = tmux('new-session', '-d', '-x', String(options.cols), '-y', String(options.rows), command);
    if (started.status !== 0) throw new Error(`tmux new-session failed: ${started.stderr}`);
    let screen = '';
    await until(
      () => {
        screen = tmux('capture-pane', '-p', '-J', '-S', '-').stdout;
        return /EXIT=\d+/.test(screen);
      },
      options.timeoutMs ?? 15_000,
      'the command in tmux to finish',
    );
    return screen;
  } finally {
    tmux('kill-server');
  }
}
