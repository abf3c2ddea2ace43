import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRouter, configText, initHome, makeHome, readConfig, removeHome, runCli, runCliJson, startServe } from './run-cli.js';

/** `routes guard` and `config set guardrails.secrets`: what they store, what they refuse, and that a running serve applies them. */

let home: string;
let key: string;
beforeAll(async () => {
  home = makeHome();
  key = await initHome(home);
  expect((await runCli(['routes', 'set', 'svc.intelligent-pro', 'offline'], { home })).code).toBe(0);
});
afterAll(() => removeHome(home));

/** A credential assembled when the test runs, so this file holds none. */
const GITHUB = ['ghp_', 'Zq8wX3vB7nM2kL9pR4tY6uI1oE5aS0dF7gH2'].join('');

describe('routes guard', () => {
  it("stores the route's mode, lists it, and --unset gives the route back to the router's setting", async () => {
    const set = await runCli(['routes', 'guard', 'svc.intelligent-pro', 'mask'], { home });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('placeholders');
    expect(readConfig(home)!.routePolicies['svc.intelligent-pro']).toEqual({ guardrails: { secrets: 'mask' } });
    const rows = await runCliJson(['routes', 'list', '--json'], { home });
    expect(rows.find((row: { model: string }) => row.model === 'svc.intelligent-pro').guardrails).toEqual({ secrets: 'mask' });
    expect((await runCli(['routes', 'list'], { home })).stdout).toMatch(/guard\s+secrets: mask/);
    const unset = await runCli(['routes', 'guard', 'svc.intelligent-pro', '--unset'], { home });
    expect(unset.code, unset.stderr).toBe(0);
    expect(readConfig(home)!.routePolicies['svc.intelligent-pro']).toBeUndefined();
  });

  it.each([
    [['routes', 'guard', 'svc.intelligent-pro', 'block'], 2, /one of off, warn, mask, refuse/],
    [['routes', 'guard', 'svc.intelligent-pro'], 2, /give a mode/],
    // A usage error is 2; acting on a route that is not there is a failure, 1, as for every routes command.
    [['routes', 'guard', 'svc.intelligent-lite', 'mask'], 1, /no route is set/],
    [['config', 'set', 'guardrails.secrets', 'on'], 2, /expected off, warn, mask, refuse/],
  ])('refuses %j with exit %i and changes nothing', async (args, code, message) => {
    const before = configText(home);
    const result = await runCli(args, { home });
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(configText(home)).toBe(before);
  });

  it("a running serve applies the router's setting and a route's own at once", async () => {
    const serve = await startServe(home);
    try {
      const ask = () => callRouter(serve.origin, key, 'POST', '/v1/chat/completions', { model: 'svc.intelligent-pro', messages: [{ role: 'user', content: `use ${GITHUB}` }] });
      expect((await ask()).status).toBe(200);
      expect((await runCli(['config', 'set', 'guardrails.secrets', 'refuse'], { home })).code).toBe(0);
      const refused = await ask();
      expect(refused.status).toBe(400);
      expect(refused.json.error.code).toBe('guardrail_refused');
      expect(JSON.stringify(refused.json)).not.toContain(GITHUB);
      expect((await runCli(['routes', 'guard', 'svc.intelligent-pro', 'warn'], { home })).code).toBe(0);
      expect((await ask()).status).toBe(200);
    } finally {
      await serve.kill();
    }
  });
});
