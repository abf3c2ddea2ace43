import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { callRouter, configFile, initHome, makeHome, readConfig, removeHome, runCli, runCliJson, startServe, type ServeChild } from './run-cli.js';

const homes: string[] = [];
const servers: ServeChild[] = [];
const freshHome = (): string => {
  const home = makeHome();
  homes.push(home);
  return home;
};
const serve = async (home: string, args?: string[]): Promise<ServeChild> => {
  const server = await startServe(home, args);
  servers.push(server);
  return server;
};

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.kill()));
  homes.splice(0).forEach(removeHome);
});

describe('serve as a child process', () => {
  it('prints its address, answers /health, and exits 0 on SIGTERM', async () => {
    const home = freshHome();
    const key = await initHome(home);
    const server = await serve(home);
    expect(server.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.origin).not.toMatch(/:0$/);

    const health = await fetch(`${server.origin}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });

    const whoami = await callRouter(server.origin, key, 'GET', '/whoami');
    expect(whoami.status).toBe(200);
    expect(whoami.json.developer).toBe('alice');

    // The banner ends with the export lines, pointing at the real port and the stored key.
    await server.waitForLine(/^export SVC_ROUTER_KEY=/);
    expect(server.lines).toContain(`export OPENAI_BASE_URL=${server.origin}/v1`);
    expect(server.lines).toContain(`export OPENAI_API_KEY=${key}`);
    expect(server.lines).toContain(`export GOOGLE_GEMINI_BASE_URL=${server.origin}`);
    expect(server.lines).toContain(`export GEMINI_API_KEY=${key}`);
    // Each door's base URL, as the README's quick start shows them.
    expect(server.lines).toContain(`  Gemini base URL (generateContent): ${server.origin}`);

    server.child.kill('SIGTERM');
    const exit = await server.exited;
    expect(exit).toEqual({ code: 0, signal: null });
  });

  it('SIGTERM lets an in-flight streamed request finish before exiting 0', async () => {
    const home = freshHome();
    const key = await initHome(home);
    const server = await serve(home);
    const response = await fetch(`${server.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc.intelligent-pro', stream: true, messages: [{ role: 'user', content: 'finish me' }] }),
    });
    expect(response.status).toBe(200);
    server.child.kill('SIGTERM');
    const text = await response.text();
    expect(text).toContain('finish me');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  it('works in an empty home: issues the local key itself and prints export lines', async () => {
    const home = freshHome();
    const server = await serve(home);
    await server.waitForLine(/^export SVC_ROUTER_KEY=/);

    expect(server.lines.some((line) => /First run: issued a local key/.test(line))).toBe(true);
    const stored = readConfig(home)!;
    expect(typeof stored.localKey).toBe('string');
    expect(stored.localKey).toMatch(/^svc_[a-z0-9-]+_[A-Za-z0-9_-]{32,}$/);
    expect(fs.statSync(configFile(home)).mode & 0o777).toBe(0o600);

    const exports = server.lines.filter((line) => line.startsWith('export '));
    // The same lines `env` prints: one story for every client.
    const env = await runCli(['env', '--base-url', server.origin], { home });
    expect(exports).toEqual(env.stdout.trimEnd().split('\n'));
    expect(exports).toContain(`export ANTHROPIC_AUTH_TOKEN=${stored.localKey}`);
    expect(exports.at(-1)).toBe(`export SVC_ROUTER_KEY=${stored.localKey}`);

    const whoami = await callRouter(server.origin, stored.localKey, 'GET', '/whoami');
    expect(whoami.status).toBe(200);
    const chat = await callRouter(server.origin, stored.localKey, 'POST', '/v1/chat/completions', {
      model: 'svc.intelligent-lite',
      messages: [{ role: 'user', content: 'zero config' }],
    });
    expect(chat.status).toBe(200);
    expect(chat.json.choices[0].message.content).toContain('zero config');

    // The CLI in the same home now finds the key serve stored.
    const cliWhoami = await runCliJson(['whoami', '--json'], { home });
    expect(cliWhoami.developer).toBe(whoami.json.developer);

    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
  });

  it('a key issued (and revoked) with the CLI while serve runs takes effect at once', async () => {
    const home = freshHome();
    await initHome(home);
    const server = await serve(home);

    const issued = await runCliJson(['keys', 'issue', '--developer', 'dave', '--org', 'acme', '--tier', 'basic', '--json'], { home });
    const whoami = await callRouter(server.origin, issued.key, 'GET', '/whoami');
    expect(whoami.status).toBe(200);
    expect(whoami.json).toMatchObject({ developer: 'dave', organisation: 'acme', tier: 'basic' });
    const chat = await callRouter(server.origin, issued.key, 'POST', '/v1/chat/completions', {
      model: 'svc.intelligent-basic',
      messages: [{ role: 'user', content: 'new key' }],
    });
    expect(chat.status).toBe(200);

    expect((await runCli(['keys', 'revoke', 'dave'], { home })).code).toBe(0);
    const refused = await callRouter(server.origin, issued.key, 'GET', '/whoami');
    expect(refused.status).toBe(401);
    expect(server.child.exitCode).toBeNull();
  });

  it('a route change with the CLI while serve runs takes effect at once', async () => {
    const home = freshHome();
    const key = await initHome(home);
    const server = await serve(home);
    const before = await callRouter(server.origin, key, 'GET', '/v1/models');
    expect(before.json.data.map((model: { id: string }) => model.id)).not.toContain('svc.custom');
    expect((await runCli(['routes', 'set', 'svc.custom', 'offline', '--new'], { home })).code).toBe(0);
    const after = await callRouter(server.origin, key, 'GET', '/v1/models');
    expect(after.json.data.map((model: { id: string }) => model.id)).toContain('svc.custom');
  });

  it('takes its port from config when --port is not given', async () => {
    const home = freshHome();
    await initHome(home);
    expect((await runCli(['config', 'set', 'server.port', '0'], { home })).code).toBe(0);
    const server = await serve(home, []);
    expect(server.origin).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
    expect((await fetch(`${server.origin}/health`)).status).toBe(200);
  });

  it('a bad --port exits 2; a port already in use exits 1', async () => {
    const home = freshHome();
    await initHome(home);
    const bad = await runCli(['serve', '--port', 'abc'], { home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--port/);

    const server = await serve(home);
    const port = new URL(server.origin).port;
    const busy = await runCli(['serve', '--port', port], { home });
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(/already in use/);
  });
});
