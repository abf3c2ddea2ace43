import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRouter, configText, initHome, makeHome, readConfig, removeHome, runCli, runCliJson, startServe } from './run-cli.js';

let home: string;
let key: string;
beforeAll(async () => {
  home = makeHome();
  key = await initHome(home);
  for (const name of ['main', 'spare']) {
    const added = await runCli(['backends', 'add', name, '--type', 'openai-chat', '--base-url', 'http://127.0.0.1:9/v1', '--api-key', `sk-own-${name}`], { home });
    expect(added.code, added.stderr).toBe(0);
  }
  expect((await runCli(['routes', 'set', 'svc.intelligent-pro', 'main:gpt-4o', 'spare:gpt-4o-mini'], { home })).code).toBe(0);
});
afterAll(() => removeHome(home));

describe('backends pool', () => {
  it('stores the pool, and lists it without ever printing a key', async () => {
    const set = await runCli(['backends', 'pool', 'main', '--key', 'sk-pool-one-secret', '--key', 'sk-pool-two-secret', '--key-env', 'POOL_THIRD', '--strategy', 'fill-first'], { home });
    expect(set.code, set.stderr).toBe(0);
    expect(readConfig(home)!.backends.main.keyPool).toEqual({
      strategy: 'fill-first',
      keys: [{ apiKey: 'sk-pool-one-secret' }, { apiKey: 'sk-pool-two-secret' }, { apiKeyEnv: 'POOL_THIRD' }],
    });
    const listed = await runCli(['backends', 'list', '--json'], { home });
    expect(JSON.parse(listed.stdout).find((row: { name: string }) => row.name === 'main').api_key).toBe('pool:3 fill-first');
    const table = await runCli(['backends', 'list'], { home });
    expect(listed.stdout + table.stdout + set.stdout).not.toMatch(/sk-pool-(one|two)-secret/);
  });

  it('keeps the pool when the backend is added again, and says so', async () => {
    const again = await runCli(['backends', 'add', 'main', '--type', 'openai-chat', '--base-url', 'http://127.0.0.1:9/v1'], { home });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('pool of 3 keys is kept');
    expect(readConfig(home)!.backends.main.keyPool.keys).toHaveLength(3);
  });

  it.each([
    [['backends', 'pool', 'main', '--key', 'only-one'], /at least two keys/, 2],
    [['backends', 'pool', 'main', '--key', 'a', '--key', 'b', '--strategy', 'random'], /random/, 2],
    [['backends', 'pool', 'nosuch', '--key', 'a', '--key', 'b'], /no backend named 'nosuch'/, 1],
    [['backends', 'pool', 'main', '--key-env', 'NOT A VAR', '--key', 'b'], /environment variable/, 2],
  ])('refuses %j (a usage error exits 2, an unknown backend 1) and changes nothing', async (args, message, code) => {
    const before = configText(home);
    const result = await runCli(args, { home });
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(configText(home)).toBe(before);
  });
});

describe('routes rule and weights', () => {
  it('adds rules in order, replaces one by name in place, and lists them', async () => {
    expect((await runCli(['routes', 'rule', 'svc.intelligent-pro', 'long', 'spare:gpt-4.1', '--context-above', '60000'], { home })).code).toBe(0);
    expect((await runCli(['routes', 'rule', 'svc.intelligent-pro', 'think', 'main:o3', '--thinking'], { home })).code).toBe(0);
    expect((await runCli(['routes', 'rule', 'svc.intelligent-pro', 'long', 'spare:gpt-4.1', '--context-above', '90000', '--image'], { home })).code).toBe(0);
    expect(readConfig(home)!.routePolicies['svc.intelligent-pro'].rules).toEqual([
      { name: 'long', when: { contextAbove: 90_000, image: true }, targets: ['spare:gpt-4.1'] },
      { name: 'think', when: { thinking: true }, targets: ['main:o3'] },
    ]);
    const rows = await runCliJson(['routes', 'list', '--json'], { home });
    expect(rows.find((row: { model: string }) => row.model === 'svc.intelligent-pro').rules).toHaveLength(2);
    const table = await runCli(['routes', 'list'], { home });
    expect(table.stdout).toMatch(/rule long\s+context > 90000 and image: spare:gpt-4\.1/);
  });

  it('sets weights among a chain’s targets and refuses a target the route does not have', async () => {
    expect((await runCli(['routes', 'weights', 'svc.intelligent-pro', 'main:gpt-4o=3', 'spare:gpt-4o-mini=1'], { home })).code).toBe(0);
    expect(readConfig(home)!.routePolicies['svc.intelligent-pro'].weights).toEqual({ 'main:gpt-4o': 3, 'spare:gpt-4o-mini': 1 });
    const stranger = await runCli(['routes', 'weights', 'svc.intelligent-pro', 'main:gpt-5=2'], { home });
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toContain('not a target');
    expect((await runCli(['routes', 'list'], { home })).stdout).toContain('main:gpt-4o×3');
  });

  it.each([
    [['routes', 'rule', 'svc.intelligent-pro', 'empty', 'main'], /needs a condition/, 2],
    [['routes', 'rule', 'svc.intelligent-lite', 'bg', 'main', '--background'], /no route is set/, 1],
    [['routes', 'rule', 'svc.intelligent-pro', 'bg', 'ghost:x', '--background'], /backend 'ghost'/, 1],
    [['routes', 'rule', 'svc.intelligent-pro', 'bg', 'main', '--context-above', 'lots'], /context-above/, 2],
    [['routes', 'rule-remove', 'svc.intelligent-pro', 'nosuch'], /no rule named/, 1],
  ])('refuses %j (a usage error exits 2, a missing route, backend or rule 1) and changes nothing', async (args, message, code) => {
    const before = configText(home);
    const result = await runCli(args, { home });
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(configText(home)).toBe(before);
  });

  it('removes a rule, and a route’s rules and weights go with the route', async () => {
    expect((await runCli(['routes', 'rule-remove', 'svc.intelligent-pro', 'think'], { home })).code).toBe(0);
    expect(readConfig(home)!.routePolicies['svc.intelligent-pro'].rules.map((rule: { name: string }) => rule.name)).toEqual(['long']);
    const blocked = await runCli(['backends', 'remove', 'spare'], { home });
    expect(blocked.code).toBe(1);
    expect((await runCli(['routes', 'unset', 'svc.intelligent-pro'], { home })).code).toBe(0);
    expect(readConfig(home)!.routePolicies['svc.intelligent-pro']).toBeUndefined();
  });
});

describe('keys limit', () => {
  it('sets, merges and clears a key’s limits, and keys list shows them', async () => {
    expect((await runCli(['keys', 'limit', 'alice', '--rpm', '10'], { home })).code).toBe(0);
    expect((await runCli(['keys', 'limit', 'alice', '--tpm', '5000'], { home })).code).toBe(0);
    expect(readConfig(home)!.keys.alice.rateLimit).toEqual({ requestsPerMinute: 10, tokensPerMinute: 5000 });
    const rows = await runCliJson(['keys', 'list', '--json'], { home });
    expect(rows[0].rate_limit).toEqual({ requests_per_minute: 10, tokens_per_minute: 5000 });
    expect((await runCli(['keys', 'limit', 'alice', '--clear'], { home })).code).toBe(0);
    expect(readConfig(home)!.keys.alice.rateLimit).toBeUndefined();
    const nothing = await runCli(['keys', 'limit', 'alice'], { home });
    expect(nothing.code).toBe(2);
  });

  it('is enforced by a served router: past the limit, a 429 with retry-after and the x-ratelimit headers', async () => {
    expect((await runCli(['keys', 'limit', 'alice', '--rpm', '2'], { home })).code).toBe(0);
    const serve = await startServe(home);
    try {
      const body = { model: 'svc.intelligent-lite', messages: [{ role: 'user', content: 'hi' }] };
      expect((await callRouter(serve.origin, key, 'POST', '/v1/chat/completions', body)).status).toBe(200);
      expect((await callRouter(serve.origin, key, 'POST', '/v1/chat/completions', body)).status).toBe(200);
      const response = await fetch(`${serve.origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(429);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(response.headers.get('x-ratelimit-limit-requests')).toBe('2');
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
    } finally {
      await serve.kill();
    }
  });
});
