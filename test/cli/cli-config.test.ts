import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFile, configText, initHome, makeHome, PACKAGE_VERSION, readConfig, removeHome, runCli, runCliJson } from './run-cli.js';

const homes: string[] = [];
const freshHome = (): string => {
  const home = makeHome();
  homes.push(home);
  return home;
};
afterAll(() => homes.forEach(removeHome));

const KEY_PATTERN = (slug: string) => new RegExp(`^svc_${slug}_[A-Za-z0-9_-]{32,}$`);
const fileMode = (file: string) => fs.statSync(file).mode & 0o777;

describe('init', () => {
  let home: string;
  let first: Record<string, any>;

  beforeAll(async () => {
    home = freshHome();
    first = await runCliJson(['init', '--developer', 'alice', '--org', 'acme', '--tier', 'pro', '--cap', '1000', '--json'], { home });
  });

  it('prints the identity and a well-formed key as JSON', () => {
    expect(first).toMatchObject({ developer: 'alice', organisation: 'acme', tier: 'pro', cap_tokens: 1000 });
    expect(first.key).toMatch(/^svc_alice_[A-Za-z0-9_-]{32,}$/);
    expect(first.config_path).toBe(configFile(home));
  });

  it('stores the config with mode 0600, holding the key record but only a hash of it', () => {
    expect(fileMode(configFile(home))).toBe(0o600);
    const config = readConfig(home)!;
    expect(config.keys.alice).toMatchObject({ developer: 'alice', organisation: 'acme', tier: 'pro', capTokens: 1000 });
    expect(config.keys.alice.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(config.keys)).not.toContain(first.key);
  });

  it('refuses to run again without --force (exit 1: the command is fine, the key is there) and changes nothing', async () => {
    const before = configText(home);
    const again = await runCli(['init', '--developer', 'alice'], { home });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already initialised/);
    expect(again.stdout).toBe('');
    expect(configText(home)).toBe(before);
  });

  it('issues a new key with --force, and the old key stops working', async () => {
    const replaced = await runCliJson(['init', '--developer', 'alice', '--org', 'acme', '--tier', 'pro', '--force', '--json'], { home });
    expect(replaced.key).toMatch(KEY_PATTERN('alice'));
    expect(replaced.key).not.toBe(first.key);
    expect(fileMode(configFile(home))).toBe(0o600);

    const withNew = await runCliJson(['whoami', '--json'], { home });
    expect(withNew.developer).toBe('alice');
    const withOld = await runCli(['whoami', '--key', first.key], { home });
    expect(withOld.code).toBe(1);
    expect(withOld.stderr).toMatch(/401/);
  });

  it('rejects a bad --cap and a bad --developer with exit 2, writing nothing', async () => {
    const empty = freshHome();
    const badCap = await runCli(['init', '--developer', 'alice', '--cap', 'abc'], { home: empty });
    expect(badCap.code).toBe(2);
    expect(badCap.stderr).toMatch(/--cap/);
    const badSlug = await runCli(['init', '--developer', 'Bad_Slug'], { home: empty });
    expect(badSlug.code).toBe(2);
    expect(configText(empty)).toBe('');
  });
});

describe('keys', () => {
  let home: string;
  let localKey: string;
  let bobKey: string;

  beforeAll(async () => {
    home = freshHome();
    localKey = await initHome(home);
  });

  it('issue prints the key once, as JSON', async () => {
    const result = await runCli(['keys', 'issue', '--developer', 'bob', '--org', 'acme', '--tier', 'basic', '--cap', '500', '--json'], { home });
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(body).toMatchObject({ developer: 'bob', organisation: 'acme', tier: 'basic', cap_tokens: 500 });
    expect(body.key).toMatch(KEY_PATTERN('bob'));
    expect(result.stdout.split(body.key).length - 1).toBe(1);
    expect(result.stderr).not.toContain(body.key);
    bobKey = body.key;
  });

  it('keeps no plaintext of an issued key in config.json, which stays 0600', () => {
    const text = configText(home);
    expect(text).not.toContain(bobKey);
    expect(readConfig(home)!.keys.bob.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(fileMode(configFile(home))).toBe(0o600);
  });

  it('the issued key authenticates (in-process whoami)', async () => {
    const body = await runCliJson(['whoami', '--key', bobKey, '--json'], { home });
    expect(body).toMatchObject({ developer: 'bob', organisation: 'acme', tier: 'basic', usage: { cap_tokens: 500 } });
  });

  it('refuses to issue a second key for the same developer without --force (exit 1)', async () => {
    const result = await runCli(['keys', 'issue', '--developer', 'bob'], { home });
    expect(result.code).toBe(1);
    expect(result.stdout).not.toMatch(/svc_bob_/);
  });

  it('list --json never prints a key but lists bob with a key hint', async () => {
    const result = await runCli(['keys', 'list', '--json'], { home });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain(bobKey);
    expect(result.stdout).not.toContain(localKey);
    const rows = JSON.parse(result.stdout) as Array<Record<string, any>>;
    const bob = rows.find((row) => row.developer === 'bob');
    expect(bob).toMatchObject({ developer: 'bob', organisation: 'acme', tier: 'basic', cap_tokens: 500, local: false });
    expect(bob!.key_hint).toMatch(/^svc_bob_/);
    expect(bob!.key_hint.length).toBeLessThan(bobKey.length);
    expect(rows.find((row) => row.developer === 'alice')).toMatchObject({ local: true });
  });

  it('list (human) shows both developers and no key', async () => {
    const result = await runCli(['keys', 'list'], { home });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^DEVELOPER\s+ORGANISATION/);
    expect(result.stdout).toMatch(/alice \(local\)/);
    expect(result.stdout).toMatch(/\bbob\b/);
    expect(result.stdout).not.toContain(bobKey);
    expect(result.stdout).not.toContain(localKey);
  });

  it('a key hint reveals at most four characters of the secret part, even when it holds an underscore', async () => {
    // The secret part is random base64url; keep replacing carol's key until one contains '_'.
    const hintHome = freshHome();
    let key = '';
    for (let attempt = 0; attempt < 40 && !key.slice('svc_carol_'.length).includes('_'); attempt++) {
      key = (await runCliJson(['keys', 'issue', '--developer', 'carol', '--force', '--json'], { home: hintHome })).key;
    }
    const secret = key.slice('svc_carol_'.length);
    expect(secret).toContain('_');
    const rows = await runCliJson<Array<{ developer: string; key_hint: string }>>(['keys', 'list', '--json'], { home: hintHome });
    const hint = rows.find((row) => row.developer === 'carol')!.key_hint;
    expect(hint).toBe(`svc_carol_${secret.slice(0, 4)}…`);
    expect(configText(hintHome)).not.toContain(secret.slice(0, 8));
  });

  it('revoke removes bob: gone from the list, and his key no longer authenticates', async () => {
    const result = await runCli(['keys', 'revoke', 'bob'], { home });
    expect(result.code).toBe(0);
    const rows = await runCliJson<Array<{ developer: string }>>(['keys', 'list', '--json'], { home });
    expect(rows.map((row) => row.developer)).toEqual(['alice']);
    const whoami = await runCli(['whoami', '--key', bobKey], { home });
    expect(whoami.code).toBe(1);
    expect(whoami.stderr).toMatch(/401/);
  });

  it('revoking an unknown developer exits 1', async () => {
    const result = await runCli(['keys', 'revoke', 'nobody'], { home });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/nobody/);
  });

  it('rejects a bad slug and a bad --cap with exit 2, changing nothing', async () => {
    const before = configText(home);
    const badSlug = await runCli(['keys', 'issue', '--developer', 'Bad_Slug'], { home });
    expect(badSlug.code).toBe(2);
    expect(badSlug.stderr).toMatch(/slug/);
    const badCap = await runCli(['keys', 'issue', '--developer', 'dave', '--cap', 'abc'], { home });
    expect(badCap.code).toBe(2);
    expect(badCap.stderr).toMatch(/--cap/);
    const missing = await runCli(['keys', 'issue'], { home });
    expect(missing.code).toBe(2);
    expect(configText(home)).toBe(before);
  });
});

describe('backends', () => {
  let home: string;

  beforeAll(async () => {
    home = freshHome();
    await initHome(home);
  });

  it('adds a backend with a stored key and a header', async () => {
    const result = await runCli(
      ['backends', 'add', 'oa', '--type', 'openai-chat', '--base-url', 'https://api.example.com/v1', '--api-key', 'sk-secret-123', '--header', 'x-team=red'],
      { home },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('sk-secret-123');
    expect(readConfig(home)!.backends.oa).toEqual({
      type: 'openai-chat',
      baseUrl: 'https://api.example.com/v1',
      apiKey: 'sk-secret-123',
      headers: { 'x-team': 'red' },
    });
    expect(fileMode(configFile(home))).toBe(0o600);
  });

  it('list --json shows how the key is provided, never the key or header values', async () => {
    const result = await runCli(['backends', 'list', '--json'], { home });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('sk-secret-123');
    expect(result.stdout).not.toMatch(/\bred\b/);
    expect(JSON.parse(result.stdout)).toEqual([
      { name: 'oa', type: 'openai-chat', base_url: 'https://api.example.com/v1', api_key: 'stored', headers: ['x-team'] },
    ]);
    const human = await runCli(['backends', 'list'], { home });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/\boa\b.*openai-chat.*stored/);
    expect(human.stdout).not.toContain('sk-secret-123');
  });

  it('rejects --type nope with exit 2 and leaves the config unchanged', async () => {
    const before = configText(home);
    const result = await runCli(['backends', 'add', 'bad', '--type', 'nope', '--base-url', 'https://api.example.com/v1'], { home });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/nope/);
    expect(configText(home)).toBe(before);
  });

  it('rejects --base-url not-a-url with exit 2 and leaves the config unchanged', async () => {
    const before = configText(home);
    const result = await runCli(['backends', 'add', 'bad', '--type', 'openai-chat', '--base-url', 'not-a-url'], { home });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--base-url/);
    expect(configText(home)).toBe(before);
  });

  it('stores --cache-control for an openai-chat backend, and refuses it with exit 2 for any other type', async () => {
    const added = await runCli(['backends', 'add', 'router', '--type', 'openai-chat', '--base-url', 'https://openrouter.ai/api/v1', '--cache-control'], { home });
    expect(added.code).toBe(0);
    expect(readConfig(home)!.backends.router).toEqual({ type: 'openai-chat', baseUrl: 'https://openrouter.ai/api/v1', cacheControl: true });
    const listed = JSON.parse((await runCli(['backends', 'list', '--json'], { home })).stdout) as Array<{ name: string }>;
    expect(listed.find((row) => row.name === 'router')).toMatchObject({ cache_control: true });
    expect((await runCli(['backends', 'remove', 'router'], { home })).code).toBe(0);
    const before = configText(home);
    const refused = await runCli(['backends', 'add', 'bad', '--type', 'anthropic', '--base-url', 'https://a.example', '--cache-control'], { home });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--cache-control is for openai-chat backends only; an anthropic upstream gets a client's breakpoints as they are, and the router's for clients that set none");
    const gemini = await runCli(['backends', 'add', 'bad', '--type', 'gemini', '--base-url', 'https://g.example', '--cache-control'], { home });
    expect(gemini.stderr).toContain('--cache-control is for openai-chat backends only; a gemini upstream caches prompts without breakpoints');
    expect(configText(home)).toBe(before);
  });

  it('stores --auth and --anthropic-version for an anthropic backend and --api-version for a gemini one, refusing them with exit 2 elsewhere', async () => {
    const added = await runCli(['backends', 'add', 'gateway', '--type', 'anthropic', '--base-url', 'https://gw.example', '--auth', 'bearer', '--anthropic-version', '2026-10-21'], { home });
    expect(added.code).toBe(0);
    expect(readConfig(home)!.backends.gateway).toEqual({ type: 'anthropic', baseUrl: 'https://gw.example', auth: 'bearer', anthropicVersion: '2026-10-21' });
    expect((await runCli(['backends', 'add', 'g', '--type', 'gemini', '--base-url', 'https://g.example', '--api-version', 'v1'], { home })).code).toBe(0);
    expect(readConfig(home)!.backends.g).toEqual({ type: 'gemini', baseUrl: 'https://g.example', apiVersion: 'v1' });
    const listed = JSON.parse((await runCli(['backends', 'list', '--json'], { home })).stdout) as Array<{ name: string }>;
    expect(listed.find((row) => row.name === 'gateway')).toMatchObject({ auth: 'bearer', anthropic_version: '2026-10-21' });
    expect(listed.find((row) => row.name === 'g')).toMatchObject({ api_version: 'v1' });
    for (const name of ['gateway', 'g']) expect((await runCli(['backends', 'remove', name], { home })).code).toBe(0);
    const before = configText(home);
    const refusals: Array<[string[], string]> = [
      [['--type', 'openai-chat', '--base-url', 'https://o.example', '--auth', 'bearer'], '--auth is for anthropic backends only'],
      [['--type', 'anthropic', '--base-url', 'https://a.example', '--auth', 'basic'], '--auth'],
      [['--type', 'gemini', '--base-url', 'https://g.example', '--anthropic-version', '2023-06-01'], '--anthropic-version is for anthropic backends only'],
      [['--type', 'anthropic', '--base-url', 'https://a.example', '--anthropic-version', 'latest'], "--anthropic-version must be a date such as 2023-06-01, got 'latest'"],
      [['--type', 'anthropic', '--base-url', 'https://a.example', '--api-version', 'v1'], '--api-version is for gemini backends only'],
      [['--type', 'gemini', '--base-url', 'https://g.example', '--api-version', 'one'], "--api-version must be an API version such as v1beta or v1, got 'one'"],
      [['--type', 'gemini', '--base-url', 'https://g.example/v1beta', '--api-version', 'v1'], 'the base URL names API version v1beta and the setting v1'],
    ];
    for (const [options, message] of refusals) {
      const refused = await runCli(['backends', 'add', 'bad', ...options], { home });
      expect(refused.code, options.join(' ')).toBe(2);
      expect(refused.stderr).toContain(message);
    }
    expect(configText(home)).toBe(before);
  });

  it('suggests --auth bearer for an anthropic backend at a service documented to take its key so, and only there', async () => {
    const suggested = await runCli(['backends', 'add', 'or', '--type', 'anthropic', '--base-url', 'https://openrouter.ai/api'], { home });
    expect(suggested.code).toBe(0);
    expect(suggested.stderr).toContain('OpenRouter takes its key as Authorization: Bearer; add --auth bearer');
    for (const options of [['--type', 'anthropic', '--base-url', 'https://openrouter.ai/api', '--auth', 'bearer'], ['--type', 'anthropic', '--base-url', 'https://api.anthropic.com'], ['--type', 'openai-chat', '--base-url', 'https://openrouter.ai/api/v1']]) {
      const quiet = await runCli(['backends', 'add', 'or', ...options], { home });
      expect(quiet.code).toBe(0);
      expect(quiet.stderr, options.join(' ')).not.toContain('--auth bearer');
    }
    expect((await runCli(['backends', 'remove', 'or'], { home })).code).toBe(0);
  });

  it('rejects a malformed --header and both --api-key and --api-key-env with exit 2', async () => {
    const before = configText(home);
    const header = await runCli(['backends', 'add', 'bad', '--type', 'anthropic', '--base-url', 'https://a.example', '--header', 'novalue'], { home });
    expect(header.code).toBe(2);
    const both = await runCli(['backends', 'add', 'bad', '--type', 'anthropic', '--base-url', 'https://a.example', '--api-key', 'k', '--api-key-env', 'K'], { home });
    expect(both.code).toBe(2);
    expect(configText(home)).toBe(before);
  });

  it('refuses to remove a backend a route uses (exit 1), removes it once unused', async () => {
    expect((await runCli(['routes', 'set', 'svc.intelligent-lite', 'oa'], { home })).code).toBe(0);
    const before = configText(home);
    const refused = await runCli(['backends', 'remove', 'oa'], { home });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/svc\.intelligent-lite/);
    expect(configText(home)).toBe(before);

    expect((await runCli(['routes', 'unset', 'svc.intelligent-lite'], { home })).code).toBe(0);
    const removed = await runCli(['backends', 'remove', 'oa'], { home });
    expect(removed.code).toBe(0);
    expect(await runCliJson(['backends', 'list', '--json'], { home })).toEqual([]);
    const unknown = await runCli(['backends', 'remove', 'oa'], { home });
    expect(unknown.code).toBe(1);
  });
});

describe('routes', () => {
  let home: string;

  beforeAll(async () => {
    home = freshHome();
    await initHome(home);
    const added = await runCli(['backends', 'add', 'oa', '--type', 'openai-chat', '--base-url', 'https://api.example.com/v1', '--api-key', 'sk-secret-123'], { home });
    expect(added.code).toBe(0);
  });

  it('sets an SKU route with a fallback and a claude-* pattern route', async () => {
    const sku = await runCli(['routes', 'set', 'svc.intelligent-pro', 'oa:gpt-4o-mini', 'offline'], { home });
    expect(sku.code).toBe(0);
    const pattern = await runCli(['routes', 'set', 'claude-*', 'oa'], { home });
    expect(pattern.code).toBe(0);
    expect(readConfig(home)!.routes).toEqual({ 'svc.intelligent-pro': ['oa:gpt-4o-mini', 'offline'], 'claude-*': ['oa'] });
  });

  it('list --json shows configured routes and the offline defaults', async () => {
    const rows = await runCliJson<Array<{ model: string; targets: string[]; source: string }>>(['routes', 'list', '--json'], { home });
    expect(rows).toEqual(
      expect.arrayContaining([
        // gpt-4o-mini's window from the model catalog; claude-* passes Claude models of different windows through, so none is claimed.
        { model: 'svc.intelligent-pro', targets: ['oa:gpt-4o-mini', 'offline'], source: 'config', from: 'config.json', contextWindow: 128_000 },
        { model: 'claude-*', targets: ['oa'], source: 'config', from: 'config.json', contextWindow: null },
        { model: 'svc.intelligent-basic', targets: ['offline'], source: 'default', from: 'built-in', contextWindow: null },
        { model: 'svc.intelligent-lite', targets: ['offline'], source: 'default', from: 'built-in', contextWindow: null },
      ]),
    );
    expect(rows).toHaveLength(4);
    // The table's SOURCE column says where each comes from.
    const table = (await runCli(['routes', 'list'], { home })).stdout.split('\n');
    expect(table.find((line) => line.startsWith('svc.intelligent-pro '))).toMatch(/ config\.json$/);
    expect(table.find((line) => line.startsWith('svc.intelligent-lite '))).toMatch(/ built-in$/);
  });

  it('routes window sets a route\'s or a target\'s context window, which list, connect and doctor then use', async () => {
    const windowHome = freshHome();
    await initHome(windowHome);
    expect((await runCli(['backends', 'add', 'local', '--type', 'openai-chat', '--base-url', 'http://127.0.0.1:9/v1'], { home: windowHome })).code).toBe(0);
    const routed = await runCli(['routes', 'set', 'svc.intelligent-basic', 'local:my-llama'], { home: windowHome });
    expect(routed.code).toBe(0);
    expect(routed.stdout).toMatch(/context window: unknown for local:my-llama/);
    // Unknown: doctor warns (not a failure), connect leaves the window out and says so.
    const doctorRun = await runCli(['doctor', '--json', '--timeout', '200'], { home: windowHome });
    const doctor = JSON.parse(doctorRun.stdout) as { checks: Array<{ id: string; status: string; remedy?: string }> };
    expect(doctor.checks.find((check) => check.id === 'window:svc.intelligent-basic')).toMatchObject({ status: 'warn', remedy: expect.stringContaining('routes window') });
    const unknown = await runCli(['connect', 'claude'], { home: windowHome });
    expect(JSON.parse(unknown.stdout).env).not.toHaveProperty('CLAUDE_CODE_MAX_CONTEXT_TOKENS');
    expect(unknown.stderr).not.toMatch(/^export CLAUDE_CODE_MAX_CONTEXT_TOKENS=/m);
    expect(unknown.stderr).toContain('svc-router routes window svc.intelligent-basic');

    expect((await runCli(['routes', 'window', 'local:my-llama', '32768'], { home: windowHome })).code).toBe(0);
    const rows = await runCliJson<Array<{ model: string; contextWindow: number | null }>>(['routes', 'list', '--json'], { home: windowHome });
    expect(rows.find((row) => row.model === 'svc.intelligent-basic')?.contextWindow).toBe(32_768);
    const known = await runCli(['connect', 'claude'], { home: windowHome });
    expect(JSON.parse(known.stdout).env).toMatchObject({
      CLAUDE_CODE_MAX_CONTEXT_TOKENS: '32768',
      // The only real route serves every tier.
      ANTHROPIC_DEFAULT_HAIKU_MODEL: 'svc.intelligent-basic',
      ANTHROPIC_DEFAULT_OPUS_MODEL: 'svc.intelligent-basic',
    });

    // A window set on the route wins over its targets'; --unset gives the targets' back.
    expect((await runCli(['routes', 'window', 'svc.intelligent-basic', '16000'], { home: windowHome })).code).toBe(0);
    expect(JSON.parse((await runCli(['connect', 'claude'], { home: windowHome })).stdout).env.CLAUDE_CODE_MAX_CONTEXT_TOKENS).toBe('16000');
    expect((await runCli(['routes', 'window', 'svc.intelligent-basic', '--unset'], { home: windowHome })).code).toBe(0);
    expect(JSON.parse((await runCli(['connect', 'claude'], { home: windowHome })).stdout).env.CLAUDE_CODE_MAX_CONTEXT_TOKENS).toBe('32768');

    for (const bad of [['routes', 'window', 'svc.intelligent-basic', '0'], ['routes', 'window', 'gpt-4o', '1000']]) {
      expect((await runCli(bad, { home: windowHome })).code, bad.join(' ')).toBe(2);
    }
    // Well formed, but there is no window to remove.
    expect((await runCli(['routes', 'window', 'svc.intelligent-lite', '--unset'], { home: windowHome })).code).toBe(1);
  }, 120_000);

  it('refuses a route to a missing backend (exit 1) and changes nothing', async () => {
    const before = configText(home);
    const result = await runCli(['routes', 'set', 'svc.intelligent-basic', 'offline', 'ghost:model'], { home });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/ghost/);
    expect(configText(home)).toBe(before);
  });

  it('refuses to route gpt-4 (exit 2)', async () => {
    const before = configText(home);
    const result = await runCli(['routes', 'set', 'gpt-4', 'oa'], { home });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/gpt-4/);
    expect(configText(home)).toBe(before);
  });

  it('unset removes a route; unsetting it again exits 1', async () => {
    const result = await runCli(['routes', 'unset', 'claude-*'], { home });
    expect(result.code).toBe(0);
    expect(readConfig(home)!.routes).toEqual({ 'svc.intelligent-pro': ['oa:gpt-4o-mini', 'offline'] });
    const rows = await runCliJson<Array<{ model: string }>>(['routes', 'list', '--json'], { home });
    expect(rows.map((row) => row.model)).not.toContain('claude-*');
    const again = await runCli(['routes', 'unset', 'claude-*'], { home });
    expect(again.code).toBe(1);
  });
});

describe('config', () => {
  let home: string;

  beforeAll(() => {
    home = freshHome();
  });

  it('path prints config.json inside the home', async () => {
    const result = await runCli(['config', 'path'], { home });
    expect(result.code).toBe(0);
    const printed = result.stdout.trim();
    expect(printed).toBe(path.join(home, 'config.json'));
    expect(path.relative(home, printed).startsWith('..')).toBe(false);
  });

  it('set server.port 9999, then get prints 9999', async () => {
    const set = await runCli(['config', 'set', 'server.port', '9999'], { home });
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/server\.port = 9999/);
    const get = await runCli(['config', 'get', 'server.port'], { home });
    expect(get.code).toBe(0);
    expect(get.stdout.trim()).toBe('9999');
    expect(readConfig(home)!.server.port).toBe(9999);
    expect(fileMode(configFile(home))).toBe(0o600);
  });

  it('set server.port abc exits 2 and keeps 9999', async () => {
    const result = await runCli(['config', 'set', 'server.port', 'abc'], { home });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/port/);
    expect((await runCli(['config', 'get', 'server.port'], { home })).stdout.trim()).toBe('9999');
  });

  it('an unknown key exits 2 for get and set', async () => {
    const before = configText(home);
    const get = await runCli(['config', 'get', 'nope.key'], { home });
    expect(get.code).toBe(2);
    expect(get.stderr).toMatch(/unknown config key/);
    const set = await runCli(['config', 'set', 'nope.key', '1'], { home });
    expect(set.code).toBe(2);
    expect(configText(home)).toBe(before);
  });

  it('set routing.sessionHeader stores the header name in lower case; a credential header or no header name exits 2; an empty value clears it', async () => {
    const set = await runCli(['config', 'set', 'routing.sessionHeader', 'X-Session-Id'], { home });
    expect(set.code).toBe(0);
    expect(readConfig(home)!.routing.sessionHeader).toBe('x-session-id');
    for (const bad of ['authorization', 'X-Api-Key', 'two words']) {
      const refused = await runCli(['config', 'set', 'routing.sessionHeader', bad], { home });
      expect(refused.code, bad).toBe(2);
      expect(refused.stderr).toMatch(/routing\.sessionHeader/);
    }
    expect((await runCli(['config', 'get', 'routing.sessionHeader'], { home })).stdout.trim()).toBe('x-session-id');
    expect((await runCli(['config', 'set', 'routing.sessionHeader', ''], { home })).code).toBe(0);
    expect(readConfig(home)!.routing.sessionHeader).toBeUndefined();
  });

  it('set safeguards.classifier names a route, refuses what is no route name (exit 2), and clears on an empty value; safeguards.timeoutMs takes milliseconds', async () => {
    expect((await runCli(['config', 'get', 'safeguards.classifier'], { home })).stdout.trim()).toBe('');
    expect((await runCli(['config', 'get', 'safeguards.timeoutMs'], { home })).stdout.trim()).toBe('20000');
    const set = await runCli(['config', 'set', 'safeguards.classifier', 'svc.intelligent-lite'], { home });
    expect(set.code).toBe(0);
    expect(readConfig(home)!.safeguards.classifier).toBe('svc.intelligent-lite');
    for (const bad of ['two words', 'svc.*']) {
      const refused = await runCli(['config', 'set', 'safeguards.classifier', bad], { home });
      expect(refused.code, bad).toBe(2);
      expect(refused.stderr).toMatch(/safeguards\.classifier/);
    }
    expect((await runCli(['config', 'set', 'safeguards.timeoutMs', '5000'], { home })).code).toBe(0);
    expect(readConfig(home)!.safeguards.timeoutMs).toBe(5000);
    expect((await runCli(['config', 'set', 'safeguards.timeoutMs', '0'], { home })).code).toBe(2);
    expect((await runCli(['config', 'set', 'safeguards.classifier', ''], { home })).code).toBe(0);
    expect(readConfig(home)!.safeguards.classifier).toBeUndefined();
  });

  it('get of a default value works in an empty home', async () => {
    const empty = freshHome();
    const result = await runCli(['config', 'get', 'server.host'], { home: empty });
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('127.0.0.1');
  });
});

describe('env', () => {
  it('prints the export lines connect uses, with the stored key and the configured address', async () => {
    const home = freshHome();
    const key = await initHome(home);
    const result = await runCli(['env'], { home });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 4)).toEqual([
      'export OPENAI_BASE_URL=http://127.0.0.1:8787/v1',
      `export OPENAI_API_KEY=${key}`,
      'export ANTHROPIC_BASE_URL=http://127.0.0.1:8787',
      `export ANTHROPIC_AUTH_TOKEN=${key}`,
    ]);
    // Claude Code's model variables, as connect claude writes them, and the key Codex's provider reads.
    expect(lines).toContain('export ANTHROPIC_MODEL=svc.intelligent-pro');
    expect(lines).toContain('export ANTHROPIC_DEFAULT_HAIKU_MODEL=svc.intelligent-lite');
    expect(lines).toContain('export CLAUDE_CODE_MAX_CONTEXT_TOKENS=128000');
    // Gemini CLI and the Google GenAI SDK: the origin (they add /v1beta), the key as x-goog-api-key.
    expect(lines.slice(-3, -1)).toEqual(['export GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:8787', `export GEMINI_API_KEY=${key}`]);
    expect(lines.at(-1)).toBe(`export SVC_ROUTER_KEY=${key}`);
    // One story: never the x-api-key variable beside the token.
    expect(lines.some((line) => line.startsWith('export ANTHROPIC_API_KEY='))).toBe(false);
    const connect = await runCli(['connect', 'claude'], { home });
    const connectExports = connect.stderr.split('\n').filter((line) => line.startsWith('export '));
    expect(connectExports.length).toBeGreaterThan(3);
    for (const line of connectExports) expect(lines).toContain(line);
  });

  it('takes --base-url (with or without /v1) and --key', async () => {
    const home = freshHome();
    await initHome(home);
    const result = await runCli(['env', '--base-url', 'http://router.example:9000/v1/', '--key', 'svc_other_x'], { home });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^export OPENAI_BASE_URL=\S+\/v1$/);
    expect(lines[0]).toBe('export OPENAI_BASE_URL=http://router.example:9000/v1');
    expect(lines[1]).toBe('export OPENAI_API_KEY=svc_other_x');
    expect(lines[2]).toBe('export ANTHROPIC_BASE_URL=http://router.example:9000');
    expect(lines[3]).toBe('export ANTHROPIC_AUTH_TOKEN=svc_other_x');
    expect(lines).toContain('export GOOGLE_GEMINI_BASE_URL=http://router.example:9000');
    expect(lines).toContain('export GEMINI_API_KEY=svc_other_x');
    expect(lines.at(-1)).toBe('export SVC_ROUTER_KEY=svc_other_x');
  });

  it('exits 2 in a home without a key', async () => {
    const result = await runCli(['env'], { home: freshHome() });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/init/);
  });
});

describe('the program itself', () => {
  it('--version prints the package.json version and exits 0', async () => {
    const result = await runCli(['--version'], { home: freshHome() });
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(PACKAGE_VERSION);
  });

  it('an unknown command exits 2', async () => {
    const result = await runCli(['frobnicate'], { home: freshHome() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown command 'frobnicate'/);
  });

  it('an unknown option exits 2, at the top level and on a subcommand', async () => {
    const home = freshHome();
    const top = await runCli(['--frobnicate'], { home });
    expect(top.code).toBe(2);
    expect(top.stderr).toMatch(/unknown option '--frobnicate'/);
    const sub = await runCli(['keys', 'list', '--frobnicate'], { home });
    expect(sub.code).toBe(2);
    expect(sub.stderr).toMatch(/unknown option '--frobnicate'/);
  });

  it('a missing argument exits 2', async () => {
    const result = await runCli(['routes', 'set', 'svc.intelligent-pro'], { home: freshHome() });
    expect(result.code).toBe(2);
  });

  it('--help exits 0 and lists the commands', async () => {
    const result = await runCli(['--help'], { home: freshHome() });
    expect(result.code).toBe(0);
    for (const command of ['serve', 'init', 'keys', 'backends', 'routes', 'config', 'whoami', 'models', 'chat', 'env']) {
      expect(result.stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
    }
  });
});
