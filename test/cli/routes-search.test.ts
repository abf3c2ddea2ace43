import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configText, initHome, makeHome, readConfig, removeHome, runCli, runCliJson } from './run-cli.js';

/** `routes search`: what it stores, what it refuses, and that --unset takes it back. */

let home: string;
beforeAll(async () => {
  home = makeHome();
  await initHome(home);
  expect((await runCli(['routes', 'set', 'svc.intelligent-pro', 'offline'], { home })).code).toBe(0);
  expect((await runCli(['backends', 'add', 'gem', '--type', 'gemini', '--base-url', 'https://generativelanguage.googleapis.com/v1beta', '--api-key-env', 'GEMINI_API_KEY'], { home })).code).toBe(0);
  expect((await runCli(['backends', 'add', 'local', '--type', 'openai-chat', '--base-url', 'http://127.0.0.1:9/v1'], { home })).code).toBe(0);
});
afterAll(() => removeHome(home));

describe('routes search', () => {
  it('stores the search target, lists it, and --unset removes it', async () => {
    const set = await runCli(['routes', 'search', 'svc.intelligent-pro', 'gem:gemini-2.5-flash'], { home });
    expect(set.code, set.stderr).toBe(0);
    expect(readConfig(home)!.routePolicies['svc.intelligent-pro']).toEqual({ search: 'gem:gemini-2.5-flash' });
    const rows = await runCliJson(['routes', 'list', '--json'], { home });
    expect(rows.find((row: { model: string }) => row.model === 'svc.intelligent-pro').search).toBe('gem:gemini-2.5-flash');
    expect((await runCli(['routes', 'list'], { home })).stdout).toMatch(/search\s+gem:gemini-2\.5-flash/);
    const unset = await runCli(['routes', 'search', 'svc.intelligent-pro', '--unset'], { home });
    expect(unset.code, unset.stderr).toBe(0);
    expect(readConfig(home)!.routePolicies['svc.intelligent-pro']).toBeUndefined();
  });

  it.each([
    [['routes', 'search', 'svc.intelligent-pro'], 2, /give the search target/],
    [['routes', 'search', 'svc.intelligent-pro', 'local:llama'], 1, /no web search of its own/],
    [['routes', 'search', 'svc.intelligent-pro', 'nope:x'], 1, /does not exist/],
    [['routes', 'search', 'svc.intelligent-lite', 'gem'], 1, /no route is set/],
  ])('refuses %j with exit %i and changes nothing', async (args, code, message) => {
    const before = configText(home);
    const result = await runCli(args, { home });
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(configText(home)).toBe(before);
  });
});
