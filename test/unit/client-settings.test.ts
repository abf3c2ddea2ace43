import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import {
  claudeSettingsEnv,
  CODEX_KEY_SCRIPT,
  codexConfigToml,
  lineDiff,
  mergeClaudeSettings,
  mergeCodexConfig,
  MergeError,
} from '../../src/cli/client-settings.js';

const ORIGIN = 'http://127.0.0.1:8787';
const PROVIDER = { name: 'svc-router', base_url: `${ORIGIN}/v1`, wire_api: 'responses', supports_websockets: true, auth: { command: 'node', args: ['-e', CODEX_KEY_SCRIPT, 'MY_KEY'] } };
/** The auth table's `args` line for the key in `name`. */
const argsLine = (name: string): string => `args = ${JSON.stringify(['-e', CODEX_KEY_SCRIPT, name]).replace(/","/g, '", "')}`;

describe('codexConfigToml', () => {
  it('is TOML with the model, the provider and its table', () => {
    expect(parseToml(codexConfigToml(`${ORIGIN}/v1/`, 'MY_KEY'))).toEqual({ model: 'svc.intelligent-pro', model_provider: 'svc', model_providers: { svc: PROVIDER } });
  });

  it('gets the key from an auth command, never from env_key (Codex fetches its model list only for such a provider)', () => {
    expect(codexConfigToml(ORIGIN)).toBe(
      [
        'model = "svc.intelligent-pro"',
        'model_provider = "svc"',
        '',
        '[model_providers.svc]',
        'name = "svc-router"',
        `base_url = "${ORIGIN}/v1"`,
        'wire_api = "responses"',
        'supports_websockets = true',
        '',
        '[model_providers.svc.auth]',
        'command = "node"',
        argsLine('SVC_ROUTER_KEY'),
        '',
      ].join('\n'),
    );
  });

  it('escapes what a TOML string must escape', () => {
    const parsed = parseToml(codexConfigToml('http://host:1/a"b\\c', 'MY_KEY')) as { model_providers: { svc: { base_url: string } } };
    expect(parsed.model_providers.svc.base_url).toBe('http://host:1/a"b\\c/v1');
  });
});

describe('mergeCodexConfig', () => {
  const expectOurs = (text: string) => expect(parseToml(text)).toMatchObject({ model: 'svc.intelligent-pro', model_provider: 'svc', model_providers: { svc: PROVIDER } });

  it('writes a whole file from nothing', () => {
    const text = mergeCodexConfig('', ORIGIN, 'MY_KEY');
    expect(text).toBe(codexConfigToml(ORIGIN, 'MY_KEY').replace(/\n$/, '').concat('\n'));
    expectOurs(text);
  });

  it('puts the top-level keys before the first table of a file that has none', () => {
    const text = mergeCodexConfig('[tui]\nnotifications = true\n', ORIGIN, 'MY_KEY');
    expectOurs(text);
    expect(parseToml(text)).toMatchObject({ tui: { notifications: true } });
    expect(text.startsWith('model = "svc.intelligent-pro"\nmodel_provider = "svc"\n\n[tui]')).toBe(true);
  });

  it('keeps CRLF line endings and adds the final newline a file lacked', () => {
    const text = mergeCodexConfig('approval_policy = "never"\r\n[tui]\r\nnotifications = true', ORIGIN, 'MY_KEY');
    expectOurs(text);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toContain('\n');
  });

  it('does not take model keys of other tables, or quoted headers, for its own', () => {
    const text = mergeCodexConfig('[profiles.deep]\nmodel = "o3"\nmodel_provider = "openai"\n\n[ model_providers . "svc" ]\nbase_url = "http://old/v1"\n', ORIGIN, 'MY_KEY');
    const parsed = parseToml(text) as Record<string, any>;
    expect(parsed.profiles).toEqual({ deep: { model: 'o3', model_provider: 'openai' } });
    expect(parsed.model_providers.svc).toEqual(PROVIDER);
    expect(text.match(/\[ model_providers \. "svc" \]/g)).toHaveLength(1);
    expect(text.match(/\[model_providers\.svc\.auth\]/g)).toHaveLength(1);
  });

  it('turns an env_key provider into an auth command one, keeping the rest of the table', () => {
    const before = [
      'model = "svc.intelligent-pro"',
      'model_provider = "svc"',
      '',
      '[model_providers.svc]',
      'name = "svc-router"',
      `base_url = "${ORIGIN}/v1"`,
      'env_key = "SVC_ROUTER_KEY" # old',
      'wire_api = "responses"',
      'experimental_bearer_token = "stale"',
      'requires_openai_auth = false',
      'stream_idle_timeout_ms = 60000',
      '[model_providers.svc.query_params]',
      'team = "research"',
      '',
    ].join('\n');
    const text = mergeCodexConfig(before, ORIGIN, 'MY_KEY');
    expect(parseToml(text)).toEqual({
      model: 'svc.intelligent-pro',
      model_provider: 'svc',
      model_providers: { svc: { ...PROVIDER, stream_idle_timeout_ms: 60000, query_params: { team: 'research' } } },
    });
    expect(text).toContain(`stream_idle_timeout_ms = 60000\nsupports_websockets = true\n\n[model_providers.svc.auth]\ncommand = "node"\n${argsLine('MY_KEY')}\n\n[model_providers.svc.query_params]`);
    expect(lineDiff(before, text)).toEqual([
      '- env_key = "SVC_ROUTER_KEY" # old',
      '- experimental_bearer_token = "stale"',
      '- requires_openai_auth = false',
      '+ supports_websockets = true',
      '+',
      '+ [model_providers.svc.auth]',
      '+ command = "node"',
      `+ ${argsLine('MY_KEY')}`,
      '+',
    ]);
    expect(mergeCodexConfig(text, ORIGIN, 'MY_KEY')).toBe(text);
  });

  it('replaces command and args in an existing auth table, multi-line args included, and keeps its other keys', () => {
    const before = [
      '[model_providers.svc]',
      'name = "svc-router"',
      '',
      '[model_providers.svc.auth]',
      'command = "cat"',
      'args = [',
      '  "/home/me/.svc-key", # [not a header]',
      ']',
      'timeout_ms = 5000',
      '',
      '[profiles.deep]',
      'model = "o3"',
      '',
    ].join('\n');
    const text = mergeCodexConfig(before, ORIGIN, 'MY_KEY');
    expect(parseToml(text)).toEqual({
      model: 'svc.intelligent-pro',
      model_provider: 'svc',
      model_providers: { svc: { ...PROVIDER, auth: { ...PROVIDER.auth, timeout_ms: 5000 } } },
      profiles: { deep: { model: 'o3' } },
    });
    expect(text).not.toContain('.svc-key');
    expect(mergeCodexConfig(text, ORIGIN, 'MY_KEY')).toBe(text);
  });

  it('puts the provider table before an auth table that stands alone', () => {
    const text = mergeCodexConfig('[model_providers.svc.auth]\ncommand = "printenv"\n', ORIGIN, 'MY_KEY');
    expect(parseToml(text)).toEqual({ model: 'svc.intelligent-pro', model_provider: 'svc', model_providers: { svc: PROVIDER } });
    expect(text.indexOf('[model_providers.svc]')).toBeLessThan(text.indexOf('[model_providers.svc.auth]'));
    expect(mergeCodexConfig(text, ORIGIN, 'MY_KEY')).toBe(text);
  });

  it('leaves multi-line values of other keys whole', () => {
    const before = 'servers = [\n  ["a", "b"],\n  ["c"],\n]\nnotes = \'\'\'\n[model_providers.svc]\nmodel = "no"\n\'\'\'\n';
    const text = mergeCodexConfig(before, ORIGIN, 'MY_KEY');
    expect(parseToml(text)).toEqual({
      servers: [['a', 'b'], ['c']],
      notes: '[model_providers.svc]\nmodel = "no"\n',
      model: 'svc.intelligent-pro',
      model_provider: 'svc',
      model_providers: { svc: PROVIDER },
    });
  });

  it('is idempotent', () => {
    const once = mergeCodexConfig('# hi\nmodel = "x"\n', ORIGIN, 'MY_KEY');
    expect(mergeCodexConfig(once, ORIGIN, 'MY_KEY')).toBe(once);
  });

  it('refuses the provider as a dotted key or an inline table', () => {
    expect(() => mergeCodexConfig('model_providers.svc.base_url = "http://x/v1"\n', ORIGIN)).toThrow(MergeError);
    expect(() => mergeCodexConfig('[model_providers]\nsvc = { base_url = "http://x/v1" }\n', ORIGIN)).toThrow(MergeError);
    expect(() => mergeCodexConfig('[model_providers.svc]\nauth = { command = "cat" }\n', ORIGIN)).toThrow(/\[model_providers\.svc\.auth\] table/);
    expect(() => mergeCodexConfig('[model_providers.svc]\nauth.command = "cat"\n', ORIGIN)).toThrow(MergeError);
    // Another provider in the same form is none of our business.
    expectOurs(mergeCodexConfig('[model_providers]\nother = { base_url = "http://x/v1" }\n', ORIGIN, 'MY_KEY'));
  });
});

describe('claude settings', () => {
  it('claudeSettingsEnv points Claude Code at the origin, with the key as a bearer token and an SKU for every model tier', () => {
    const models = { main: 'svc.intelligent-pro', opus: 'svc.intelligent-pro', sonnet: 'svc.intelligent-basic', haiku: 'svc.intelligent-lite', contextWindow: 128_000 };
    expect(claudeSettingsEnv(`${ORIGIN}/v1`, 'svc_k', models)).toEqual({
      ANTHROPIC_BASE_URL: ORIGIN,
      ANTHROPIC_AUTH_TOKEN: 'svc_k',
      ANTHROPIC_MODEL: 'svc.intelligent-pro',
      ANTHROPIC_DEFAULT_OPUS_MODEL: 'svc.intelligent-pro',
      ANTHROPIC_DEFAULT_SONNET_MODEL: 'svc.intelligent-basic',
      ANTHROPIC_DEFAULT_HAIKU_MODEL: 'svc.intelligent-lite',
      ANTHROPIC_DEFAULT_FABLE_MODEL: 'svc.intelligent-pro',
      ANTHROPIC_SMALL_FAST_MODEL: 'svc.intelligent-lite',
      CLAUDE_CODE_SUBAGENT_MODEL: 'svc.intelligent-pro',
      CLAUDE_CODE_AUTO_MODE_MODEL: 'svc.intelligent-pro',
      CLAUDE_CODE_MAX_CONTEXT_TOKENS: '128000',
    });
    // No window known: the variable is left out rather than guessed.
    expect(claudeSettingsEnv(ORIGIN, 'svc_k', { ...models, contextWindow: undefined })).not.toHaveProperty('CLAUDE_CODE_MAX_CONTEXT_TOKENS');
  });

  it("every Claude Code variable the settings set is a model an svc route serves, the window aside", () => {
    for (const [name, value] of Object.entries(claudeSettingsEnv(ORIGIN, 'svc_k'))) {
      if (/MODEL$/.test(name)) expect(value, name).toMatch(/^svc\./);
    }
  });

  it('mergeClaudeSettings keeps other keys and env entries', () => {
    const merged = JSON.parse(mergeClaudeSettings('{"a":1,"env":{"X":"y","ANTHROPIC_MODEL":"old"}}', { ANTHROPIC_MODEL: 'new' }));
    expect(merged).toEqual({ a: 1, env: { X: 'y', ANTHROPIC_MODEL: 'new' } });
  });

  it('mergeClaudeSettings refuses what is not a settings object', () => {
    expect(() => mergeClaudeSettings('[1]', {})).toThrow(MergeError);
    expect(() => mergeClaudeSettings('{"env": "nope"}', {})).toThrow(MergeError);
    expect(() => mergeClaudeSettings('{', {})).toThrow(/not valid JSON/);
  });
});

describe('lineDiff', () => {
  it('lists only removed and added lines, in order', () => {
    expect(lineDiff('a\nb\nc\n', 'a\nB\nc\nd\n')).toEqual(['- b', '+ B', '+ d']);
    expect(lineDiff('', 'x\n')).toEqual(['+ x']);
    expect(lineDiff('same\n', 'same\n')).toEqual([]);
  });
});
