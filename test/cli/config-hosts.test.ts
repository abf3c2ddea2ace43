import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configText, initHome, makeHome, readConfig, removeHome, runCli, startServe, type ServeChild } from './run-cli.js';

/** GET with a Host of our choosing (fetch sends the URL's). */
function statusFor(origin: string, path: string, host: string): Promise<number> {
  const { port } = new URL(origin);
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, headers: { host } }, (response) => {
        response.resume();
        resolve(response.statusCode!);
      })
      .on('error', reject);
  });
}

describe('server.hosts and server.cors with config set', () => {
  let home: string;
  beforeAll(async () => {
    home = makeHome();
    await initHome(home);
  });
  afterAll(() => removeHome(home));

  it('stores each name and origin in the one spelling compared, and config get lists them', async () => {
    const set = await runCli(['config', 'set', 'server.hosts', 'Router.Example.com, ::1 ,10.0.0.5,router.example.com.'], { home });
    expect(set.code).toBe(0);
    expect(readConfig(home)!.server.hosts).toEqual(['router.example.com', '[::1]', '10.0.0.5']);
    expect((await runCli(['config', 'get', 'server.hosts'], { home })).stdout.trim()).toBe('router.example.com,[::1],10.0.0.5');
    expect((await runCli(['config', 'set', 'server.cors', 'HTTPS://App.Example.com:443,http://localhost:5173'], { home })).code).toBe(0);
    expect(readConfig(home)!.server.cors).toEqual(['https://app.example.com', 'http://localhost:5173']);
  });

  it.each([
    ['server.hosts', 'router.example.com:8080'],
    ['server.hosts', 'http://router.example.com'],
    ['server.hosts', '*'],
    ['server.hosts', 'evil.com@localhost'],
    ['server.cors', '*'],
    ['server.cors', 'null'],
    ['server.cors', 'https://app.example.com/path'],
    ['server.cors', 'app.example.com'],
  ])('refuses %s %s with exit 2, changing nothing', async (name, value) => {
    const before = configText(home);
    const result = await runCli(['config', 'set', name, value], { home });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${name}: expected`);
    expect(configText(home)).toBe(before);
  });

  it("'' empties a list", async () => {
    expect((await runCli(['config', 'set', 'server.cors', ''], { home })).code).toBe(0);
    expect(readConfig(home)!.server.cors).toEqual([]);
  });
});

describe('server.hosts and server.cors in the declarative file', () => {
  let home: string;
  let serve: ServeChild | undefined;
  beforeAll(async () => {
    home = makeHome();
    await initHome(home);
  });
  afterAll(async () => {
    await serve?.kill();
    removeHome(home);
  });

  it('validates names and origins, naming a bad one', async () => {
    fs.writeFileSync(path.join(home, 'bad.json'), JSON.stringify({ server: { hosts: ['router.example.com:80'], cors: ['https://app.example.com/'] } }));
    const run = await runCli(['config', 'validate', 'bad.json', '--json'], { home });
    expect(run.code).toBe(2);
    const result = JSON.parse(run.stdout) as { valid: boolean; problems: Array<{ path: string; message: string }> };
    expect(result.valid).toBe(false);
    // One problem each, saying what was expected.
    expect(result.problems.map((problem) => problem.path).sort()).toEqual(['server.cors[0]', 'server.hosts[0]']);
    expect(result.problems.map((problem) => problem.message).join('\n')).toMatch(/host name or IP address[\s\S]*origin/);
  });

  it('is what a serve reading the file answers to', async () => {
    fs.writeFileSync(path.join(home, 'team.json'), JSON.stringify({ server: { hosts: ['router.team.internal'], cors: ['https://app.example.com'] } }));
    expect((await runCli(['config', 'validate', 'team.json'], { home })).code).toBe(0);
    serve = await startServe(home, ['--port', '0', '--ui', '--config', path.join(home, 'team.json')]);
    expect(await statusFor(serve.origin, '/ui/api/overview', 'router.team.internal')).toBe(200);
    expect(await statusFor(serve.origin, '/ui/api/overview', 'other.internal')).toBe(403);
    const preflight = await fetch(`${serve.origin}/v1/chat/completions`, { method: 'OPTIONS', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
  });
});
