import { afterEach, describe, expect, it } from 'vitest';
import { callRouter, initHome, makeHome, removeHome, runCli, startServe, type ServeChild } from './run-cli.js';

/** `serve`'s request log on standard error and its /metrics switch, on the built binary. */

const homes: string[] = [];
const servers: ServeChild[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.kill()));
  homes.splice(0).forEach(removeHome);
});

async function serve(args: string[] = []): Promise<{ server: ServeChild; key: string; home: string }> {
  const home = makeHome();
  homes.push(home);
  const key = await initHome(home);
  const server = await startServe(home, ['--port', '0', ...args]);
  servers.push(server);
  return { server, key, home };
}

/** Standard-error lines that look like request-log lines (text or JSON). */
const logLines = (server: ServeChild): string[] => server.stderr().split('\n').filter((line) => /^\d{4}-\d\d-\d\dT|^\{"time"/.test(line));

/** Resolves once standard error holds `count` log lines (the log is written off the request path). */
function waitForLogLines(server: ServeChild, count: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (logLines(server).length < count) return false;
      server.child.stderr!.off('data', check);
      resolve(logLines(server));
      return true;
    };
    if (check()) return;
    server.child.stderr!.on('data', check);
    void server.exited.then(() => (check() ? undefined : reject(new Error(`serve exited with ${logLines(server).length} log lines:\n${server.stderr()}`))));
  });
}

const PROMPT = 'log me not';
const chatBody = { model: 'svc.intelligent-basic', messages: [{ role: 'user', content: PROMPT }] };

describe('serve request log', () => {
  it('writes a text line per request by default, without colour when stderr is not a terminal', async () => {
    const { server, key } = await serve();
    const reply = await callRouter(server.origin, key, 'POST', '/v1/chat/completions', chatBody);
    expect(reply.status).toBe(200);
    const [line] = await waitForLogLines(server, 1);
    expect(line).not.toMatch(/\u001b\[/);
    expect(line).toMatch(
      new RegExp(`^\\S+Z 200 POST /v1/chat/completions id=${reply.json.svc_meta.request_id} caller=alice format=chat model=svc\\.intelligent-basic backend=offline attempts=1 latency_ms=\\d+ tokens=\\d+\\+\\d+ cost_usd=0$`),
    );
    expect(server.stderr()).not.toContain(key);
    expect(server.stderr()).not.toContain(PROMPT);
  });

  it('writes JSON lines with --log-format json', async () => {
    const { server, key } = await serve(['--log-format', 'json']);
    await callRouter(server.origin, key, 'POST', '/v1/chat/completions', chatBody);
    await callRouter(server.origin, `${key}x`, 'GET', '/whoami');
    const entries = (await waitForLogLines(server, 2)).map((line) => JSON.parse(line));
    expect(entries[0]).toMatchObject({ status: 200, caller: 'alice', format: 'chat', model: 'svc.intelligent-basic', backend: 'offline', attempts: 1 });
    expect(entries[1]).toMatchObject({ status: 401, path: '/whoami', format: 'whoami' });
    expect(server.stderr()).not.toContain(key);
  });

  it('includes bodies only with --log-bodies', async () => {
    const { server, key } = await serve(['--log-format', 'json', '--log-bodies']);
    await callRouter(server.origin, key, 'POST', '/v1/chat/completions', chatBody);
    const [line] = await waitForLogLines(server, 1);
    expect(JSON.parse(line!).request_body).toEqual(chatBody);
  });

  it('writes nothing with --quiet, up to and including its exit', async () => {
    const { server, key } = await serve(['--quiet']);
    expect((await callRouter(server.origin, key, 'POST', '/v1/chat/completions', chatBody)).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(logLines(server)).toEqual([]);
  });

  it('flushes what is queued when it stops', async () => {
    const { server, key } = await serve(['--log-format', 'json']);
    await callRouter(server.origin, key, 'GET', '/whoami');
    server.child.kill('SIGTERM');
    await server.exited;
    expect(logLines(server).map((line) => JSON.parse(line).path)).toEqual(['/whoami']);
  });

  it('exits 2 for an unknown --log-format, before changing anything', async () => {
    const home = makeHome();
    homes.push(home);
    const result = await runCli(['serve', '--port', '0', '--log-format', 'yaml'], { home });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("'yaml' is invalid");
  });
});

describe('serve --metrics', () => {
  it('serves /metrics and prints its address only when turned on', async () => {
    const { server, key } = await serve(['--metrics']);
    await server.waitForLine(/Metrics \(Prometheus\): /);
    expect(server.lines).toContain(`  Metrics (Prometheus): ${server.origin}/metrics`);
    await callRouter(server.origin, key, 'GET', '/whoami');
    const metrics = await fetch(`${server.origin}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^svc_router_requests_total\{endpoint="\/whoami",status="200"\} 1$/m);

    const off = await serve();
    expect((await fetch(`${off.server.origin}/metrics`)).status).toBe(404);
    expect(off.server.lines.some((line) => line.includes('Metrics'))).toBe(false);
  });

  it('is turned on by config server.metrics true', async () => {
    const home = makeHome();
    homes.push(home);
    await initHome(home);
    const set = await runCli(['config', 'set', 'server.metrics', 'true'], { home });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout.trim()).toBe('server.metrics = true');
    expect((await runCli(['config', 'set', 'server.metrics', 'yes'], { home })).code).toBe(2);
    const server = await startServe(home, ['--port', '0']);
    servers.push(server);
    expect((await fetch(`${server.origin}/metrics`)).status).toBe(200);
  });
});
