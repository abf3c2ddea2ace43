import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse as parseToml } from 'smol-toml';
import { afterEach, describe, expect, it } from 'vitest';
import { unusedPort } from '../helpers/unused-port.js';
import { redisAvailable, startRedis, type RedisServer } from '../reliability/redis-process.js';
import { BIN, cliEnv, callRouter, ROOT, initHome, makeHome, removeHome, runCli, startServe, type ServeChild } from './run-cli.js';

/**
 * What a newcomer meets between `serve` in one terminal and a working client in another, on the
 * built binary: every command finds the running serve without flags, the in-process checks say
 * when no server answers, and `connect` writes what it can undo.
 */

const run = promisify(execFile);
const homes: string[] = [];
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  homes.splice(0).forEach(removeHome);
});

function freshHome(): string {
  const home = makeHome();
  homes.push(home);
  return home;
}

async function serve(home: string, args: string[], env: Record<string, string | undefined> = {}): Promise<ServeChild> {
  const server = await startServe(home, args, env);
  cleanups.push(() => server.kill());
  return server;
}

describe('serve flags reach every other command (through the state file)', () => {
  it('serve --port P: env, connect codex, doctor and status all name P with no flag', async () => {
    const home = freshHome();
    const key = await initHome(home);
    const port = await unusedPort();
    const origin = `http://127.0.0.1:${port}`;
    await serve(home, ['--port', String(port)]);

    const env = await runCli(['env'], { home });
    expect(env.code, env.stderr).toBe(0);
    expect(env.stdout).toContain(`=${origin}/v1\n`);
    expect(env.stdout).toContain(`=${origin}\n`);
    expect(env.stdout).not.toContain(':8787');

    const codex = await runCli(['connect', 'codex'], { home });
    expect(codex.code, codex.stderr).toBe(0);
    expect((parseToml(codex.stdout) as { model_providers: { svc: { base_url: string } } }).model_providers.svc.base_url).toBe(`${origin}/v1`);

    const doctor = await runCli(['doctor', '--json'], { home });
    const report = JSON.parse(doctor.stdout) as { base_url: string; checks: Array<{ id: string; status: string; message: string }> };
    expect(report.base_url).toBe(`${origin}/v1`);
    expect(report.checks.find((check) => check.id === 'reachable')?.status).toBe('pass');
    expect(report.checks.find((check) => check.id === 'whoami')?.status).toBe('pass');
    expect(report.checks.find((check) => check.id === 'base-url')?.message).toContain("running serve's address");

    const status = await runCli(['status', '--json'], { home });
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, port, url: origin });

    // A flag still wins over the state file.
    const flagged = await runCli(['env', '--base-url', 'http://elsewhere.test:1/v1', '--key', key], { home });
    expect(flagged.stdout).toContain('=http://elsewhere.test:1/v1\n');
  });

  it.runIf(redisAvailable)('serve --usage-store redis://…: in-process whoami counts the same requests as the server', async () => {
    const home = freshHome();
    const key = await initHome(home);
    const redisPort = await unusedPort();
    const redisDir = fs.mkdtempSync(path.join(home, 'redis-'));
    const redis: RedisServer = await startRedis(redisPort, redisDir);
    cleanups.push(() => redis.kill());
    const server = await serve(home, ['--port', '0', '--usage-store', redis.url]);
    for (let turn = 0; turn < 3; turn++) {
      const reply = await callRouter(server.origin, key, 'POST', '/v1/chat/completions', { model: 'svc.intelligent-lite', messages: [{ role: 'user', content: `hi ${turn}` }] });
      expect(reply.status).toBe(200);
    }
    const overHttp = await callRouter(server.origin, key, 'GET', '/whoami');
    expect(overHttp.json.usage.requests).toBe(3);
    // The server's ledger writes to Redis as it goes; in-process whoami (no --base-url) must read it there.
    const inProcess = await runCli(['whoami', '--json'], { home });
    expect(inProcess.code, inProcess.stderr).toBe(0);
    expect(JSON.parse(inProcess.stdout).usage).toMatchObject({ requests: 3, tokens_used: overHttp.json.usage.tokens_used });
    // The state file keeps the password-free form for display.
    const state = JSON.parse(fs.readFileSync(path.join(home, 'serve.json'), 'utf8'));
    expect(state.usageStoreUrl).toBe(redis.url);
    expect(fs.statSync(path.join(home, 'serve.json')).mode & 0o777).toBe(0o600);
  });
});

describe('the in-process quick checks say when no server answers', () => {
  it('whoami and chat still run in-process (exit 0) and say once on stderr that no server answered', async () => {
    const home = freshHome();
    await initHome(home);
    const port = await unusedPort();
    expect((await runCli(['config', 'set', 'server.port', String(port)], { home })).code).toBe(0);
    for (const args of [['whoami'], ['chat', 'hi'], ['models', '--json']]) {
      const result = await runCli(args, { home });
      expect(result.code, result.stderr).toBe(0);
      const notes = result.stderr.split('\n').filter((line) => line.includes('no svc-router answers'));
      expect(notes, args.join(' ')).toHaveLength(1);
      expect(notes[0]).toContain(`http://127.0.0.1:${port}`);
      expect(notes[0]).toContain('svc-router status');
      expect(notes[0]).toContain(`--base-url http://127.0.0.1:${port}`);
      expect(result.stdout).not.toContain('no svc-router answers');
    }
  });

  it('says nothing when serve runs', async () => {
    const home = freshHome();
    await initHome(home);
    await serve(home, ['--port', '0']);
    const result = await runCli(['whoami'], { home });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
  });
});

describe('connect: stdout is the runnable artefact', () => {
  it('eval "$(svc-router env)", then connect openai-sdk > example.mjs && node example.mjs runs against the serve it found', async () => {
    const home = freshHome();
    const key = await initHome(home);
    await serve(home, ['--port', '0']);
    // Inside the checkout, so the module finds the openai package as a user's project would.
    const project = fs.mkdtempSync(path.join(ROOT, 'test', '.snippet-'));
    cleanups.push(() => fs.rmSync(project, { recursive: true, force: true }));
    const cli = `"${process.execPath}" "${BIN}"`;
    const { stdout, stderr } = await run('sh', ['-c', `eval "$(${cli} env)" && ${cli} connect openai-sdk > example.mjs && "${process.execPath}" example.mjs`], {
      cwd: project,
      env: cliEnv(home, { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined }),
      timeout: 20_000,
    });
    expect(stdout).toContain('you said "Say hello."');
    // The shell hint was shown to the person, not written into the module.
    expect(stderr).toContain(`export OPENAI_API_KEY=${key}`);
    expect(fs.readFileSync(path.join(project, 'example.mjs'), 'utf8')).not.toContain('export OPENAI_API_KEY');
  });

  it('connect claude > settings.json is the JSON alone', async () => {
    const home = freshHome();
    await initHome(home);
    const result = await runCli(['connect', 'claude'], { home });
    expect(Object.keys((JSON.parse(result.stdout) as { env: object }).env)).toContain('ANTHROPIC_BASE_URL');
  });
});

describe('connect --write keeps a backup and can be undone', () => {
  const settingsFile = (home: string) => path.join(home, '.claude', 'settings.json');

  it('restores an existing settings file byte for byte and mode for mode', async () => {
    const home = freshHome();
    await initHome(home);
    const file = settingsFile(home);
    fs.mkdirSync(path.dirname(file));
    const original = '{\n  "model": "opus",\n  "env": { "KEEP": "1" }\n}\n';
    fs.writeFileSync(file, original, { mode: 0o644 });
    fs.chmodSync(file, 0o644);

    const written = await runCli(['connect', 'claude', '--write'], { home });
    expect(written.code, written.stderr).toBe(0);
    const backup = `${file}.svc-router-backup.json`;
    expect(fs.statSync(backup).mode & 0o777).toBe(0o600);
    expect(written.stderr).toContain(`kept in ${backup}`);
    expect(written.stderr).toContain('connect claude --undo');

    const undone = await runCli(['connect', 'claude', '--undo'], { home });
    expect(undone.code, undone.stderr).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe(original);
    expect(fs.statSync(file).mode & 0o777).toBe(0o644);
    expect(fs.existsSync(backup)).toBe(false);
    expect(undone.stdout).toMatch(/^- .*ANTHROPIC_AUTH_TOKEN/m);

    const again = await runCli(['connect', 'claude', '--undo'], { home });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('nothing to undo');
  });

  it('removes a file the write created, and refuses to undo over later edits unless --force', async () => {
    const home = freshHome();
    await initHome(home);
    const codexHome = path.join(home, 'codex');
    const file = path.join(codexHome, 'config.toml');
    expect((await runCli(['connect', 'codex', '--write'], { home, env: { CODEX_HOME: codexHome } })).code).toBe(0);
    fs.appendFileSync(file, '# my own edit\n');
    const refused = await runCli(['connect', 'codex', '--undo'], { home, env: { CODEX_HOME: codexHome } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('has changed since svc-router wrote it');
    expect(fs.readFileSync(file, 'utf8')).toContain('# my own edit');
    const forced = await runCli(['connect', 'codex', '--undo', '--force'], { home, env: { CODEX_HOME: codexHome } });
    expect(forced.code, forced.stderr).toBe(0);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('init --force warns that the old key, still in the client settings, stops working', async () => {
    const home = freshHome();
    const oldKey = await initHome(home);
    expect((await runCli(['connect', 'claude', '--write'], { home })).code).toBe(0);
    const result = await runCli(['init', '--force'], { home, env: { OPENAI_API_KEY: oldKey } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/warning: the previous local key stops working now/);
    expect(result.stderr).toContain(settingsFile(home));
    expect(result.stderr).toContain('$OPENAI_API_KEY in this shell');
    expect(result.stderr).toContain('connect claude --write');
    expect(result.stderr).not.toContain(oldKey);
  });
});

describe('doctor --client checks what that client needs', () => {
  it('claude: the settings connect --write manages, and shell variables that would override them', async () => {
    const home = freshHome();
    const key = await initHome(home);
    const server = await serve(home, ['--port', '0']);
    const doctor = async (env: Record<string, string | undefined> = {}) => JSON.parse((await runCli(['doctor', '--client', 'claude', '--json'], { home, env })).stdout);
    const ids = (report: any, status: string) => report.checks.filter((check: any) => check.status === status).map((check: any) => check.id);

    const before = await doctor();
    expect(ids(before, 'fail')).toEqual(['client:claude']);
    expect(before.checks.find((check: any) => check.id === 'client:claude').remedy).toContain('connect claude --write');

    expect((await runCli(['connect', 'claude', '--write'], { home })).code).toBe(0);
    const after = await doctor();
    expect(ids(after, 'fail')).toEqual([]);
    expect(ids(after, 'pass')).toEqual(expect.arrayContaining(['client:claude', 'env:claude']));

    const fighting = await doctor({ ANTHROPIC_API_KEY: 'svc_alice_someOtherKeyFromAnOldShellSomeOtherKey' });
    expect(ids(fighting, 'fail')).toEqual(['env:claude']);
    expect(JSON.stringify(fighting)).not.toContain('someOtherKeyFromAnOldShell');
    expect(server.origin).toBe(after.base_url.replace(/\/v1$/, ''));
    expect(JSON.stringify(after)).not.toContain(key);
  });

  it('codex: its config.toml and SVC_ROUTER_KEY, which Codex runs printenv for', async () => {
    const home = freshHome();
    const key = await initHome(home);
    await serve(home, ['--port', '0']);
    const codexHome = path.join(home, 'codex');
    const doctor = async (env: Record<string, string | undefined>) =>
      JSON.parse((await runCli(['doctor', '--client', 'codex', '--json'], { home, env: { CODEX_HOME: codexHome, ...env } })).stdout);
    const failedIds = (report: any) => report.checks.filter((check: any) => check.status === 'fail').map((check: any) => check.id);

    expect(failedIds(await doctor({}))).toEqual(['client:codex', 'env:SVC_ROUTER_KEY']);
    expect((await runCli(['connect', 'codex', '--write'], { home, env: { CODEX_HOME: codexHome } })).code).toBe(0);
    expect(failedIds(await doctor({}))).toEqual(['env:SVC_ROUTER_KEY']);
    expect(failedIds(await doctor({ SVC_ROUTER_KEY: key }))).toEqual([]);
  });

  it('gemini: settings.json and .env as connect --write leaves them, and shell variables that would win over the .env file', async () => {
    const home = freshHome();
    const key = await initHome(home);
    const server = await serve(home, ['--port', '0']);
    const geminiHome = path.join(home, 'gemini-home');
    const base = { GEMINI_CLI_HOME: geminiHome, GEMINI_API_KEY: undefined, GOOGLE_GEMINI_BASE_URL: undefined };
    const doctor = async (env: Record<string, string | undefined> = {}) => JSON.parse((await runCli(['doctor', '--client', 'gemini', '--json'], { home, env: { ...base, ...env } })).stdout);
    const ids = (report: any, status: string) => report.checks.filter((check: any) => check.status === status).map((check: any) => check.id);

    const before = await doctor();
    expect(ids(before, 'fail')).toEqual(['client:gemini', 'client:gemini-env']);
    expect(before.checks.find((check: any) => check.id === 'client:gemini').remedy).toContain('connect gemini --write');

    expect((await runCli(['connect', 'gemini', '--write'], { home, env: base })).code).toBe(0);
    const after = await doctor();
    expect(ids(after, 'fail')).toEqual([]);
    expect(ids(after, 'pass')).toEqual(expect.arrayContaining(['client:gemini', 'client:gemini-env', 'env:gemini']));

    // A file another tool left: the wrong auth type, a Google model, an old address.
    const settingsFile = path.join(geminiHome, '.gemini', 'settings.json');
    fs.writeFileSync(settingsFile, '{ "security": { "auth": { "selectedType": "oauth-personal" } }, "model": { "name": "gemini-2.5-pro" } }');
    fs.writeFileSync(path.join(geminiHome, '.gemini', '.env'), `GOOGLE_GEMINI_BASE_URL=${server.origin}/v1\nGEMINI_API_KEY=svc_alice_someOtherKeyFromAnOldShellSomeOtherKey\n`);
    const stale = await doctor({ GEMINI_API_KEY: 'AIzaSyTHEIRSTHEIRSTHEIRSTHEIRSTHEIRS12' });
    expect(ids(stale, 'fail')).toEqual(['client:gemini', 'client:gemini-env', 'env:gemini']);
    const message = (id: string) => stale.checks.find((check: any) => check.id === id).message;
    expect(message('client:gemini')).toContain('security.auth.selectedType is "oauth-personal", not "gemini-api-key"');
    expect(message('client:gemini')).toContain('model.name is "gemini-2.5-pro", not an svc SKU this router serves');
    expect(message('client:gemini-env')).toContain(`GOOGLE_GEMINI_BASE_URL is ${server.origin}/v1, not ${server.origin}`);
    expect(message('client:gemini-env')).toContain('GEMINI_API_KEY holds another key');
    expect(message('env:gemini')).toContain('GEMINI_API_KEY');
    const text = JSON.stringify(stale);
    for (const secret of [key, 'someOtherKeyFromAnOldShell', 'AIzaSyTHEIRS']) expect(text).not.toContain(secret);
  });

  it('openai: OPENAI_BASE_URL must be the /v1 form of the running router', async () => {
    const home = freshHome();
    const key = await initHome(home);
    const server = await serve(home, ['--port', '0']);
    const result = await runCli(['doctor', '--client', 'openai', '--json'], { home, env: { OPENAI_BASE_URL: server.origin, OPENAI_API_KEY: key } });
    const report = JSON.parse(result.stdout);
    const failing = report.checks.filter((check: any) => check.status === 'fail');
    expect(failing.map((check: any) => check.id)).toEqual(['env:OPENAI_BASE_URL']);
    expect(failing[0].remedy).toBe(`export OPENAI_BASE_URL=${server.origin}/v1`);
    expect(result.code).toBe(1);
  });
});

describe('a taken port: what holds it, and the next free one', () => {
  it('names another HTTP server by its Server header and title, and offers a free port', async () => {
    const home = freshHome();
    await initHome(home);
    const squatter = http.createServer((request, response) => {
      response.setHeader('server', 'other-gateway/1.2');
      response.end('<html><head><title>Other \u001b[31mGateway</title></head></html>');
    });
    squatter.listen(0, '127.0.0.1');
    await once(squatter, 'listening');
    cleanups.push(() => new Promise<void>((resolve) => squatter.close(() => resolve())));
    const { port } = squatter.address() as AddressInfo;

    const result = await runCli(['serve', '--port', String(port)], { home });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^svc-router: port ${port} on 127.0.0.1 is already in use by another HTTP server`));
    expect(result.stderr).toContain('Server: other-gateway/1.2');
    expect(result.stderr).toContain('title "Other [31mGateway"'.replace('[31m', ' [31m'));
    expect(result.stderr).not.toContain('\u001b');
    const offered = Number(/serve --port (\d+)/.exec(result.stderr)?.[1]);
    expect(offered).toBeGreaterThan(port);
    // The offered port really is free: serve takes it.
    const moved = await serve(home, ['--port', String(offered)]);
    expect(moved.origin).toBe(`http://127.0.0.1:${offered}`);
  });

  it('names the svc-router already serving there, with its pid', async () => {
    const home = freshHome();
    await initHome(home);
    const first = await serve(home, ['--port', '0']);
    const port = Number(new URL(first.origin).port);
    const result = await runCli(['serve', '--port', String(port)], { home });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`svc-router (pid ${first.child.pid}`);
    expect(result.stderr).toContain('svc-router status');
  });
});
