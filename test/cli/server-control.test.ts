import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { displayUsageStore, findServer, isProcessAlive, removeServerState, serverStatePath, writeServerState, type ServerState } from '../../src/cli/server-state.js';
import { until, within } from './pty.js';
import { BIN, cliEnv, initHome, makeHome, removeHome, runCli, runCliJson, startServe, type ServeChild } from './run-cli.js';

const homes: string[] = [];
const pids: number[] = [];
const servers: ServeChild[] = [];
const freshHome = (): string => {
  const home = makeHome();
  homes.push(home);
  return home;
};
afterEach(async () => {
  for (const pid of pids.splice(0)) if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
  await Promise.all(servers.splice(0).map((server) => server.kill()));
  homes.splice(0).forEach(removeHome);
});

const stateFile = (home: string) => path.join(home, 'serve.json');

/** A pid that is certainly not running: a process that has already exited and been reaped. */
function deadPid(): number {
  const result = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(result.stdout);
}

const sampleState = (pid: number): ServerState => ({
  pid,
  host: '127.0.0.1',
  port: 8787,
  url: 'http://127.0.0.1:8787',
  usageStore: 'file',
  startedAt: '2026-01-02T03:04:05.000Z',
});

describe('server-state module', () => {
  it('reports none, running and stale, and cleans a stale file', () => {
    const home = freshHome();
    expect(findServer({ dir: home })).toEqual({ status: 'none', file: stateFile(home) });

    writeServerState(sampleState(process.pid), home);
    expect(fs.statSync(stateFile(home)).mode & 0o777).toBe(0o600);
    expect(findServer({ dir: home })).toMatchObject({ status: 'running', state: sampleState(process.pid) });

    const dead = deadPid();
    writeServerState(sampleState(dead), home);
    expect(findServer({ dir: home, clean: false })).toMatchObject({ status: 'stale', state: { pid: dead } });
    expect(fs.existsSync(stateFile(home))).toBe(true);
    expect(findServer({ dir: home })).toMatchObject({ status: 'stale', state: { pid: dead } });
    expect(fs.existsSync(stateFile(home))).toBe(false);
  });

  it("removes the file only for the pid it names (a newer server's file stays)", () => {
    const home = freshHome();
    writeServerState(sampleState(process.pid), home);
    removeServerState(process.pid + 1, home);
    expect(fs.existsSync(stateFile(home))).toBe(true);
    removeServerState(process.pid, home);
    expect(fs.existsSync(stateFile(home))).toBe(false);
  });

  it('treats an unreadable file as none and the path follows SVC_ROUTER_HOME', () => {
    const home = freshHome();
    fs.writeFileSync(stateFile(home), '{"pid": "x"');
    expect(findServer({ dir: home }).status).toBe('none');
    expect(serverStatePath(home)).toBe(stateFile(home));
  });

  it('never shows a redis password', () => {
    expect(displayUsageStore('file')).toBe('file');
    expect(displayUsageStore('redis://:s3cret@cache:6379/0')).not.toContain('s3cret');
    expect(displayUsageStore('redis://user:s3cret@cache:6379')).toContain('cache:6379');
  });
});

describe('status and stop against a background serve', () => {
  it('serve started in the background (as `svc-router serve > log 2>&1 &`): status reports it, stop ends it', async () => {
    const home = freshHome();
    await initHome(home);
    const log = path.join(home, 'serve.log');
    const shim = path.join(home, 'bin');
    fs.mkdirSync(shim);
    fs.writeFileSync(path.join(shim, 'svc-router'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
    const env = cliEnv(home, { PATH: `${shim}:${process.env.PATH}` });
    const started = spawnSync('bash', ['-c', `svc-router serve --port 0 > ${JSON.stringify(log)} 2>&1 & echo $!`], { cwd: home, env, encoding: 'utf8' });
    const pid = Number(started.stdout.trim());
    pids.push(pid);

    let status: { code: number | null; stdout: string } = { code: null, stdout: '' };
    await until(async () => (status = await runCli(['status', '--json'], { home })).code === 0, 15_000, 'status to report the server running');
    const reported = JSON.parse(status.stdout);
    const listening = /listening on (http:\/\/\S+)/.exec(fs.readFileSync(log, 'utf8'))?.[1];
    expect(reported).toMatchObject({ running: true, pid, host: '127.0.0.1', url: listening, usageStore: 'file', stateFile: stateFile(home) });
    expect(reported.port).toBeGreaterThan(0);
    expect(listening).toBe(`http://127.0.0.1:${reported.port}`);
    expect(reported.uptimeSeconds).toBeGreaterThanOrEqual(0);
    expect((await fetch(`${reported.url}/health`)).status).toBe(200);

    const human = await runCli(['status'], { home });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`svc-router is running at ${listening}`);
    expect(human.stdout).toContain(`pid ${pid}`);
    // Its output goes to the file the shell opened, not to a terminal.
    expect(human.stdout).toContain(`output to ${log}`);
    expect(human.stdout).not.toContain('in a terminal');
    expect(reported.output).toEqual({ to: 'file', path: log });

    const stopped = await runCli(['stop'], { home });
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stdout).toContain(`stopping svc-router (pid ${pid})`);
    expect(stopped.stdout).toContain('stopped');
    expect(isProcessAlive(pid)).toBe(false);
    expect(fs.existsSync(stateFile(home))).toBe(false);
    await expect(fetch(`${reported.url}/health`)).rejects.toThrow();

    const after = await runCli(['status', '--json'], { home });
    expect(after.code).toBe(3);
    expect(JSON.parse(after.stdout)).toEqual({ running: false, stateFile: stateFile(home) });
  });

  it('stop reaches a serve whose wrapper (like npx) was killed without passing the signal on', async () => {
    const home = freshHome();
    await initHome(home);
    // sh runs serve as a child (it has more to do afterwards) and does not forward SIGTERM, as npx.
    const wrapper = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" serve --port 0 --quiet > /dev/null; echo done`], { cwd: home, env: cliEnv(home), stdio: 'ignore' });
    const wrapperExited = new Promise((resolve) => wrapper.on('exit', resolve));
    await until(() => findServer({ dir: home }).status === 'running', 15_000, 'serve to write its state file');
    const { state } = findServer({ dir: home }) as { state: ServerState };
    pids.push(state.pid);
    expect(state.pid).not.toBe(wrapper.pid);

    wrapper.kill('SIGTERM');
    await within(wrapperExited, 5_000, 'the wrapper to exit');
    expect((await fetch(`${state.url}/health`)).status).toBe(200);

    expect((await runCli(['stop'], { home })).code).toBe(0);
    expect(isProcessAlive(state.pid)).toBe(false);
    expect(findServer({ dir: home }).status).toBe('none');
  });

  it('a state file whose process is gone is reported as not running and removed', async () => {
    const home = freshHome();
    const dead = deadPid();
    writeServerState(sampleState(dead), home);

    const human = await runCli(['status'], { home });
    expect(human.code).toBe(3);
    expect(human.stdout).toContain('svc-router is not running');
    expect(human.stdout).toContain(`pid ${dead}`);
    expect(fs.existsSync(stateFile(home))).toBe(false);

    writeServerState(sampleState(dead), home);
    const json = await runCli(['status', '--json'], { home });
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toEqual({ running: false, stateFile: stateFile(home), stale: { pid: dead, url: 'http://127.0.0.1:8787' } });

    writeServerState(sampleState(dead), home);
    const stop = await runCli(['stop'], { home });
    expect(stop.code).toBe(0);
    expect(stop.stdout).toContain('svc-router is not running');
    expect(fs.existsSync(stateFile(home))).toBe(false);
  });

  it('stop with nothing running says so and exits 0', async () => {
    const home = freshHome();
    const stop = await runCli(['stop'], { home });
    expect(stop).toMatchObject({ code: 0, stderr: '' });
    expect(stop.stdout.trim()).toBe('svc-router is not running');
  });
});

describe('serve ends cleanly on a signal', () => {
  it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)('%s: exit 0 and its state file is gone', async (signal) => {
    const home = freshHome();
    await initHome(home);
    const server = await startServe(home);
    servers.push(server);
    await until(() => findServer({ dir: home }).status === 'running', 15_000, 'serve to write its state file');
    const state = await runCliJson(['status', '--json'], { home });
    expect(state).toMatchObject({ running: true, pid: server.child.pid, url: server.origin });

    server.child.kill(signal);
    expect(await within(server.exited, 15_000, `serve to exit on ${signal}`)).toEqual({ code: 0, signal: null });
    expect(fs.existsSync(stateFile(home))).toBe(false);
  });
});
