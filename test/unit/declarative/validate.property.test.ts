import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apiVersionConflict } from '../../../src/config/type-settings.js';
import { BACKEND_TYPES } from '../../../src/core/backend-types.js';
import { applyDeclarative, exportDeclarative } from '../../../src/config/declarative/overlay.js';
import type { JsonPath } from '../../../src/config/declarative/parse.js';
import { SETTINGS_PLACEMENT } from '../../../src/config/declarative/placement.js';
import { validateText } from '../../../src/config/declarative/validate.js';
import { DEFAULT_SETTINGS, withDefaults, type BackendSettings, type KeyRecord, type ModelPrice, type Settings } from '../../../src/config/settings.js';
import { hashKey } from '../../../src/core/router-keys.js';
import { CREDENTIAL_HEADER_NAME } from '../../../src/core/redact.js';
import { expectNoKey } from '../../reliability/key-texts.js';

/**
 * The general rules of the declarative file, over generated files: whatever is wrong and wherever
 * it is, the problem names its path, line and column; a credential anywhere is refused without
 * being echoed; and whatever the CLI can store, export writes a file that validates and reads back
 * as the same settings.
 */

const nameArb = fc.stringMatching(/^[a-z][a-z0-9_-]{0,11}$/);
const backendArb: fc.Arbitrary<BackendSettings> = fc.record(
  {
    type: fc.constantFrom(...BACKEND_TYPES),
    baseUrl: fc.tuple(fc.constantFrom('http', 'https'), fc.domain(), fc.constantFrom('', '/v1', '/api/v1beta')).map(([scheme, host, rest]) => `${scheme}://${host}${rest}`),
    apiKeyEnv: fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,15}$/),
    // A header named as a credential (x-key, x-token) is not exported: it stays in config.json.
    headers: fc.dictionary(fc.stringMatching(/^x-[a-z]{1,8}$/).filter((name) => !CREDENTIAL_HEADER_NAME.test(name)), fc.stringMatching(/^[a-z ]{0,12}$/), { minKeys: 1, maxKeys: 2 }),
    timeouts: fc.record({ connectMs: fc.integer({ min: 1, max: 10 ** 9 }), idleMs: fc.integer({ min: 1, max: 10 ** 6 }) }, { requiredKeys: [] }),
    cacheControl: fc.constant(true),
    auth: fc.constantFrom('x-api-key' as const, 'bearer' as const),
    anthropicVersion: fc.constantFrom('2023-06-01', '2026-10-21'),
    apiVersion: fc.constantFrom('v1', 'v1beta', 'v1alpha'),
  },
  { requiredKeys: ['type', 'baseUrl'] },
  // Only an openai-chat backend takes cacheControl, only an anthropic one auth and anthropicVersion, only a gemini one an apiVersion its base URL agrees with.
).map(({ cacheControl, auth, anthropicVersion, apiVersion, ...backend }) => ({
  ...backend,
  ...(backend.type === 'openai-chat' && cacheControl ? { cacheControl } : {}),
  ...(backend.type === 'anthropic' && auth ? { auth } : {}),
  ...(backend.type === 'anthropic' && anthropicVersion ? { anthropicVersion } : {}),
  ...(backend.type === 'gemini' && apiVersion && !apiVersionConflict(backend.baseUrl, apiVersion) ? { apiVersion } : {}),
}));
const routeNameArb = fc.constantFrom('svc.intelligent-pro', 'svc.intelligent-basic', 'svc.intelligent-lite', 'claude-*', 'claude-sonnet-4-5', 'claude-3-*-haiku*');

const dollars = fc.integer({ min: 0, max: 100_000 }).map((cents) => cents / 100);
const ratesArb = { input: dollars, output: dollars, cacheRead: dollars, cacheWrite: dollars };
const priceArb: fc.Arbitrary<ModelPrice> = fc.record(
  { ...ratesArb, longContext: fc.record({ aboveInputTokens: fc.integer({ min: 0, max: 10 ** 6 }), ...ratesArb }, { requiredKeys: ['aboveInputTokens', 'input', 'output'] }) },
  { requiredKeys: ['input', 'output'] },
);

const settingsArb: fc.Arbitrary<Settings> = fc
  .dictionary(nameArb.filter((name) => name !== 'offline'), backendArb, { minKeys: 1, maxKeys: 3 })
  .chain((backends) => {
    const targetArb = fc.tuple(fc.constantFrom(...Object.keys(backends), 'offline'), fc.option(fc.stringMatching(/^[a-z0-9.:-]{1,12}$/), { nil: undefined }));
    const target = targetArb.map(([backend, model]) => (model ? `${backend}:${model}` : backend));
    const keyArb: fc.Arbitrary<KeyRecord> = fc.record({
      developer: fc.constant(''),
      organisation: fc.constantFrom('acme', 'personal'),
      tier: fc.constantFrom('pro', 'standard'),
      capTokens: fc.integer({ min: 1, max: 10 ** 9 }),
      hash: fc.stringMatching(/^[0-9a-f]{64}$/),
      hint: fc.stringMatching(/^[A-Za-z0-9_-]{4}$/).map((start) => `svc_x_${start}…`),
      createdAt: fc.date({ min: new Date(2020, 0, 1), max: new Date(2030, 0, 1), noInvalidDate: true }).map((date) => date.toISOString()),
    });
    return fc.record({
      backends: fc.constant(backends),
      routes: fc.dictionary(routeNameArb, fc.array(target, { minLength: 1, maxLength: 3 }), { maxKeys: 4 }),
      keys: fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/), keyArb, { maxKeys: 3 }).map((keys) =>
        Object.fromEntries(Object.entries(keys).map(([slug, record]) => [slug, { ...record, developer: slug }])),
      ),
      port: fc.integer({ min: 0, max: 65_535 }),
      metrics: fc.boolean(),
      store: fc.constantFrom('file', 'redis://127.0.0.1:6379', 'rediss://cache.internal:6380/2'),
      prices: fc.dictionary(fc.stringMatching(/^[a-z0-9][a-z0-9.:-]{0,11}$/), priceArb, { maxKeys: 2 }),
    });
  })
  .map(({ backends, routes, keys, port, metrics, store, prices }) =>
    withDefaults({ backends, routes, keys, prices, server: { ...DEFAULT_SETTINGS.server, port, metrics }, usage: { store }, localKey: 'svc_local_x', secret: 'sealing' }),
  );

/** A generated file, formatted as a person might: any indentation, comments between lines, CRLF. */
const layoutArb = fc.record({ indent: fc.integer({ min: 0, max: 4 }), comments: fc.array(fc.nat(), { maxLength: 5 }), crlf: fc.boolean() });

function render(value: unknown, layout: { indent: number; comments: number[]; crlf: boolean }): string {
  const lines = JSON.stringify(value, null, layout.indent).split('\n');
  for (const at of layout.comments) {
    const index = at % (lines.length + 1);
    lines.splice(index, 0, index % 2 ? '// a note about what follows' : '/* block */');
  }
  return lines.join(layout.crlf ? '\r\n' : '\n');
}

/** 1-based line and column of an offset, counted independently of the code under test. */
function positionOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

/** Every leaf (string, number, boolean) of a value, with its path. */
function leaves(value: unknown, path: JsonPath = []): JsonPath[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => leaves(item, [...path, index]));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([name, child]) => leaves(child, [...path, name]));
  return [path];
}

function objects(value: unknown, path: JsonPath = []): JsonPath[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => objects(item, [...path, index]));
  if (value && typeof value === 'object') return [path, ...Object.entries(value).flatMap(([name, child]) => objects(child, [...path, name]))];
  return [];
}

function setAt(root: any, path: JsonPath, value: unknown): void {
  let node = root;
  for (const segment of path.slice(0, -1)) node = node[segment];
  node[path.at(-1)!] = value;
}

const exported = (settings: Settings) => exportDeclarative(settings, { withKeys: true }).config;
const leafPaths = (config: unknown) => leaves(config).filter((path) => path[0] !== '$schema');

describe('declarative file rules (property)', () => {
  it('an export of any storable settings validates, and reads back as the same settings', () => {
    fc.assert(
      fc.property(settingsArb, layoutArb, (settings, layout) => {
        const { config, notes } = exportDeclarative(settings, { withKeys: true });
        const validation = validateText(render(config, layout), { env: {} });
        expect(validation.problems).toEqual([]);
        const local = withDefaults({ localKey: 'svc_local_x', secret: 'sealing' });
        expect(JSON.parse(JSON.stringify(applyDeclarative(local, validation.config!)))).toEqual(JSON.parse(JSON.stringify(settings)));
        expect(notes.join('\n')).toMatch(/local key is not exported/);
      }),
      { numRuns: 40 },
    );
  });

  it('a value of the wrong kind anywhere is named by its path, line and column', () => {
    fc.assert(
      fc.property(settingsArb, layoutArb, fc.nat(), (settings, layout, pick) => {
        const config = exported(settings);
        const paths = leafPaths(config);
        const path = paths[pick % paths.length]!;
        // No field of the file takes null (an export never writes one, so it is found by its text).
        setAt(config, path, null);
        const text = render(config, layout);
        const problems = validateText(text, { env: {} }).problems;
        const expected = positionOf(text, text.indexOf('null'));
        expect(problems.filter((problem) => JSON.stringify(problem.path) === JSON.stringify(path))).toContainEqual({ path, ...expected, message: expect.any(String) });
      }),
      { numRuns: 80 },
    );
  });

  it('an unknown field in any object is named at its own position', () => {
    fc.assert(
      fc.property(settingsArb, layoutArb, fc.nat(), (settings, layout, pick) => {
        const config = exported(settings);
        const candidates = objects(config).filter((path) => {
          // Tables take any well-formed name; an unknown *field* is one in an object with fixed fields.
          const last = path.at(-1);
          return !(path.length === 1 && SETTINGS_PLACEMENT[last as keyof typeof SETTINGS_PLACEMENT] === 'table') && last !== 'headers' && last !== 'weights';
        });
        const path = candidates[pick % candidates.length]!;
        setAt(config, [...path, 'zzUnknownField'], true);
        if (path.length === 0) (config as Record<string, unknown>).zzUnknownField = true;
        const text = render(config, layout);
        const problem = validateText(text, { env: {} }).problems.find((item) => item.path.at(-1) === 'zzUnknownField');
        expect(problem).toMatchObject({ path: [...path, 'zzUnknownField'], ...positionOf(text, text.indexOf('"zzUnknownField"')) });
        expect(problem!.message).toMatch(/^unknown field "zzUnknownField"/);
      }),
      { numRuns: 40 },
    );
  });

  it('a credential in any string is refused at its position, and no message repeats it', () => {
    const credentialArb = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9]{40}$/).map((rest) => `sk-proj-${rest}`),
      fc.stringMatching(/^[A-Za-z0-9_-]{40}$/).map((rest) => `sk-ant-api03-${rest}AA`),
      fc.stringMatching(/^[A-Za-z0-9_-]{35}$/).map((rest) => `AIza${rest}`),
      fc.stringMatching(/^[A-Za-z0-9]{32}$/).map((rest) => `Bearer ${rest}1a`),
    );
    fc.assert(
      fc.property(settingsArb, credentialArb, fc.nat(), (settings, credential, pick) => {
        const config = exported(settings);
        const strings = leafPaths(config).filter((path) => {
          let node: any = config;
          for (const segment of path) node = node[segment];
          return typeof node === 'string';
        });
        const path = strings[pick % strings.length]!;
        setAt(config, path, credential);
        const text = render(config, { indent: 2, comments: [], crlf: false });
        const { problems, config: accepted } = validateText(text, { env: {} });
        expect(accepted).toBeUndefined();
        expect(problems).toContainEqual({ path, ...positionOf(text, text.indexOf(JSON.stringify(credential))), message: expect.stringMatching(/looks like a credential/) });
        expectNoKey(problems.map((problem) => problem.message).join('\n'), credential.replace(/^Bearer /, ''), 'the problems');
      }),
      { numRuns: 40 },
    );
  });
});

describe('declarative file rules (examples)', () => {
  const base = { backends: { openai: { type: 'openai-chat', baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY' } }, routes: { 'svc.intelligent-pro': ['openai:gpt-4o'] } };

  it('takes cacheControl on an openai-chat backend only, naming where it is misplaced', () => {
    const withCacheControl = (type: string) => JSON.stringify({ ...base, backends: { openai: { ...base.backends.openai, type, cacheControl: true } } }, null, 2);
    expect(validateText(withCacheControl('openai-chat'), { env: {} })).toMatchObject({ problems: [], config: { backends: { openai: { cacheControl: true } } } });
    expect(validateText(withCacheControl('anthropic'), { env: {} }).problems).toEqual([
      expect.objectContaining({ path: ['backends', 'openai', 'cacheControl'], message: "only an openai-chat backend takes \"cacheControl\": an anthropic upstream gets a client's breakpoints as they are, and the router's for clients that set none" }),
    ]);
  });

  it('takes auth and anthropicVersion on an anthropic backend only, apiVersion on a gemini one only and agreeing with its base URL', () => {
    const withSettings = (type: string, settings: Record<string, unknown>, baseUrl = base.backends.openai.baseUrl) =>
      JSON.stringify({ ...base, backends: { openai: { ...base.backends.openai, type, baseUrl, ...settings } } }, null, 2);
    const anthropic = { auth: 'bearer', anthropicVersion: '2026-10-21' };
    expect(validateText(withSettings('anthropic', anthropic), { env: {} })).toMatchObject({ problems: [], config: { backends: { openai: anthropic } } });
    expect(validateText(withSettings('gemini', { apiVersion: 'v1' }, 'https://g.example'), { env: {} })).toMatchObject({ problems: [], config: { backends: { openai: { apiVersion: 'v1' } } } });
    expect(validateText(withSettings('openai-chat', anthropic), { env: {} }).problems).toEqual([
      expect.objectContaining({ path: ['backends', 'openai', 'auth'], message: '"auth" is for anthropic backends only' }),
      expect.objectContaining({ path: ['backends', 'openai', 'anthropicVersion'], message: '"anthropicVersion" is for anthropic backends only' }),
    ]);
    expect(validateText(withSettings('gemini', { apiVersion: 'v1' }, 'https://g.example/v1beta'), { env: {} }).problems).toEqual([
      expect.objectContaining({ path: ['backends', 'openai', 'apiVersion'], message: expect.stringContaining('the base URL names API version v1beta and the setting v1') }),
    ]);
    for (const [field, value] of [['auth', 'basic'], ['anthropicVersion', 'latest'], ['apiVersion', 'beta']] as const) {
      expect(validateText(withSettings(field === 'apiVersion' ? 'gemini' : 'anthropic', { [field]: value }, 'https://g.example'), { env: {} }).problems.map((problem) => problem.path)).toEqual([['backends', 'openai', field]]);
    }
  });

  it('takes websocket on an openai-responses backend only', () => {
    const withSocket = (type: string) => JSON.stringify({ ...base, backends: { openai: { ...base.backends.openai, type, websocket: true } } }, null, 2);
    expect(validateText(withSocket('openai-responses'), { env: {} })).toMatchObject({ problems: [], config: { backends: { openai: { websocket: true } } } });
    for (const type of BACKEND_TYPES.filter((other) => other !== 'openai-responses')) {
      expect(validateText(withSocket(type), { env: {} }).problems).toContainEqual(expect.objectContaining({ path: ['backends', 'openai', 'websocket'], message: '"websocket" is for openai-responses backends only' }));
    }
  });

  it('accepts comments and trailing commas', () => {
    const text = '{\n  // the team\'s routes\n  "routes": { "svc.intelligent-lite": ["offline",], },\n}\n';
    expect(validateText(text, { env: {} })).toMatchObject({ problems: [], config: { routes: { 'svc.intelligent-lite': ['offline'] } } });
  });

  it('names the line and column of a syntax error, with the path it was in', () => {
    const text = '{\n  "routes": {\n    "svc.intelligent-lite": ["offline"]\n    "svc.intelligent-pro": ["offline"]\n  }\n}\n';
    expect(validateText(text).problems[0]).toMatchObject({ line: 4, column: 5, message: 'syntax error: comma expected' });
  });

  it('refuses a name given twice, which JSON would silently keep only once', () => {
    const text = '{\n  "routes": {\n    "svc.intelligent-lite": ["offline"],\n    "svc.intelligent-lite": ["openai"]\n  }\n}\n';
    expect(validateText(text).problems).toEqual([
      { path: ['routes', 'svc.intelligent-lite'], line: 4, column: 5, message: '"svc.intelligent-lite" is given twice in one object; only one can be kept' },
    ]);
  });

  it('treats __proto__ and constructor as names: refused or kept as entries, never reaching a prototype', () => {
    const gemini = '{ "type": "gemini", "baseUrl": "https://x.example" }';
    const text = `{\n  "backends": {\n    "__proto__": ${gemini},\n    "constructor": ${gemini}\n  },\n  "routes": { "__proto__": ["offline"] }\n}\n`;
    expect(validateText(text, { env: {} }).problems).toEqual([
      { path: ['backends', '__proto__'], line: 3, column: 5, message: expect.stringMatching(/^backend name "__proto__" is not valid/) },
      { path: ['routes', '__proto__'], line: 6, column: 15, message: expect.stringMatching(/^cannot route "__proto__"/) },
    ]);
    const accepted = validateText(`{ "backends": { "constructor": ${gemini} } }`, { env: {} }).config!;
    expect(Object.hasOwn(accepted.backends!, 'constructor')).toBe(true);
    expect(({} as Record<string, unknown>).type).toBeUndefined();
  });

  it('a route may name a stored backend when the file has no backends of its own', () => {
    const text = JSON.stringify({ routes: { 'svc.intelligent-pro': ['local-llm:qwen'] } });
    expect(validateText(text, { storedBackends: ['local-llm'] }).problems).toEqual([]);
    expect(validateText(text, { storedBackends: [] }).problems[0]!.message).toBe('unknown backend "local-llm"');
  });

  it('refuses literal keys, credential headers and a Redis password, saying what to write instead', () => {
    const text = JSON.stringify(
      {
        backends: { openai: { ...base.backends.openai, apiKey: 'not-shaped-like-a-key', headers: { Authorization: 'x' } } },
        usage: { store: 'redis://:hunter2@cache:6379' },
      },
      null,
      2,
    );
    const messages = validateText(text, { env: {} }).problems.map((problem) => problem.message);
    expect(messages).toEqual([
      expect.stringMatching(/^unknown field "apiKey": a literal key does not belong in this file; set "apiKeyEnv"/),
      expect.stringMatching(/^header "Authorization" carries a credential/),
      expect.stringMatching(/^a Redis URL with a password does not belong in this file/),
    ]);
    expect(messages.join('\n')).not.toContain('hunter2');
  });

  it('warns, without refusing, when a variable the file names is not set here', () => {
    const validation = validateText(JSON.stringify({ ...base, sealingSecretEnv: 'TEAM_SEAL' }), { env: { OPENAI_API_KEY: 'x' } });
    expect(validation.problems).toEqual([]);
    expect(validation.warnings.map((warning) => warning.message)).toEqual(['$TEAM_SEAL is not set in this environment']);
  });

  it('takes the sealing secret from the variable it names, and keeps the local key working', () => {
    const stored = withDefaults({ localKey: 'svc_me_0123456789abcdef', secret: 'mine', keys: { me: { developer: 'me', organisation: 'o', tier: 't', capTokens: 1, hash: hashKey('svc_me_0123456789abcdef'), hint: 'svc_me_0', createdAt: '2026-01-01T00:00:00.000Z' } } });
    const file = validateText(JSON.stringify({ ...base, keys: {}, sealingSecretEnv: 'TEAM_SEAL' }), { env: {} }).config!;
    const settings = applyDeclarative(stored, file, { TEAM_SEAL: 'shared-secret' });
    expect(settings.secret).toBe('shared-secret');
    expect(Object.keys(settings.keys)).toEqual(['me']);
    expect(settings.localKey).toBe(stored.localKey);
  });
});

describe('export leaves out every header named as a credential', () => {
  it('x-gateway-key, x-auth-token and the like, with a note naming the header and never its value', () => {
    const settings = withDefaults({
      backends: {
        gateway: {
          type: 'openai-chat',
          baseUrl: 'https://gateway.example/v1',
          headers: { 'x-gateway-key': 'gw-value-0000000000000000000', 'X-Auth-Token': 'plain', 'x-team': 'platform' },
        },
      },
    });
    const { config, notes } = exportDeclarative(settings);
    expect(config.backends?.gateway?.headers).toEqual({ 'x-team': 'platform' });
    expect(notes.join('\n')).toMatch(/header "x-gateway-key" holds a credential/);
    expect(notes.join('\n')).toMatch(/header "X-Auth-Token" holds a credential/);
    expect(JSON.stringify({ config, notes })).not.toContain('gw-value');
  });
});
