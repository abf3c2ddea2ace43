import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { shellQuote, within } from './pty.js';
import { BIN, cliEnv, initHome, makeHome, removeHome } from './run-cli.js';

const homes: string[] = [];
const cleanups: Array<() => void> = [];
const freshHome = (): string => {
  const home = makeHome();
  homes.push(home);
  return home;
};
afterEach(() => {
  cleanups.splice(0).forEach((cleanup) => cleanup());
  homes.splice(0).forEach(removeHome);
});

const cli = (args: string[]) => [process.execPath, BIN, ...args].map(shellQuote).join(' ');

/** `svc-router ARGS | head -1` in bash: the CLI's own exit code, its stderr and what head printed. */
function pipeIntoHead(home: string, args: string[]): { code: number; stderr: string; head: string } {
  const result = spawnSync('bash', ['-c', `${cli(args)} 2>"$ERR_FILE" | head -1; echo "CODE=\${PIPESTATUS[0]}"; cat "$ERR_FILE"`], {
    cwd: home,
    env: cliEnv(home, { ERR_FILE: `${home}/stderr.txt` }),
    encoding: 'utf8',
    timeout: 20_000,
  });
  const [head = '', status = '', ...stderr] = result.stdout.split('\n');
  return { code: Number(/CODE=(\d+)/.exec(status)?.[1]), stderr: stderr.join('\n'), head };
}

/** Runs the CLI with its standard output closed before it writes anything. */
function runWithClosedStdout(home: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: home, env: cliEnv(home), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stderr });
    });
  });
}

/** stderr without the one documented line an in-process check prints when no server answers (router-client.ts). */
function beyondNoServerNote(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => !line.startsWith('note: no svc-router answers at '))
    .join('\n')
    .trim();
}

describe('a command whose standard output is closed (| head) ends quietly with exit 0', () => {
  it('`models | head -1`, ten times over: each run exits 0 with nothing on stderr', async () => {
    const home = freshHome();
    await initHome(home);
    const runs = Array.from({ length: 10 }, () => pipeIntoHead(home, ['models']));
    expect(runs.map((run) => run.head)).toEqual(Array(10).fill('svc.intelligent-pro'));
    expect(runs.map((run) => run.code)).toEqual(Array(10).fill(0));
    expect(runs.map((run) => beyondNoServerNote(run.stderr))).toEqual(Array(10).fill(''));
  }, 90_000);

  it.each(['models', 'routes list', 'completion bash', 'keys list --json', 'chat --stream a closed pipe', 'env'])(
    '`%s` with stdout closed before its first write',
    async (command) => {
      const home = freshHome();
      await initHome(home);
      const result = await runWithClosedStdout(home, command.split(' '));
      expect(beyondNoServerNote(result.stderr)).toBe('');
      expect(result.code).toBe(0);
    },
  );
});

describe('serve whose standard output is closed (serve | head -1)', () => {
  it('keeps serving, and still exits 0 on SIGTERM', async () => {
    const home = freshHome();
    await initHome(home);
    const head = spawn('head', ['-n', '1'], { stdio: ['pipe', 'pipe', 'ignore'] });
    const serve = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { cwd: home, env: cliEnv(home), stdio: ['ignore', head.stdin, 'pipe'] });
    // Only serve holds the pipe's writing end now: when head has its line, the pipe is closed.
    head.stdin.destroy();
    cleanups.push(() => serve.exitCode === null && serve.signalCode === null && serve.kill('SIGKILL'));
    let stderr = '';
    serve.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const serveExited = new Promise<number | null>((resolve) => serve.on('exit', (code) => resolve(code)));

    const [line] = await within(
      new Promise<string[]>((resolve) => {
        const lines: string[] = [];
        createInterface({ input: head.stdout }).on('line', (text) => lines.push(text)).on('close', () => resolve(lines));
      }),
      15_000,
      'head to print the first line',
    );
    const origin = /listening on (http:\/\/\S+)/.exec(line ?? '')?.[1];
    expect(origin, line).toBeDefined();
    await within(new Promise((resolve) => (head.exitCode !== null ? resolve(null) : head.on('exit', resolve))), 5_000, 'head to exit');

    for (let i = 0; i < 3; i++) {
      const health = await fetch(`${origin}/health`);
      expect(health.status).toBe(200);
    }
    expect(serve.exitCode).toBeNull();
    // Its shutdown line goes to the closed pipe too: dropped, not fatal.
    serve.kill('SIGTERM');
    expect(await within(serveExited, 15_000, 'serve to exit')).toBe(0);
    expect(stderr).not.toMatch(/EPIPE|Error/);
  });
});
