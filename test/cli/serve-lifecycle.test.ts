import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findServer, isProcessAlive, writeServerState, type ServerState } from '../../src/cli/server-state.js';
import { unusedPort } from '../helpers/unused-port.js';
import { until, within } from './pty.js';
import { BIN, callRouter, cliEnv, initHome, makeHome, removeHome, runCli, runCliJson, startServe, type ServeChild } from './run-cli.js';

const homes: string[] = [];
const servers: ServeChild[] = [];
afterEach(async () => {
  // Whatever a test left running in the background is ended by its pid, then its home removed.
  for (const home of homes) {
    const found = findServer({ dir: home });
    if (found.status === 'running') process.kill(found.state.pid, 'SIGKILL');
  }
  await Promise.all(servers.splice(0).map((server) => server.kill()));
  homes.splice(0).forEach(removeHome);
});

async function freshHome(): Promise<{ home: string; key: string }> {
  const home = makeHome();
  homes.push(home);
  return { home, key: await initHome(home) };
}

const running = (home: string): ServerState => {
  const found = findServer({ dir: home });
  if (found.status !== 'running') throw new Error(`no serve running for ${home}`);
  return found.state;
};

describe('serve --detach, stop, restart', () => {
  it('serve --detach returns once it listens, says how to stop it, logs to serve.log; stop ends it', async () => {
    const { home, key } = await freshHome();
    const started = await runCli(['serve', '--detach', '--port', '0'], { home });
    expect(started.code, started.stderr).toBe(0);
    const state = running(home);
    expect(started.stdout).toContain(`svc-router is running in the background (pid ${state.pid}) at ${state.url}`);
    expect(started.stdout).toContain('stop: svc-router stop');
    expect(started.stdout).toContain(`log: ${path.join(home, 'serve.log')}`);
    expect(state).toMatchObject({ detached: true, argv: ['--port', '0', '--log-file', path.join(home, 'serve.log')], cwd: home, logFile: path.join(home, 'serve.log') });

    // It answers, and outlives the command that started it.
    expect((await callRouter(state.url, key, 'GET', '/whoami')).status).toBe(200);
    const status = await runCliJson(['status', '--json'], { home });
    expect(status).toMatchObject({ running: true, pid: state.pid, url: state.url });

    const stopped = await runCli(['stop'], { home });
    expect(stopped.code).toBe(0);
    expect(isProcessAlive(state.pid)).toBe(false);
    // The banner and the request went to the log, flushed before it exited.
    const log = fs.readFileSync(path.join(home, 'serve.log'), 'utf8');
    expect(log).toContain(`svc-router listening on ${state.url}`);
    expect(log).toContain('Stop it with `svc-router stop`.');
    expect(log).toMatch(/200 GET \/whoami/);
    expect((await runCli(['status'], { home })).code).toBe(3);
  }, 60_000);

  it('status shows how it was started, and never a Redis password, in its text or its JSON', async () => {
    const { home } = await freshHome();
    const store = `redis://:s3cret-pw@127.0.0.1:${await unusedPort()}`;
    const started = await runCli(['serve', '--detach', '--port', '0', '--usage-store', store], { home });
    expect(started.code, started.stderr).toBe(0);
    const state = running(home);
    // The state file (0600) keeps the argument as given, so restart can pass it again.
    expect(state.argv).toContain(store);
    const text = await runCli(['status'], { home });
    expect(text.stdout).toContain(`in the background · log: ${path.join(home, 'serve.log')}`);
    expect(text.stdout).toContain('started as: svc-router serve --port 0 --usage-store redis://:***@127.0.0.1:');
    const json = await runCli(['status', '--json'], { home });
    expect(JSON.parse(json.stdout)).toMatchObject({ running: true, detached: true, logFile: path.join(home, 'serve.log') });
    for (const output of [text.stdout, json.stdout]) expect(output).not.toContain('s3cret-pw');
  }, 60_000);

  it('a background serve that cannot start says why on the terminal and exits non-zero, leaving nothing behind', async () => {
    const { home } = await freshHome();
    const bad = await runCli(['serve', '--detach', '--port', '70000'], { home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--port must be a number from 0 to 65535');

    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const taken = await runCli(['serve', '--detach', '--port', String(port)], { home });
      expect(taken.code).toBe(1);
      expect(taken.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(taken.stderr).toContain('serve exited before it listened (exit code 1)');
    } finally {
      blocker.close();
    }
    expect(findServer({ dir: home }).status).toBe('none');
  }, 60_000);

  it('restart stops the running serve and starts it again with its own arguments, in its own directory', async () => {
    const { home, key } = await freshHome();
    const script = path.join(home, 'turns.json');
    fs.writeFileSync(script, JSON.stringify([{ text: 'scripted answer' }]));
    const logFile = path.join(home, 'logs', 'router.log');
    // Relative paths: restart must run it where it first ran.
    const started = await runCli(['serve', '--detach', '--port', '0', '--offline-script', 'turns.json', '--log-file', 'logs/router.log'], { home });
    expect(started.code, started.stderr).toBe(0);
    const first = running(home);
    expect(first.logFile).toBe(logFile);

    const restarted = await runCli(['restart'], { home });
    expect(restarted.code, restarted.stderr).toBe(0);
    const second = running(home);
    expect(second.pid).not.toBe(first.pid);
    expect(isProcessAlive(first.pid)).toBe(false);
    expect(second.argv).toEqual(first.argv);
    expect(restarted.stdout).toContain(`stopping svc-router (pid ${first.pid})`);
    expect(restarted.stdout).toContain(`svc-router is running in the background (pid ${second.pid}) at ${second.url}`);
    const reply = await callRouter(second.url, key, 'POST', '/v1/chat/completions', { model: 'svc.intelligent-basic', messages: [{ role: 'user', content: 'hi' }] });
    expect(reply.json.choices[0].message.content).toBe('scripted answer');
    // Both runs wrote to the same log, the second after the first.
    const log = fs.readFileSync(logFile, 'utf8');
    expect(log.indexOf(`listening on ${first.url}`)).toBeGreaterThanOrEqual(0);
    expect(log.indexOf(`listening on ${second.url}`)).toBeGreaterThan(log.indexOf(`listening on ${first.url}`));
  }, 60_000);

  it('restart with none running starts one; a serve run in a terminal is restarted in the background with a log file', async () => {
    const { home } = await freshHome();
    // restart starts what config says; port 0, as the default 8787 may be another test's.
    expect((await runCli(['config', 'set', 'server.port', '0'], { home })).code).toBe(0);
    const none = await runCli(['restart'], { home });
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toContain('svc-router is not running; starting it');
    expect(running(home).argv).toEqual(['--log-file', path.join(home, 'serve.log')]);
    expect((await runCli(['stop'], { home })).code).toBe(0);

    const foreground = await startServe(home, ['--port', '0', '--quiet']);
    servers.push(foreground);
    await foreground.waitForLine(/^Stop with Ctrl-C, or `svc-router stop` from another terminal\.$/);
    const restarted = await runCli(['restart'], { home });
    expect(restarted.code, restarted.stderr).toBe(0);
    expect(await foreground.exited).toEqual({ code: 0, signal: null });
    expect(running(home)).toMatchObject({ detached: true, argv: ['--port', '0', '--quiet', '--log-file', path.join(home, 'serve.log')] });
  }, 60_000);

  it('--log-file rotates by size and keeps N files; with room for all, every request line is there exactly once', async () => {
    const { home, key } = await freshHome();
    const logFile = path.join(home, 'serve.log');
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--log-file', logFile, '--log-max-size', '1000', '--log-keep', '50', '--log-format', 'json'], {
      cwd: home,
      env: cliEnv(home),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let terminal = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (terminal += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (terminal += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await until(() => findServer({ dir: home }).status === 'running', 20_000, 'serve to write its state file');
    const url = running(home).url;
    const requests = 40;
    for (let i = 0; i < requests; i++) expect((await callRouter(url, key, 'GET', `/whoami?n=${i}`)).status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    // Everything went to the file once serve listened; the terminal got nothing.
    expect(terminal).toBe('');

    const files = fs.readdirSync(home).filter((name) => name.startsWith('serve.log'));
    expect(files.length).toBeGreaterThan(2);
    for (const name of files) expect(fs.statSync(path.join(home, name)).size).toBeLessThanOrEqual(1000);
    const text = files.map((name) => fs.readFileSync(path.join(home, name), 'utf8')).join('');
    const entries = text.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { path: string });
    expect(entries.filter((entry) => entry.path === '/whoami')).toHaveLength(requests);

    const bad = await runCli(['serve', '--port', '0', '--log-file', logFile, '--log-keep', 'many'], { home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--log-keep must be a positive whole number');
  }, 60_000);
});

describe('one serve per config directory', () => {
  it('refuses a second serve (in a terminal or --detach), naming the first; status and stop keep meaning the first', async () => {
    const { home } = await freshHome();
    const first = await startServe(home, ['--port', '0', '--quiet']);
    servers.push(first);
    const state = running(home);
    expect(state.pid).toBe(first.child.pid);

    for (const args of [['serve', '--port', '0'], ['serve', '--detach', '--port', '0']]) {
      const second = await runCli(args, { home });
      expect(second.code, args.join(' ')).toBe(1);
      expect(second.stderr).toContain(`already in use by svc-router (pid ${state.pid}) at ${state.url}`);
      expect(second.stdout).not.toMatch(/listening on/);
    }
    // The first still owns the state file: status names it, and stop stops it.
    expect(running(home).pid).toBe(state.pid);
    const status = await runCliJson(['status', '--json'], { home });
    expect(status).toMatchObject({ running: true, pid: state.pid });
    expect((await runCli(['stop'], { home })).code).toBe(0);
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect((await runCli(['status'], { home })).code).toBe(3);
  }, 60_000);

  it('of two serves started at once, exactly one runs; the other says which', async () => {
    const { home } = await freshHome();
    const start = () => {
      const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--quiet'], { cwd: home, env: cliEnv(home), stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      return { child, exited, stderr: () => stderr };
    };
    const both = [start(), start()];
    try {
      const loser = await within(Promise.race(both.map((entry) => entry.exited.then(() => entry))), 20_000, 'one of the two to give way');
      const winner = both.find((entry) => entry !== loser)!;
      expect(await loser.exited).toBe(1);
      await until(() => findServer({ dir: home }).status === 'running', 20_000, 'the other serve to run');
      expect(running(home).pid).toBe(winner.child.pid);
      expect(loser.stderr()).toContain(`already in use by svc-router (pid ${winner.child.pid})`);
    } finally {
      for (const entry of both) if (entry.child.exitCode === null && entry.child.signalCode === null) entry.child.kill('SIGKILL');
      await Promise.all(both.map((entry) => entry.exited));
    }
  }, 60_000);

  it('a state file left by a serve that died does not block the next one', async () => {
    const { home } = await freshHome();
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeServerState({ pid: Number(dead.stdout), host: '127.0.0.1', port: 1, url: 'http://127.0.0.1:1', usageStore: 'file', startedAt: new Date().toISOString() }, home);
    const serve = await startServe(home, ['--port', '0', '--quiet']);
    servers.push(serve);
    await until(() => findServer({ dir: home }).status === 'running', 20_000, 'serve to write its state file');
    expect(running(home).pid).toBe(serve.child.pid);
  }, 60_000);
});

describe('serve and the variables its keys come from', () => {
  const backendHome = async (variable: string): Promise<string> => {
    const { home } = await freshHome();
    expect((await runCli(['backends', 'add', 'team', '--type', 'openai-chat', '--base-url', 'http://127.0.0.1:9/v1', '--api-key-env', variable], { home })).code).toBe(0);
    expect((await runCli(['routes', 'set', 'svc.intelligent-pro', 'team:gpt-4o'], { home })).code).toBe(0);
    return home;
  };

  it('warns at start for each backend whose key variable is unset, and records its name (never a value) in serve.json', async () => {
    const home = await backendHome('TEAM_KEY_UNSET_HERE');
    const serve = await startServe(home, ['--port', '0', '--quiet'], { TEAM_KEY_UNSET_HERE: undefined });
    servers.push(serve);
    await until(() => /TEAM_KEY_UNSET_HERE/.test(serve.stderr()), 20_000, 'the warning');
    expect(serve.stderr()).toContain("warning: backend 'team' (routes svc.intelligent-pro) takes its key from $TEAM_KEY_UNSET_HERE, which is not set here: every request routed to it fails with 502");
    expect(running(home).environment).toMatchObject({ set: [], unset: ['TEAM_KEY_UNSET_HERE'] });
    expect(running(home).environment!.all).not.toContain('TEAM_KEY_UNSET_HERE');
  }, 60_000);

  it('restart from a shell without a variable the serve was started with refuses and leaves it running; with it, restarts', async () => {
    const home = await backendHome('TEAM_KEY');
    const secret = 'sk-team-secret-value-0123456789';
    const started = await runCli(['serve', '--detach', '--port', '0'], { home, env: { TEAM_KEY: secret } });
    expect(started.code, started.stderr).toBe(0);
    const first = running(home);
    // Every variable it has is named (a backend added later reads its key from this environment), never a value.
    expect(first.environment).toMatchObject({ set: ['TEAM_KEY'], unset: [] });
    expect(first.environment!.all).toContain('TEAM_KEY');
    expect(fs.readFileSync(path.join(home, 'serve.json'), 'utf8')).not.toContain(secret);

    const refused = await runCli(['restart'], { home, env: { TEAM_KEY: undefined } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`not restarting: the running serve (pid ${first.pid}) was started with $TEAM_KEY set, and this shell does not set it`);
    expect(refused.stderr).toContain('the serve is left running');
    expect(refused.stdout).not.toContain('stopping');
    expect(isProcessAlive(first.pid)).toBe(true);
    expect(running(home).pid).toBe(first.pid);

    const restarted = await runCli(['restart'], { home, env: { TEAM_KEY: secret } });
    expect(restarted.code, restarted.stderr).toBe(0);
    expect(running(home).pid).not.toBe(first.pid);
  }, 60_000);

  it('restart keeps the declarative file a serve read from SVC_ROUTER_CONFIG, from a shell that does not set it', async () => {
    const { home } = await freshHome();
    const file = path.join(home, 'team.json');
    fs.writeFileSync(file, JSON.stringify({ routes: { 'svc.intelligent-lite': ['offline'] } }));
    const started = await runCli(['serve', '--detach', '--port', '0'], { home, env: { SVC_ROUTER_CONFIG: file } });
    expect(started.code, started.stderr).toBe(0);
    expect(running(home).config).toBe(file);
    const restarted = await runCli(['restart'], { home, env: { SVC_ROUTER_CONFIG: undefined } });
    expect(restarted.code, restarted.stderr).toBe(0);
    expect(running(home).config).toBe(file);
  }, 60_000);
});
