import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAIChatUpstream } from '../fakes/openai-chat-upstream.js';
import { callRouter, initHome, makeHome, removeHome, runCli, startServe, type ServeChild } from './run-cli.js';

/**
 * A running serve reads upstream keys from its own environment, fixed when it started. A backend
 * added while it runs is judged by that environment, not by the shell that added it: `backends
 * add` says the serve lacks the variable, and doctor fails naming it, exactly when a request
 * routed there gets 502, and says nothing when the serve has it.
 */

const KEY = 'sk-late-0123456789abcdef';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Check {
  id: string;
  status: string;
  message: string;
  remedy?: string;
}

async function setUp(serveEnv: Record<string, string | undefined>): Promise<{ home: string; key: string; serve: ServeChild; upstreamUrl: string }> {
  const home = makeHome();
  cleanups.push(() => removeHome(home));
  const key = await initHome(home);
  const upstream = await startOpenAIChatUpstream([{ text: 'OK' }], { apiKey: KEY });
  cleanups.push(() => upstream.close());
  const serve = await startServe(home, ['--port', '0', '--quiet'], serveEnv);
  cleanups.push(() => serve.kill());
  return { home, key, serve, upstreamUrl: upstream.url };
}

/** `backends add … --api-key-env LATE_KEY` and a route to it, from a shell that sets LATE_KEY. */
async function addLateBackend(home: string, upstreamUrl: string): Promise<string> {
  const shell = { LATE_KEY: KEY };
  const added = await runCli(['backends', 'add', 'late', '--type', 'openai-chat', '--base-url', upstreamUrl, '--api-key-env', 'LATE_KEY'], { home, env: shell });
  expect(added.code, added.stderr).toBe(0);
  const routed = await runCli(['routes', 'set', 'svc.intelligent-pro', 'late:gpt-4o'], { home, env: shell });
  expect(routed.code, routed.stderr).toBe(0);
  return added.stderr;
}

async function doctorBackend(home: string, origin: string): Promise<{ code: number | null; check: Check; route: Check }> {
  const result = await runCli(['doctor', '--json', '--base-url', `${origin}/v1`], { home, env: { LATE_KEY: KEY } });
  const checks = (JSON.parse(result.stdout) as { checks: Check[] }).checks;
  return { code: result.code, check: checks.find((entry) => entry.id === 'backend:late')!, route: checks.find((entry) => entry.id === 'route:svc.intelligent-pro')! };
}

const chat = (origin: string, key: string) => callRouter(origin, key, 'POST', '/v1/chat/completions', { model: 'svc.intelligent-pro', messages: [{ role: 'user', content: 'hi' }] });

describe('a backend added while serve runs is judged by the serve’s environment', () => {
  it('serve started without the variable: add says so and to restart; doctor fails naming it; the request gets 502', async () => {
    const { home, key, serve, upstreamUrl } = await setUp({ LATE_KEY: undefined });
    const said = await addLateBackend(home, upstreamUrl);
    expect(said).toContain(`the running serve (pid ${serve.child.pid})`);
    expect(said).toContain('does not have $LATE_KEY');
    expect(said).toContain('svc-router restart');
    expect(said).not.toContain(KEY);

    const answer = await chat(serve.origin, key);
    expect(answer.status).toBe(502);

    const { code, check, route } = await doctorBackend(home, serve.origin);
    expect(check.status).toBe('fail');
    expect(check.message).toContain(`$LATE_KEY, which was not set when the running serve (pid ${serve.child.pid}) started`);
    expect(check.remedy).toContain('svc-router restart');
    expect(route.status).toBe('fail');
    expect(code).toBeGreaterThan(0);
  });

  it('serve started with the variable: add says nothing of it; doctor passes; the request is answered', async () => {
    const { home, key, serve, upstreamUrl } = await setUp({ LATE_KEY: KEY });
    const said = await addLateBackend(home, upstreamUrl);
    expect(said).not.toContain('LATE_KEY');

    const answer = await chat(serve.origin, key);
    expect(answer.status).toBe(200);

    const { check, route } = await doctorBackend(home, serve.origin);
    expect(check.status, check.message).toBe('pass');
    expect(route.status).toBe('pass');
  });
});
