import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The repository root and the built binary every test in this folder runs. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = path.join(ROOT, 'bin', 'svc-router.js');
export const PACKAGE_VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

if (!fs.existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) {
  throw new Error('dist/cli/main.js is missing: run `npm run build` before the CLI tests');
}

/** A fresh, empty directory to use as SVC_ROUTER_HOME (and as HOME, so nothing reaches the real one). */
export function makeHome(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'svc-router-cli-'));
}

export function removeHome(home: string): void {
  fs.rmSync(home, { recursive: true, force: true });
}

export const configFile = (home: string): string => path.join(home, 'config.json');
export const ledgerFile = (home: string): string => path.join(home, 'usage.jsonl');

/** The stored config as parsed JSON, or undefined when no file exists yet. */
export function readConfig(home: string): Record<string, any> | undefined {
  const file = configFile(home);
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, any>) : undefined;
}

/** The raw bytes of config.json ('' when absent), for "nothing changed" checks. */
export function configText(home: string): string {
  const file = configFile(home);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
}

/** The environment a CLI child runs with: inherited, minus anything pointing it elsewhere. */
export function cliEnv(home: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['SVC_ROUTER_BASE_URL', 'SVC_ROUTER_KEY', 'FORCE_COLOR', 'NODE_OPTIONS']) delete env[name];
  Object.assign(env, {
    SVC_ROUTER_HOME: home,
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: path.join(home, '.xdg-config'),
    NO_COLOR: '1',
  });
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  home: string;
  /** Written to standard input, which is then closed; without it stdin is closed at once. */
  input?: string;
  env?: Record<string, string | undefined>;
  /** A hung child is killed after this long (a guard, not a wait). */
  killAfterMs?: number;
}

/** Runs the built CLI once and collects its exit code and output. */
export function runCli(args: string[], options: RunOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.home,
      env: cliEnv(options.home, options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdin.on('error', () => {
      // The CLI may exit without reading its input; that is not the test's concern.
    });
    child.stdin.end(options.input ?? '');
    const guard = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 20_000);
    child.on('error', (error) => {
      clearTimeout(guard);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Runs the CLI and parses its stdout as JSON, failing loudly when it did not succeed. */
export async function runCliJson<T = any>(args: string[], options: RunOptions): Promise<T> {
  const result = await runCli(args, options);
  if (result.code !== 0) throw new Error(`svc-router ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** `init` in a home, returning the issued key. */
export async function initHome(home: string, args: string[] = ['--developer', 'alice', '--org', 'acme', '--tier', 'pro']): Promise<string> {
  const body = await runCliJson<{ key: string }>(['init', ...args, '--json'], { home });
  return body.key;
}

export interface ServeChild {
  child: ChildProcess;
  /** http://HOST:PORT, from the "listening on" line */
  origin: string;
  /** Every stdout line so far. */
  lines: string[];
  stderr(): string;
  /** Resolves with the first stdout line (already seen or still to come) matching the pattern. */
  waitForLine(pattern: RegExp): Promise<string>;
  /** Resolves when the child has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILLs the child if it is still running (for cleanup). */
  kill(): Promise<void>;
}

/** Starts `serve` (default `--port 0`) as a child and resolves once it prints its address. */
export async function startServe(home: string, args: string[] = ['--port', '0'], env: Record<string, string | undefined> = {}): Promise<ServeChild> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    cwd: home,
    env: cliEnv(home, env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const watchers: Array<{ pattern: RegExp; resolve: (line: string) => void; reject: (error: Error) => void }> = [];
  let stderr = '';
  let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      exitInfo = { code, signal };
      resolve(exitInfo);
    });
  });
  // Watchers still waiting when stdout ends will never be satisfied.
  const stdoutDone = new Promise<void>((resolve) => child.stdout!.on('end', resolve));
  void Promise.all([exited, stdoutDone]).then(() => {
    for (const watcher of watchers.splice(0)) {
      watcher.reject(new Error(`serve exited (${JSON.stringify(exitInfo)}) before printing ${watcher.pattern}; stdout:\n${lines.join('\n')}\nstderr:\n${stderr}`));
    }
  });

  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const watcher of [...watchers]) {
      if (watcher.pattern.test(line)) {
        watchers.splice(watchers.indexOf(watcher), 1);
        watcher.resolve(line);
      }
    }
  });

  const waitForLine = (pattern: RegExp): Promise<string> => {
    const seen = lines.find((line) => pattern.test(line));
    if (seen !== undefined) return Promise.resolve(seen);
    if (exitInfo && child.stdout!.readableEnded) return Promise.reject(new Error(`serve has exited; no line matches ${pattern}`));
    return new Promise((resolve, reject) => watchers.push({ pattern, resolve, reject }));
  };

  const kill = async () => {
    if (exitInfo === undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };

  try {
    const listening = await waitForLine(/listening on (https?:\/\/\S+)/);
    const origin = /listening on (https?:\/\/\S+)/.exec(listening)![1]!;
    return { child, origin, lines, stderr: () => stderr, waitForLine, exited, kill };
  } catch (error) {
    await kill();
    throw error;
  }
}

/** GET/POST against a router with a bearer key; returns status and parsed JSON body. */
export async function callRouter(origin: string, key: string, method: 'GET' | 'POST', pathname: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${origin}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}
