import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAIChatUpstream } from '../fakes/openai-chat-upstream.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { unusedPort } from '../helpers/unused-port.js';
import { callRouter, configFile, initHome, makeHome, removeHome, runCli, startServe } from './run-cli.js';

/**
 * `svc-router doctor` as a user runs it (the built binary), against a real router on a real
 * socket and against setups broken on purpose, one per check. Every assertion reads the JSON
 * report or the printed lines.
 */

interface Check {
  id: string;
  status: 'pass' | 'fail' | 'skip' | 'warn';
  message: string;
  remedy?: string;
}
interface Report {
  base_url: string;
  failures: number;
  checks: Check[];
}

const SPEC_401_REMEDY = 'Fix the key; no trailing whitespace.';
const SPEC_404_REMEDY = 'Include /v1 in the base URL for chat-format and responses-format clients.';
/** Network checks wait this long; the timeout tests wait exactly this, nothing else does. */
const TIMEOUT_MS = 800;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function router(options: Parameters<typeof startRouter>[0] = {}): Promise<TestRouter> {
  const started = await startRouter(options);
  cleanups.push(() => started.close());
  // The serve-port check looks at the configured port: point it at this router, which is serving there.
  started.config.update((settings) => void (settings.server.port = Number(new URL(started.origin).port)));
  return started;
}

function home(): string {
  const dir = makeHome();
  cleanups.push(() => removeHome(dir));
  return dir;
}

async function doctor(args: string[], dir: string, env: Record<string, string | undefined> = {}): Promise<{ code: number | null; report: Report; stderr: string }> {
  const result = await runCli(['doctor', '--json', '--timeout', String(TIMEOUT_MS), ...args], { home: dir, env });
  let report: Report;
  try {
    report = JSON.parse(result.stdout) as Report;
  } catch {
    throw new Error(`doctor printed no JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  }
  return { code: result.code, report, stderr: result.stderr };
}

const check = (report: Report, id: string): Check => {
  const found = report.checks.find((entry) => entry.id === id);
  if (!found) throw new Error(`no check '${id}' in ${JSON.stringify(report.checks.map((entry) => entry.id))}`);
  return found;
};
const failed = (report: Report): string[] => report.checks.filter((entry) => entry.status === 'fail').map((entry) => entry.id);

/** A TCP server on a loopback port; `onSocket` decides what happens to each connection. */
async function tcpServer(onSocket: (socket: net.Socket) => void): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    onSocket(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return (server.address() as net.AddressInfo).port;
}

/** Rewrites config.json by hand, as a user editing it would, keeping its mode. */
function editConfig(dir: string, change: (json: Record<string, any>) => void): void {
  const file = configFile(dir);
  const json = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, any>;
  change(json);
  fs.writeFileSync(file, JSON.stringify(json, null, '\t'));
}

describe('svc-router doctor against a healthy setup', () => {
  it('passes every check with the stored key and a /v1 base URL, and exits 0', async () => {
    const live = await router();
    const { code, report } = await doctor(['--base-url', live.baseURL], live.home);

    expect(failed(report)).toEqual([]);
    expect(code).toBe(0);
    expect(report.failures).toBe(0);
    expect(report.base_url).toBe(live.baseURL);
    expect(report.checks.map((entry) => entry.id)).toEqual(['key', 'base-url', 'reachable', 'whoami', 'usage-cap', 'backends', 'routes', 'config-file', 'serve-port']);
    expect(check(report, 'key').status).toBe('pass');
    expect(check(report, 'base-url').status).toBe('pass');
    expect(check(report, 'reachable').message).toMatch(/^127\.0\.0\.1:\d+ accepts connections/);
    expect(check(report, 'whoami')).toMatchObject({ status: 'pass', message: expect.stringContaining('alice · acme · tier pro') });
    expect(check(report, 'usage-cap').status).toBe('pass');
    expect(check(report, 'config-file')).toMatchObject({ status: 'pass', message: expect.stringContaining('mode 0600') });
    expect(check(report, 'serve-port')).toMatchObject({ status: 'pass', message: expect.stringContaining('svc-router is serving there') });
    // The report never carries the key itself.
    expect(JSON.stringify(report)).not.toContain(live.key);
  });

  it('prints one line per check and a summary in text mode', async () => {
    const live = await router();
    const result = await runCli(['doctor', '--base-url', live.baseURL, '--timeout', String(TIMEOUT_MS)], { home: live.home });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`svc-router doctor: ${live.baseURL}`);
    const checks = lines.slice(1, -2).map((line) => /^([✓✗-]) (\S+)\s+(.+)$/.exec(line));
    expect(checks.every(Boolean), result.stdout).toBe(true);
    expect(checks.map((match) => match![2])).toContain('whoami');
    expect(checks.filter((match) => match![1] === '✗')).toEqual([]);
    expect(lines.at(-1)).toBe('No problems found.');
    expect(result.stdout).not.toContain(live.key);
  });
});

describe('svc-router doctor: the key', () => {
  it('fails whoami with 401 and the spec remedy for a wrong key', async () => {
    const live = await router();
    const { code, report } = await doctor(['--base-url', live.baseURL, '--key', 'svc_alice_wrongwrongwrongwrongwrongwrongwrong'], live.home);
    expect(failed(report)).toEqual(['whoami']);
    expect(code).toBe(1);
    const whoami = check(report, 'whoami');
    expect(whoami.message).toContain('401 Unauthorized');
    expect(whoami.message).toContain('Invalid API key');
    // A clean key the router does not know: the whitespace remedy would send the user the wrong way.
    expect(whoami.remedy).not.toContain('whitespace');
    expect(whoami.remedy).toContain('svc-router env');
    expect(check(report, 'key').status).toBe('pass');
  });

  it('fails the key check for a key with a trailing space, and does not send it', async () => {
    const live = await router();
    const { code, report, stderr } = await doctor(['--base-url', live.baseURL, '--key', `${live.key} `], live.home);
    expect(stderr).toBe('');
    expect(failed(report)).toEqual(['key']);
    expect(code).toBe(1);
    expect(check(report, 'key').message).toMatch(/trailing whitespace/);
    expect(check(report, 'key').remedy).toBe(SPEC_401_REMEDY);
    expect(check(report, 'whoami').status).toBe('skip');
  });

  it("fails the key check for a provider's key, saying whose and where the svc key is, never quoting it", async () => {
    const live = await router();
    const providerKey = `sk-ant-api03-${'Zx9'.repeat(30)}AA`;
    const { report, stderr } = await doctor(['--base-url', live.baseURL, '--key', providerKey], live.home);
    expect(stderr).toBe('');
    expect(failed(report)).toEqual(['key']);
    expect(check(report, 'key').message).toMatch(/provider's key \(Anthropic\)/);
    expect(check(report, 'key').remedy).toContain('svc-router env');
    expect(JSON.stringify(report)).not.toContain('Zx9Zx9');

    const whoami = await runCli(['whoami', '--key', providerKey], { home: live.home });
    expect(whoami.code).not.toBe(0);
    expect(whoami.stderr).toMatch(/provider's key \(Anthropic, sk-ant-…\).*`svc-router env`/);
    expect(whoami.stdout + whoami.stderr).not.toContain('Zx9Zx9');
  });

  it('fails the key check when there is no key at all', async () => {
    const dir = home();
    const { code, report } = await doctor(['--base-url', 'http://127.0.0.1:9/v1'], dir);
    expect(check(report, 'key').status).toBe('fail');
    expect(check(report, 'key').message).toMatch(/^no key/);
    expect(check(report, 'key').remedy).toContain('svc-router init');
    expect(code).toBe(report.failures);
    expect(report.failures).toBeGreaterThanOrEqual(1);
  });

  it('reads the key from SVC_ROUTER_KEY', async () => {
    const live = await router();
    const { report } = await doctor(['--base-url', live.baseURL], live.home, { SVC_ROUTER_KEY: 'svc_alice_fromtheenvironmentfromtheenvironment' });
    expect(check(report, 'whoami').status).toBe('fail');
  });
});

describe('svc-router doctor: the base URL', () => {
  it('accepts either base URL form without --client: the Anthropic one (no /v1) and the OpenAI one', async () => {
    const live = await router();
    for (const given of [live.origin, `${live.origin}/`, live.baseURL]) {
      const { code, report } = await doctor(['--base-url', given], live.home);
      expect(failed(report), given).toEqual([]);
      expect(code).toBe(0);
      expect(check(report, 'whoami').status).toBe('pass');
    }
  });

  it('with --client openai or codex, fails a base URL without /v1 with the spec remedy and the URL to use instead', async () => {
    const live = await router();
    for (const client of ['openai', 'codex']) {
      const { report } = await doctor(['--base-url', live.origin, '--client', client], live.home);
      const base = check(report, 'base-url');
      expect(base.status, client).toBe('fail');
      expect(base.message).toContain('does not end in /v1');
      expect(base.remedy).toContain(SPEC_404_REMEDY);
      expect(base.remedy).toContain(`${live.origin}/v1`);
      // The router itself is fine: /whoami lives beside /v1.
      expect(check(report, 'whoami').status).toBe('pass');
    }
  });

  it('with --client claude or anthropic, fails a base URL that ends in /v1 and names the one without', async () => {
    const live = await router();
    for (const client of ['claude', 'anthropic']) {
      const { report } = await doctor(['--base-url', live.baseURL, '--client', client], live.home);
      const base = check(report, 'base-url');
      expect(base.status, client).toBe('fail');
      expect(base.message).toContain('/v1/v1/messages');
      expect(base.remedy).toContain(`Use ${live.origin} (without /v1)`);
      expect(check(report, 'base-url').status).toBe('fail');
    }
    const fine = await doctor(['--base-url', live.origin, '--client', 'anthropic'], live.home);
    expect(check(fine.report, 'base-url').status).toBe('pass');
  });

  it('skips the /v1 check when no base URL is given, and checks the configured address', async () => {
    const live = await router();
    live.config.update((settings) => void (settings.server.host = '127.0.0.1'));
    const { code, report } = await doctor([], live.home);
    expect(check(report, 'base-url').status).toBe('skip');
    expect(report.base_url).toBe(`${live.origin}/v1`);
    expect(check(report, 'whoami').status).toBe('pass');
    expect(code).toBe(0);
  });

  it('exits 2 for a base URL that is not a URL', async () => {
    const result = await runCli(['doctor', '--base-url', 'not a url'], { home: home() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--base-url is not a valid URL');
  });
});

describe('svc-router doctor: reaching the router', () => {
  it('reports "connection refused" for a closed port and skips whoami', async () => {
    const live = await router();
    const port = await unusedPort();
    const { code, report } = await doctor(['--base-url', `http://127.0.0.1:${port}/v1`], live.home);
    expect(failed(report)).toEqual(['reachable']);
    expect(code).toBe(1);
    const reachable = check(report, 'reachable');
    expect(reachable.message).toBe(`127.0.0.1:${port}: connection refused`);
    expect(reachable.remedy).toContain('svc-router serve');
    expect(check(report, 'whoami').status).toBe('skip');
  });

  /**
   * A timeout needs a SYN that nobody answers. A non-routable address would send traffic off this
   * machine, so the test makes the same condition on loopback instead: a listener that never
   * accepts (its process blocks its own event loop) with a backlog of 1. Once two connections fill
   * its accept queue, the kernel drops further SYNs, and the doctor's connect times out.
   */
  it('reports "timeout" (not "refused") when the connection attempt is never answered', async () => {
    const live = await router();
    const { port, child } = await startFullBacklogListener();
    cleanups.push(() => void child.kill('SIGKILL'));
    const fillers = [net.connect(port, '127.0.0.1'), net.connect(port, '127.0.0.1')];
    cleanups.push(() => fillers.forEach((socket) => socket.destroy()));
    await Promise.all(fillers.map((socket) => once(socket, 'connect')));

    const { code, report } = await doctor(['--base-url', `http://127.0.0.1:${port}/v1`], live.home);
    const reachable = check(report, 'reachable');
    expect(reachable.status).toBe('fail');
    expect(reachable.message).toBe(`127.0.0.1:${port}: timeout: no answer within ${TIMEOUT_MS} ms`);
    expect(reachable.message).not.toContain('refused');
    expect(reachable.remedy).toContain('must be allowed');
    expect(check(report, 'whoami').status).toBe('skip');
    expect(code).toBe(1);
  });

  it('fails whoami when something accepts connections but never answers HTTP', async () => {
    const live = await router();
    const port = await tcpServer(() => {
      // Accept, read nothing back, never answer.
    });
    const { code, report } = await doctor(['--base-url', `http://127.0.0.1:${port}/v1`], live.home);
    expect(check(report, 'reachable').status).toBe('pass');
    const whoami = check(report, 'whoami');
    expect(whoami.status).toBe('fail');
    expect(whoami.message).toBe(`GET http://127.0.0.1:${port}/whoami: no HTTP answer within ${TIMEOUT_MS} ms`);
    expect(whoami.remedy).toContain('does not answer HTTP');
    expect(failed(report)).toEqual(['whoami']);
    expect(code).toBe(1);
  });

  it('fails whoami when the address answers HTTP but is not svc-router', async () => {
    const live = await router();
    const server = http.createServer((_req, res) => res.writeHead(404).end('nope'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const port = (server.address() as net.AddressInfo).port;
    const { report } = await doctor(['--base-url', `http://127.0.0.1:${port}/v1`], live.home);
    expect(check(report, 'whoami')).toMatchObject({ status: 'fail', message: expect.stringContaining('404 Not Found') });
  });

  it('fails the usage cap when the key has used it up (model requests would get 429)', async () => {
    // Room for the prompt's input (a request larger than what is left is refused), not for the answer too.
    const live = await router({ capTokens: 10 });
    const chat = await fetch(`${live.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${live.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc.intelligent-lite', messages: [{ role: 'user', content: 'use up the cap' }] }),
    });
    expect(chat.status).toBe(200);
    const { code, report } = await doctor(['--base-url', live.baseURL], live.home);
    expect(failed(report)).toEqual(['usage-cap']);
    expect(check(report, 'usage-cap').message).toMatch(/^usage cap reached: \d+ of 10 tokens/);
    expect(check(report, 'usage-cap').remedy).toContain('svc-router keys cap alice TOKENS');
    expect(code).toBe(1);
  });
});

describe('svc-router doctor: backends and routes', () => {
  it('proves each backend on its model list: an answering one passes, a closed port fails as refused, and the route falls back past it', async () => {
    const live = await router();
    const up = await startOpenAIChatUpstream([{ text: 'OK' }], { models: ['some-model'] });
    cleanups.push(() => up.close());
    const upPort = new URL(up.url).port;
    const downPort = await unusedPort();
    live.config.update((settings) => {
      settings.backends.up = { type: 'openai-chat', baseUrl: up.url };
      settings.backends.down = { type: 'anthropic', baseUrl: `http://127.0.0.1:${downPort}` };
      settings.routes['svc.intelligent-pro'] = ['up:some-model', 'down', 'offline'];
    });
    const { code, report } = await doctor(['--base-url', live.baseURL], live.home);
    expect(check(report, 'backend:up')).toMatchObject({ status: 'pass', message: expect.stringMatching(new RegExp(`^openai-chat at 127\\.0\\.0\\.1:${upPort}: answers without a key \\(model list, 1 model,`)) });
    const down = check(report, 'backend:down');
    expect(down.status).toBe('fail');
    expect(down.message).toBe(`anthropic at 127.0.0.1:${downPort}: connection refused`);
    expect(down.remedy).toContain('svc-router backends add down');
    expect(check(report, 'route:svc.intelligent-pro')).toMatchObject({ status: 'warn', message: '→ up:some-model → down → offline: falls back past down (see backend:down)' });
    expect(failed(report)).toEqual(['backend:down']);
    expect(code).toBe(1);
  });

  it('fails a route whose target names a backend missing from config.json', async () => {
    const live = await router();
    editConfig(live.home, (json) => {
      json.routes = { 'svc.intelligent-basic': ['ghost:some-model', 'offline'], 'svc.intelligent-lite': ['offline'] };
    });
    const { code, report } = await doctor(['--base-url', live.baseURL], live.home);
    const route = check(report, 'route:svc.intelligent-basic');
    expect(route.status).toBe('fail');
    expect(route.message).toBe("target ghost:some-model names backend 'ghost', which is not configured");
    expect(route.remedy).toContain('svc-router routes set svc.intelligent-basic');
    expect(check(report, 'route:svc.intelligent-lite').status).toBe('pass');
    expect(failed(report)).toEqual(['route:svc.intelligent-basic']);
    expect(code).toBe(1);
  });

  it('exits with the number of failures, capped at 100', async () => {
    const live = await router();
    editConfig(live.home, (json) => {
      json.routes = Object.fromEntries(Array.from({ length: 120 }, (_, index) => [`svc.broken-${index}`, [`ghost${index}`]]));
    });
    const { code, report } = await doctor(['--base-url', live.baseURL], live.home);
    expect(report.failures).toBe(120);
    expect(code).toBe(100);
  });
});

describe('svc-router doctor: the config file and the serve port', () => {
  it('fails a config file others can read (chmod 644), with the chmod to run', async () => {
    const live = await router();
    fs.chmodSync(configFile(live.home), 0o644);
    const { code, report } = await doctor(['--base-url', live.baseURL], live.home);
    const file = check(report, 'config-file');
    expect(file.status).toBe('fail');
    expect(file.message).toBe(`${configFile(live.home)} is mode 0644: others can read the keys in it`);
    expect(file.remedy).toBe(`chmod 600 ${configFile(live.home)}`);
    expect(failed(report)).toEqual(['config-file']);
    expect(code).toBe(1);
  });

  it('fails a config file that is not JSON, and still runs the other checks', async () => {
    const live = await router();
    fs.writeFileSync(configFile(live.home), '{ not json', { mode: 0o600 });
    const { report } = await doctor(['--base-url', live.baseURL, '--key', live.key], live.home);
    expect(check(report, 'config-file')).toMatchObject({ status: 'fail', message: expect.stringContaining('cannot be read') });
    expect(check(report, 'reachable').status).toBe('pass');
  });

  it('leads with a config.json that cannot be read, and judges nothing it holds on the defaults, while the serve routes on', async () => {
    const dir = home();
    const key = await initHome(dir);
    expect((await runCli(['routes', 'set', 'svc.intelligent-pro', 'offline'], { home: dir })).code).toBe(0);
    const serve = await startServe(dir, ['--port', '0', '--quiet']);
    cleanups.push(() => serve.kill());
    fs.writeFileSync(configFile(dir), '{ "localKey": ', { mode: 0o600 });

    const { code, report } = await doctor([], dir);
    expect(report.checks[0]).toMatchObject({ id: 'config-file', status: 'fail' });
    expect(report.checks[0]!.message).toContain('cannot be read');
    expect(report.checks[0]!.message).toContain(`the running serve (pid ${serve.child.pid}) routes with the last version it read`);
    // No line claims what the unreadable file would say: no key, no backends, no routes, a port to take.
    for (const entry of report.checks.slice(1)) {
      expect(`${entry.message} ${entry.remedy ?? ''}`, entry.id).not.toMatch(/svc-router init|none configured|no key|is free for/);
    }
    expect(check(report, 'key').status).toBe('skip');
    expect(check(report, 'backends').status).toBe('skip');
    expect(check(report, 'routes').status).toBe('skip');
    expect(check(report, 'reachable').status).toBe('pass');
    expect(failed(report)).toEqual(['config-file']);
    expect(code).toBe(1);
    // What it says is so: the serve still answers with the last good file.
    expect((await callRouter(serve.origin, key, 'POST', '/v1/chat/completions', { model: 'svc.intelligent-pro', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);

    // A key given is still checked against the serve.
    const withKey = await doctor(['--key', key], dir);
    expect(check(withKey.report, 'whoami').status).toBe('pass');
    expect(failed(withKey.report)).toEqual(['config-file']);
  });

  it('fails the serve port when another program holds it', async () => {
    const live = await router();
    const busy = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('some other program'));
    busy.listen(0, '127.0.0.1');
    await once(busy, 'listening');
    cleanups.push(() => new Promise<void>((resolve) => busy.close(() => resolve())));
    const port = (busy.address() as net.AddressInfo).port;
    live.config.update((settings) => void (settings.server.port = port));

    const { code, report } = await doctor(['--base-url', live.baseURL], live.home);
    const serve = check(report, 'serve-port');
    expect(serve.status).toBe('fail');
    expect(serve.message).toBe(`127.0.0.1:${port} is in use by another program`);
    expect(serve.remedy).toContain('svc-router config set server.port');
    expect(failed(report)).toEqual(['serve-port']);
    expect(code).toBe(1);
  });

  it('passes the serve port when it is free', async () => {
    const live = await router();
    const port = await unusedPort();
    live.config.update((settings) => void (settings.server.port = port));
    const { report } = await doctor(['--base-url', live.baseURL], live.home);
    expect(check(report, 'serve-port')).toMatchObject({ status: 'pass', message: `127.0.0.1:${port} is free for svc-router serve` });
  });
});

/** A child process that listens with a backlog of 1 and then blocks its event loop, so it never accepts. */
async function startFullBacklogListener(): Promise<{ port: number; child: ChildProcess }> {
  const script = `
    const net = require('node:net');
    const server = net.createServer();
    server.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
      require('node:fs').writeSync(1, server.address().port + '\\n');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120000);
    });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return { port: Number(line), child };
}
