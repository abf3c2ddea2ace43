import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { canAnimate } from '../../src/cli/spinner.js';
import { hasScript, hasTmux, runInPty, screenAfterRun, until, within, type PtyRun } from './pty.js';
import { initHome, makeHome, removeHome, runCli } from './run-cli.js';

const homes: string[] = [];
const runs: PtyRun[] = [];
const servers: http.Server[] = [];
const freshHome = (): string => {
  const home = makeHome();
  homes.push(home);
  return home;
};

afterEach(async () => {
  runs.splice(0).forEach((run) => run.kill());
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve).closeAllConnections())));
  homes.splice(0).forEach(removeHome);
});

const tty = (columns: number | undefined) => ({ isTTY: true, columns }) as unknown as NodeJS.WriteStream;

describe('canAnimate: when a command may show a spinner', () => {
  it('only on a terminal with a positive width, outside CI and TERM=dumb', () => {
    expect(canAnimate(tty(80), { TERM: 'xterm' })).toBe(true);
    expect(canAnimate(tty(0), { TERM: 'xterm' })).toBe(false);
    expect(canAnimate(tty(undefined), { TERM: 'xterm' })).toBe(false);
    expect(canAnimate({ isTTY: false, columns: 80 } as unknown as NodeJS.WriteStream, {})).toBe(false);
    expect(canAnimate(tty(80), { TERM: 'dumb' })).toBe(false);
    expect(canAnimate(tty(80), { TERM: 'xterm', CI: '' })).toBe(false);
  });
});

/** A router address that accepts a request and never answers it; resolves `asked` on the first request. */
async function silentRouter(): Promise<{ url: string; asked: Promise<void> }> {
  let resolveAsked!: () => void;
  const asked = new Promise<void>((resolve) => (resolveAsked = resolve));
  const server = http.createServer(() => resolveAsked());
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked };
}

describe.skipIf(!hasTmux)('chat --stream on a real terminal (tmux)', () => {
  it('shows the streamed answer intact, exactly as the piped answer reads', async () => {
    const home = freshHome();
    await initHome(home);
    const prompt = ['tell', 'me', 'about', 'the', 'offline', 'backend'];
    const piped = await runCli(['chat', ...prompt], { home });
    expect(piped.code).toBe(0);
    const answer = piped.stdout.trim();
    expect(answer.split(' ').length).toBeGreaterThan(10);

    const screen = await screenAfterRun(['chat', '--stream', ...prompt], { home, cols: 300, rows: 20 });
    expect(screen).toContain('EXIT=0');
    expect(screen.split('\n').map((line) => line.trimEnd()), screen).toContain(answer);
  });
});

describe.skipIf(!hasScript)('chat on a terminal that reports 0 columns (script, stty cols 0)', () => {
  it('finishes promptly with bounded output', async () => {
    const home = freshHome();
    await initHome(home);
    const run = runInPty(['chat', 'hello', 'narrow', 'terminal'], { home, cols: 0, rows: 0 });
    runs.push(run);
    const exit = await within(run.exited, 15_000, 'chat to finish').catch((error: Error) => {
      throw new Error(`${error.message}; ${run.output().length} bytes written`);
    });
    expect(exit.code).toBe(0);
    expect(run.output()).toContain('you said "hello narrow terminal"');
    expect(run.output().length).toBeLessThan(4_000);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('%s ends chat while it waits for an answer', async (signal) => {
    const home = freshHome();
    await initHome(home);
    const router = await silentRouter();
    const run = runInPty(['chat', '--base-url', router.url, 'hello'], { home, cols: 0, rows: 0 });
    runs.push(run);
    // The request has been sent, so chat is past any spinner and waiting on the network.
    await within(router.asked, 15_000, 'chat to send its request');
    process.kill(await run.pid, signal);
    await within(run.exited, 5_000, `chat to end on ${signal}`);
    expect(run.output().length).toBeLessThan(4_000);
  });

  it('Ctrl-C typed at the terminal ends chat', async () => {
    const home = freshHome();
    await initHome(home);
    const router = await silentRouter();
    const run = runInPty(['chat', '--base-url', router.url, 'hello'], { home, cols: 0, rows: 0 });
    runs.push(run);
    await within(router.asked, 15_000, 'chat to send its request');
    run.child.stdin!.write('\x03');
    await within(run.exited, 5_000, 'chat to end on Ctrl-C');
  });
});

describe.skipIf(!hasScript)('chat on an ordinary terminal (80 columns) with its spinner', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s ends chat while the spinner runs', async (signal) => {
    const home = freshHome();
    await initHome(home);
    const router = await silentRouter();
    const run = runInPty(['chat', '--base-url', router.url, 'hello'], { home, cols: 80, rows: 24 });
    runs.push(run);
    await within(router.asked, 15_000, 'chat to send its request');
    await until(() => run.output().includes('asking svc.intelligent-basic'), 5_000, 'the spinner to show');
    process.kill(await run.pid, signal);
    await within(run.exited, 5_000, `chat to end on ${signal}`);
  });
});
