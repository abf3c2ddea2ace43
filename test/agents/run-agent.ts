import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/** A hung agent run is killed after this long. */
export const RUN_TIMEOUT_MS = 90_000;

export interface AgentRun {
  name: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export type Cleanups = Array<() => unknown>;

/** A list of undo steps a test queues as it goes; after each test of the calling file they run newest first. */
export function cleanupsAfterEach(): Cleanups {
  const cleanups: Cleanups = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return cleanups;
}

/** A fresh root with `home` (the client's HOME) and `work` (its working directory), removed after the test. */
export function tempRoot(cleanups: Cleanups, prefix: string): { root: string; home: string; cwd: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  // A client killed a moment ago may still be writing into its home: retry while that settles.
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'work');
  for (const dir of [home, cwd]) fs.mkdirSync(dir, { recursive: true });
  return { root, home, cwd };
}

/** Only what a client needs to run, so no real config, credentials or outer agent session leak in. */
export function baseEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    USER: os.userInfo().username,
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    TMPDIR: os.tmpdir(),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
  };
}

/** Keeps Claude Code from calling home, updating itself or reporting errors during a run. */
export const CLAUDE_QUIET_ENV: NodeJS.ProcessEnv = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
};

/** `codex exec` arguments for one non-interactive run that writes its final message to `lastMessageFile`. */
export function codexExecArgs(lastMessageFile: string, prompt: string): string[] {
  return [
    'exec',
    '--skip-git-repo-check',
    '--ephemeral',
    '--color',
    'never',
    // The scripted command only touches the temporary directory. Codex's own sandbox relies on
    // kernel features (Landlock, seccomp, namespaces) that not every CI container offers.
    '--dangerously-bypass-approvals-and-sandbox',
    '--output-last-message',
    lastMessageFile,
    prompt,
  ];
}

/** Runs an agent CLI with stdin closed; a hung run is killed after RUN_TIMEOUT_MS. */
export async function runAgent(name: string, binary: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<AgentRun> {
  const started = performance.now();
  const child = spawn(binary, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
  }).finally(() => clearTimeout(timer));
  return { name, code, signal, stdout, stderr, ms: Math.round(performance.now() - started) };
}

/** How the run ended and what it printed, as lines for an assertion message. */
export function describeRun(run: AgentRun): string[] {
  return [
    `${run.name} exited with code ${run.code} (signal ${run.signal}) after ${run.ms} ms`,
    `--- stdout ---\n${run.stdout}`,
    `--- stderr ---\n${run.stderr}`,
  ];
}

export function readIfExists(file: string): string | undefined {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
}
