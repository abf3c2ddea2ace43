import { afterEach, describe, expect, it } from 'vitest';
import type { BackendSettings } from '../../src/config/settings.js';
import { writeServerState } from '../../src/cli/server-state.js';
import { startAnthropicUpstream } from '../fakes/anthropic-upstream.js';
import { startFakeServer, sendJson } from '../fakes/fake-server.js';
import { startGeminiUpstream } from '../fakes/gemini-upstream.js';
import { startOpenAIChatUpstream } from '../fakes/openai-chat-upstream.js';
import { startOpenAIResponsesUpstream } from '../fakes/openai-responses-upstream.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { unusedPort } from '../helpers/unused-port.js';
import { runCli } from './run-cli.js';

/**
 * `doctor` proves each backend the way a routed request meets it: with its key, against the
 * provider's own model list (fakes that refuse a wrong key with the provider's real answer), and
 * with --live a one-token request. A backend whose key is missing or refused, and every route that
 * cannot be served, fail the run.
 */

interface Check {
  id: string;
  status: 'pass' | 'fail' | 'skip' | 'warn';
  message: string;
  remedy?: string;
}
interface Report {
  failures: number;
  checks: Check[];
}

const TIMEOUT_MS = 2_000;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function router(): Promise<TestRouter> {
  const started = await startRouter();
  cleanups.push(() => started.close());
  started.config.update((settings) => void (settings.server.port = Number(new URL(started.origin).port)));
  return started;
}

async function doctor(live: TestRouter, env: Record<string, string | undefined> = {}, args: string[] = []): Promise<{ code: number | null; report: Report; text: string }> {
  const result = await runCli(['doctor', '--json', '--timeout', String(TIMEOUT_MS), '--base-url', live.baseURL, ...args], { home: live.home, env });
  try {
    return { code: result.code, report: JSON.parse(result.stdout) as Report, text: result.stdout + result.stderr };
  } catch {
    throw new Error(`doctor printed no JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  }
}

const check = (report: Report, id: string): Check => {
  const found = report.checks.find((entry) => entry.id === id);
  if (!found) throw new Error(`no check '${id}' in ${JSON.stringify(report.checks.map((entry) => `${entry.id}:${entry.status}`))}`);
  return found;
};
const failed = (report: Report): string[] => report.checks.filter((entry) => entry.status === 'fail').map((entry) => entry.id);

/** One fake of each provider, each refusing any key but its own the way that provider does. */
async function everyProvider(): Promise<Array<{ name: string; type: BackendSettings['type']; baseUrl: string; key: string; variable: string; model: string }>> {
  const fakes = [
    { name: 'oa', type: 'openai-chat' as const, key: 'sk-chat-0123456789abcdef', model: 'gpt-4o-mini', start: (key: string) => startOpenAIChatUpstream([{ text: 'OK' }], { apiKey: key }), path: '' },
    { name: 'resp', type: 'openai-responses' as const, key: 'sk-resp-0123456789abcdef', model: 'gpt-5', start: (key: string) => startOpenAIResponsesUpstream([{ text: 'OK' }], { apiKey: key }), path: '' },
    { name: 'claude', type: 'anthropic' as const, key: 'sk-ant-0123456789abcdef', model: 'claude-haiku-4-5', start: (key: string) => startAnthropicUpstream([{ text: 'OK' }], { apiKey: key }), path: '' },
    { name: 'gem', type: 'gemini' as const, key: 'AIzaSyD-0123456789abcdefghijklmnopqrstu', model: 'gemini-2.5-flash', start: (key: string) => startGeminiUpstream([{ text: 'OK' }], { apiKey: key }), path: '' },
  ];
  return Promise.all(
    fakes.map(async (fake) => {
      const upstream = await fake.start(fake.key);
      cleanups.push(() => upstream.close());
      return { name: fake.name, type: fake.type, baseUrl: upstream.url, key: fake.key, variable: `${fake.name.toUpperCase()}_KEY`, model: fake.model };
    }),
  );
}

/** Each backend by its variable, each routed alone (so nothing falls back). */
function configure(live: TestRouter, providers: Awaited<ReturnType<typeof everyProvider>>): void {
  live.config.update((settings) => {
    for (const [index, provider] of providers.entries()) {
      settings.backends[provider.name] = { type: provider.type, baseUrl: provider.baseUrl, apiKeyEnv: provider.variable };
      settings.routes[`svc.route-${index}`] = [`${provider.name}:${provider.model}`];
    }
  });
}

describe('doctor proves each backend with an authenticated call the provider answers for free', () => {
  it('passes every provider whose key is set and accepted, each on its own model list', async () => {
    const live = await router();
    const providers = await everyProvider();
    configure(live, providers);
    const env = Object.fromEntries(providers.map((provider) => [provider.variable, provider.key]));
    const { code, report, text } = await doctor(live, env);
    expect(failed(report)).toEqual([]);
    expect(code).toBe(0);
    for (const [index, provider] of providers.entries()) {
      expect(check(report, `backend:${provider.name}`)).toMatchObject({ status: 'pass', message: expect.stringContaining(`$${provider.variable} accepted (model list, `) });
      expect(check(report, `route:svc.route-${index}`).status).toBe('pass');
    }
    for (const provider of providers) expect(text).not.toContain(provider.key);

    // --live: one completion per routed model, through each backend's own encoder and the smallest output cap its API takes.
    const proven = await doctor(live, env, ['--live']);
    expect(failed(proven.report)).toEqual([]);
    for (const provider of providers) expect(check(proven.report, `live:${provider.name}:${provider.model}`).status, provider.type).toBe('pass');
  });

  it('fails a backend whose key variable is unset, naming it, and every route it alone serves; exit non-zero', async () => {
    const live = await router();
    const providers = await everyProvider();
    configure(live, providers);
    const { code, report } = await doctor(live, Object.fromEntries(providers.map((provider) => [provider.variable, undefined])));
    for (const [index, provider] of providers.entries()) {
      const backend = check(report, `backend:${provider.name}`);
      expect(backend.status).toBe('fail');
      expect(backend.message).toContain(`takes its key from $${provider.variable}, which is not set here`);
      expect(backend.remedy).toContain(`export ${provider.variable}=`);
      expect(check(report, `route:svc.route-${index}`)).toMatchObject({ status: 'fail', message: expect.stringContaining('no target can answer') });
    }
    expect(report.failures).toBe(providers.length * 2);
    expect(code).toBe(providers.length * 2);
  });

  it("fails a backend whose upstream refuses its key (each provider's own refusal), without printing the key", async () => {
    const live = await router();
    const providers = await everyProvider();
    configure(live, providers);
    const wrong = (provider: { name: string }) => `wrong-${provider.name}-key-0123456789abcdef`;
    const { code, report, text } = await doctor(live, Object.fromEntries(providers.map((provider) => [provider.variable, wrong(provider)])));
    for (const provider of providers) {
      const backend = check(report, `backend:${provider.name}`);
      expect(backend.status, provider.type).toBe('fail');
      // Gemini refuses an unknown key with 400 API key not valid; the others with 401.
      expect(backend.message).toMatch(provider.type === 'gemini' ? /refused: HTTP 400: API key not valid/ : /refused: HTTP 401/);
      expect(backend.remedy).toContain(provider.variable);
      expect(text).not.toContain(wrong(provider));
    }
    expect(code).toBeGreaterThanOrEqual(providers.length);
  });

  it('an upstream that quotes the refused key back never gets it into the report', async () => {
    const live = await router();
    const quoting = await startFakeServer(async (request, res) =>
      sendJson(res, 401, { error: { message: `Incorrect API key provided: ${String(request.headers.authorization).replace(/^Bearer /, '')}`, type: 'invalid_request_error', code: 'invalid_api_key' } }),
    );
    cleanups.push(() => quoting.close());
    const key = 'quoted-back-key-0123456789abcdef';
    live.config.update((settings) => void (settings.backends.quoting = { type: 'openai-chat', baseUrl: `${quoting.origin}/v1`, apiKeyEnv: 'QUOTED_KEY' }));
    for (const args of [[], ['--live']]) {
      const { report, text } = await doctor(live, { QUOTED_KEY: key }, args);
      expect(check(report, 'backend:quoting')).toMatchObject({ status: 'fail', message: expect.stringContaining('$QUOTED_KEY refused: HTTP 401: Incorrect API key provided: [redacted]') });
      expect(text).not.toContain(key);
    }
  });

  it('warns (not fails) for a route that falls back past a failed backend, and fails it when nothing is left', async () => {
    const live = await router();
    const upstream = await startOpenAIChatUpstream([{ text: 'OK' }], { apiKey: 'sk-good-0123456789abcdef' });
    cleanups.push(() => upstream.close());
    live.config.update((settings) => {
      settings.backends.good = { type: 'openai-chat', baseUrl: upstream.url, apiKey: 'sk-good-0123456789abcdef' };
      settings.backends.bad = { type: 'openai-chat', baseUrl: upstream.url, apiKeyEnv: 'BAD_KEY_NOT_SET' };
      settings.routes['svc.intelligent-pro'] = ['bad:gpt-4o', 'good:gpt-4o'];
      settings.routes['svc.intelligent-basic'] = ['bad:gpt-4o', 'offline'];
      settings.routes['svc.intelligent-lite'] = ['bad:gpt-4o'];
      settings.routePolicies['svc.intelligent-pro'] = { rules: [{ name: 'think', when: { thinking: true }, targets: ['bad:gpt-4o'] }] };
    });
    const { report } = await doctor(live);
    expect(check(report, 'backend:good').status).toBe('pass');
    expect(check(report, 'backend:bad').status).toBe('fail');
    expect(check(report, 'route:svc.intelligent-basic')).toMatchObject({ status: 'warn', message: expect.stringContaining('falls back past bad:gpt-4o') });
    // A task rule's chain is served alone: with its one target down, its requests fail.
    expect(check(report, 'route:svc.intelligent-pro')).toMatchObject({ status: 'fail', message: expect.stringContaining('rule think: no target can answer') });
    expect(check(report, 'route:svc.intelligent-lite').status).toBe('fail');
    expect(failed(report).sort()).toEqual(['backend:bad', 'route:svc.intelligent-lite', 'route:svc.intelligent-pro']);
  });

  it('a pool with one refused key is a warning; with every key refused or unset, a failure', async () => {
    const live = await router();
    const upstream = await startOpenAIChatUpstream([{ text: 'OK' }], { apiKey: 'sk-pool-good-0123456789' });
    cleanups.push(() => upstream.close());
    live.config.update((settings) => {
      settings.backends.half = { type: 'openai-chat', baseUrl: upstream.url, keyPool: { strategy: 'round-robin', keys: [{ apiKey: 'sk-pool-good-0123456789' }, { apiKeyEnv: 'POOL_SECOND' }] } };
      settings.backends.none = { type: 'openai-chat', baseUrl: upstream.url, keyPool: { strategy: 'round-robin', keys: [{ apiKey: 'sk-pool-bad-00000000000' }, { apiKeyEnv: 'POOL_UNSET' }] } };
      settings.routes['svc.intelligent-pro'] = ['half:gpt-4o'];
    });
    const { report, text } = await doctor(live, { POOL_SECOND: 'sk-pool-wrong-999999999', POOL_UNSET: undefined });
    expect(check(report, 'backend:half')).toMatchObject({ status: 'warn', message: expect.stringContaining('1 of its 2 pooled keys cannot be used ($POOL_SECOND refused (HTTP 401))') });
    const none = check(report, 'backend:none');
    expect(none.status).toBe('fail');
    expect(none.message).toContain('none of its 2 pooled keys can be used');
    expect(none.message).toContain('$POOL_UNSET is not set here');
    expect(check(report, 'route:svc.intelligent-pro').status).toBe('pass');
    for (const key of ['sk-pool-good-0123456789', 'sk-pool-wrong-999999999', 'sk-pool-bad-00000000000']) expect(text).not.toContain(key);
  });

  it('tells a variable the running serve lacks from one only this shell lacks (names only, from serve.json)', async () => {
    const live = await router();
    const upstream = await startOpenAIChatUpstream([{ text: 'OK' }], { apiKey: 'sk-serve-0123456789abcd' });
    cleanups.push(() => upstream.close());
    live.config.update((settings) => {
      settings.backends.served = { type: 'openai-chat', baseUrl: upstream.url, apiKeyEnv: 'SERVE_HAS_IT' };
      settings.backends.lacking = { type: 'openai-chat', baseUrl: upstream.url, apiKeyEnv: 'SERVE_LACKS_IT' };
      settings.routes['svc.intelligent-pro'] = ['served:gpt-4o'];
      settings.routes['svc.intelligent-lite'] = ['lacking:gpt-4o'];
    });
    // This test process stands in for the running serve: its state names the variables it had.
    const port = Number(new URL(live.origin).port);
    writeServerState(
      { pid: process.pid, host: '127.0.0.1', port, url: live.origin, usageStore: 'file', startedAt: new Date().toISOString(), environment: { set: ['SERVE_HAS_IT'], unset: ['SERVE_LACKS_IT'] } },
      live.home,
    );
    // The shell has the variable the serve lacks, and lacks the one the serve has.
    const { code, report } = await doctor(live, { SERVE_HAS_IT: undefined, SERVE_LACKS_IT: 'sk-serve-0123456789abcd' });
    expect(check(report, 'backend:served')).toMatchObject({ status: 'warn', message: expect.stringContaining(`$SERVE_HAS_IT is not set in this shell, so its key was not checked (the running serve, pid ${process.pid}, has it)`) });
    const lacking = check(report, 'backend:lacking');
    expect(lacking).toMatchObject({ status: 'fail', message: expect.stringContaining(`$SERVE_LACKS_IT, which was not set when the running serve (pid ${process.pid}) started`) });
    expect(lacking.remedy).toContain('svc-router restart');
    expect(check(report, 'route:svc.intelligent-pro').status).toBe('pass');
    expect(failed(report).sort()).toEqual(['backend:lacking', 'route:svc.intelligent-lite']);
    expect(code).toBe(2);
  });

  it('a variable the state file of an older serve does not mention may be missing there: a failure, whatever this shell has', async () => {
    const live = await router();
    const upstream = await startOpenAIChatUpstream([{ text: 'OK' }], { apiKey: 'sk-later-0123456789abcd' });
    cleanups.push(() => upstream.close());
    live.config.update((settings) => {
      settings.backends.later = { type: 'openai-chat', baseUrl: upstream.url, apiKeyEnv: 'ADDED_LATER' };
      settings.routes['svc.intelligent-pro'] = ['later:gpt-4o'];
    });
    const port = Number(new URL(live.origin).port);
    // No `all`: the serve named only the variables of its settings at start, and ADDED_LATER is not among them.
    writeServerState({ pid: process.pid, host: '127.0.0.1', port, url: live.origin, usageStore: 'file', startedAt: new Date().toISOString(), environment: { set: [], unset: [] } }, live.home);
    const { report } = await doctor(live, { ADDED_LATER: 'sk-later-0123456789abcd' });
    const later = check(report, 'backend:later');
    expect(later).toMatchObject({ status: 'fail', message: expect.stringContaining(`$ADDED_LATER, which the running serve (pid ${process.pid}) may not have`) });
    expect(later.remedy).toContain('svc-router restart');
  });

  it('an upstream without a model list is reachable but not proven (a warning); one that is down fails', async () => {
    const live = await router();
    const bare = await startFakeServer(async (_request, res) => sendJson(res, 404, { error: { message: 'no such path' } }));
    cleanups.push(() => bare.close());
    const down = await unusedPort();
    live.config.update((settings) => {
      settings.backends.bare = { type: 'openai-chat', baseUrl: `${bare.origin}/v1` };
      settings.backends.down = { type: 'anthropic', baseUrl: `http://127.0.0.1:${down}`, apiKey: 'sk-ant-down-0123456789' };
    });
    const { report } = await doctor(live);
    expect(check(report, 'backend:bare')).toMatchObject({ status: 'warn', message: expect.stringContaining('has no model list (HTTP 404)') });
    expect(check(report, 'backend:bare').remedy).toContain('doctor --live');
    expect(check(report, 'backend:down')).toMatchObject({ status: 'fail', message: `anthropic at 127.0.0.1:${down}: connection refused` });
    // The model list was asked for with the backend's configured headers and no key.
    expect(bare.requests[0]).toMatchObject({ method: 'GET', path: '/v1/models' });
    expect(bare.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('warns of a routed model the upstream does not list; --live proves each routed model with one token', async () => {
    const live = await router();
    const upstream = await startOpenAIChatUpstream((body) => (body.model === 'gpt-4o-typo' ? { status: 404 } : { text: 'OK' }), { apiKey: 'sk-live-0123456789abcd', models: ['gpt-4o'] });
    cleanups.push(() => upstream.close());
    live.config.update((settings) => {
      settings.backends.oa = { type: 'openai-chat', baseUrl: upstream.url, apiKey: 'sk-live-0123456789abcd' };
      settings.routes['svc.intelligent-pro'] = ['oa:gpt-4o'];
      settings.routes['svc.intelligent-lite'] = ['oa:gpt-4o-typo'];
    });
    const listed = await doctor(live);
    expect(check(listed.report, 'route:svc.intelligent-lite')).toMatchObject({ status: 'warn', message: expect.stringContaining("oa's model list has no 'gpt-4o-typo'") });
    expect(listed.code).toBe(0);
    expect(upstream.requests.filter((request) => request.method === 'POST')).toEqual([]);

    const proven = await doctor(live, {}, ['--live']);
    expect(check(proven.report, 'live:oa:gpt-4o')).toMatchObject({ status: 'pass', message: expect.stringMatching(/^gpt-4o answered \(\d+ in, \d+ out, \d+ ms\)$/) });
    expect(check(proven.report, 'live:oa:gpt-4o-typo')).toMatchObject({ status: 'fail', message: expect.stringContaining('HTTP 404') });
    expect(check(proven.report, 'route:svc.intelligent-lite').status).toBe('fail');
    expect(check(proven.report, 'route:svc.intelligent-pro').status).toBe('pass');
    expect(proven.code).toBe(2);
    // One token asked for, of each model.
    const posts = upstream.requests.filter((request) => request.method === 'POST');
    expect(posts.map((request) => request.body.model).sort()).toEqual(['gpt-4o', 'gpt-4o-typo']);
    for (const post of posts) expect(post.body.max_tokens ?? post.body.max_completion_tokens).toBe(1);
  });
});
