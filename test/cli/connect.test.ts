import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse as parseToml } from 'smol-toml';
import { afterEach, describe, expect, it } from 'vitest';
import { CODEX_KEY_SCRIPT } from '../../src/cli/client-settings.js';
import { keyHint } from '../../src/core/router-keys.js';
import { startRouter } from '../helpers/router.js';
import { initHome, makeHome, removeHome, ROOT, runCli } from './run-cli.js';

/**
 * `svc-router connect` on the built binary: the printed settings are parsed as the client would
 * parse them (TOML for Codex, JSON for Claude Code), and --write is run against real files with
 * content of their own that must survive.
 */

const run = promisify(execFile);
const homes: string[] = [];
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  homes.splice(0).forEach(removeHome);
});

async function initialisedHome(): Promise<{ home: string; key: string }> {
  const home = makeHome();
  homes.push(home);
  return { home, key: await initHome(home) };
}

/** The printed TOML: all of stdout (its comment is a TOML comment; hints go to stderr). */
const printedToml = (stdout: string): string => stdout;

/** The printed JSON object: all of stdout, so `connect claude > file.json` is the file. */
const printedJson = (stdout: string): unknown => JSON.parse(stdout);

/** Codex's auth table: node prints SVC_ROUTER_KEY (or names it when unset). */
const AUTH = { command: 'node', args: ['-e', CODEX_KEY_SCRIPT, 'SVC_ROUTER_KEY'] };
const AUTH_ARGS_LINE = `args = ${JSON.stringify(AUTH.args).replace(/","/g, '", "')}`;

/**
 * What Claude Code is told in a home with no routes: every tier its own SKU (all offline), and the
 * fallback window, since offline answers fit any.
 */
const claudeModelEnv = {
  ANTHROPIC_MODEL: 'svc.intelligent-pro',
  ANTHROPIC_DEFAULT_OPUS_MODEL: 'svc.intelligent-pro',
  ANTHROPIC_DEFAULT_SONNET_MODEL: 'svc.intelligent-basic',
  ANTHROPIC_DEFAULT_HAIKU_MODEL: 'svc.intelligent-lite',
  ANTHROPIC_DEFAULT_FABLE_MODEL: 'svc.intelligent-pro',
  ANTHROPIC_SMALL_FAST_MODEL: 'svc.intelligent-lite',
  CLAUDE_CODE_SUBAGENT_MODEL: 'svc.intelligent-pro',
  CLAUDE_CODE_AUTO_MODE_MODEL: 'svc.intelligent-pro',
  CLAUDE_CODE_MAX_CONTEXT_TOKENS: '128000',
};

const diffLines = (stdout: string): string[] => stdout.split('\n').filter((line) => /^[+-]( |$)/.test(line));

describe('svc-router connect codex', () => {
  it('prints a config.toml provider that parses, with /v1, the responses wire API and the key from an auth command', async () => {
    const { home, key } = await initialisedHome();
    const result = await runCli(['connect', 'codex', '--base-url', 'http://router.example.test:9000/v1/'], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(parseToml(printedToml(result.stdout))).toEqual({
      model: 'svc.intelligent-pro',
      model_provider: 'svc',
      model_providers: {
        svc: {
          name: 'svc-router',
          base_url: 'http://router.example.test:9000/v1',
          wire_api: 'responses',
          supports_websockets: true,
          auth: AUTH,
        },
      },
    });
    expect(result.stderr).toContain('Codex gets the key from SVC_ROUTER_KEY');
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(`export SVC_ROUTER_KEY=${key}`);
  });

  it('uses the configured address when no --base-url is given', async () => {
    const { home } = await initialisedHome();
    expect((await runCli(['config', 'set', 'server.port', '9123'], { home })).code).toBe(0);
    const result = await runCli(['connect', 'codex'], { home });
    const toml = parseToml(printedToml(result.stdout)) as { model_providers: { svc: { base_url: string } } };
    expect(toml.model_providers.svc.base_url).toBe('http://127.0.0.1:9123/v1');
  });

  it('--write creates $CODEX_HOME/config.toml (0600) and prints the added lines', async () => {
    const { home, key } = await initialisedHome();
    const codexHome = path.join(home, 'codex-home');
    const result = await runCli(['connect', 'codex', '--write', '--base-url', 'http://127.0.0.1:8787'], { home, env: { CODEX_HOME: codexHome } });
    expect(result.code, result.stderr).toBe(0);
    const file = path.join(codexHome, 'config.toml');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const written = fs.readFileSync(file, 'utf8');
    expect(parseToml(written)).toMatchObject({
      model: 'svc.intelligent-pro',
      model_provider: 'svc',
      model_providers: { svc: { base_url: 'http://127.0.0.1:8787/v1', auth: AUTH } },
    });
    expect(diffLines(result.stdout)).toEqual(written.trimEnd().split('\n').map((line) => (line ? `+ ${line}` : '+')));
    expect(result.stderr).toContain(`export SVC_ROUTER_KEY=${key}`);
    // The key goes in the environment, never into Codex's file.
    expect(written).not.toContain(key);
  });

  it('--write defaults to ~/.codex/config.toml', async () => {
    const { home } = await initialisedHome();
    const result = await runCli(['connect', 'codex', '--write'], { home, env: { CODEX_HOME: undefined } });
    expect(result.code, result.stderr).toBe(0);
    expect(fs.existsSync(path.join(home, '.codex', 'config.toml'))).toBe(true);
  });

  it('--write merges into an existing config.toml and keeps everything else', async () => {
    const { home } = await initialisedHome();
    const codexHome = path.join(home, 'codex');
    fs.mkdirSync(codexHome);
    const file = path.join(codexHome, 'config.toml');
    const original = [
      '# my Codex settings',
      'model = "gpt-5-codex"',
      'approval_policy = "on-request"',
      'notes = """',
      '[model_providers.svc]',
      'model = "inside a string"',
      '"""',
      '',
      '[model_providers.svc]',
      'name = "old"',
      'base_url = "http://old-host:1/v1"',
      'env_key = "OLD_KEY_VAR"',
      'request_max_retries = 4 # keep me',
      '',
      '[model_providers.svc.http_headers]',
      'X-Team = "research"',
      '',
      '[profiles.fast]',
      'model = "o4-mini"',
      '',
      '[mcp_servers.docs]',
      'command = "docs-server"',
      'args = ["--port", "3000"]',
      '',
    ].join('\n');
    fs.writeFileSync(file, original, { mode: 0o644 });

    const result = await runCli(['connect', 'codex', '--write', '--base-url', 'http://127.0.0.1:8787/v1'], { home, env: { CODEX_HOME: codexHome } });
    expect(result.code, result.stderr).toBe(0);
    const written = fs.readFileSync(file, 'utf8');
    expect(parseToml(written)).toEqual({
      model: 'svc.intelligent-pro',
      model_provider: 'svc',
      approval_policy: 'on-request',
      notes: '[model_providers.svc]\nmodel = "inside a string"\n',
      model_providers: {
        svc: {
          name: 'svc-router',
          base_url: 'http://127.0.0.1:8787/v1',
          wire_api: 'responses',
          supports_websockets: true,
          request_max_retries: 4,
          http_headers: { 'X-Team': 'research' },
          auth: AUTH,
        },
      },
      profiles: { fast: { model: 'o4-mini' } },
      mcp_servers: { docs: { command: 'docs-server', args: ['--port', '3000'] } },
    });
    expect(written).toContain('# my Codex settings');
    expect(written).toContain('request_max_retries = 4 # keep me');
    expect(fs.statSync(file).mode & 0o777).toBe(0o644);
    // Only what changed is printed.
    expect(diffLines(result.stdout).sort()).toEqual(
      [
        '- model = "gpt-5-codex"',
        '+ model = "svc.intelligent-pro"',
        '+ model_provider = "svc"',
        '- name = "old"',
        '+ name = "svc-router"',
        '- base_url = "http://old-host:1/v1"',
        '+ base_url = "http://127.0.0.1:8787/v1"',
        '- env_key = "OLD_KEY_VAR"',
        '+ wire_api = "responses"',
        '+ supports_websockets = true',
        '+',
        '+ [model_providers.svc.auth]',
        '+ command = "node"',
        `+ ${AUTH_ARGS_LINE}`,
      ].sort(),
    );

    // A second run finds nothing to change and leaves the file byte for byte.
    const again = await runCli(['connect', 'codex', '--write', '--base-url', 'http://127.0.0.1:8787/v1'], { home, env: { CODEX_HOME: codexHome } });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already has these settings');
    expect(diffLines(again.stdout)).toEqual([]);
    expect(fs.readFileSync(file, 'utf8')).toBe(written);
  });

  it('refuses to merge (exit 1, file untouched) when the provider is written as an inline table', async () => {
    const { home } = await initialisedHome();
    const codexHome = path.join(home, 'codex');
    fs.mkdirSync(codexHome);
    const file = path.join(codexHome, 'config.toml');
    const original = '[model_providers]\nsvc = { name = "mine", base_url = "http://x/v1" }\n';
    fs.writeFileSync(file, original);
    const result = await runCli(['connect', 'codex', '--write'], { home, env: { CODEX_HOME: codexHome } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot merge into');
    expect(fs.readFileSync(file, 'utf8')).toBe(original);
  });
});

describe('svc-router connect claude', () => {
  it('prints the env block as JSON and the same settings as export lines', async () => {
    const { home, key } = await initialisedHome();
    const result = await runCli(['connect', 'claude', '--base-url', 'http://127.0.0.1:8787/v1'], { home });
    expect(result.code, result.stderr).toBe(0);
    const env = { ANTHROPIC_BASE_URL: 'http://127.0.0.1:8787', ANTHROPIC_AUTH_TOKEN: key, ...claudeModelEnv };
    expect(printedJson(result.stdout)).toEqual({ env });
    const exports = result.stderr.split('\n').filter((line) => line.startsWith('export '));
    expect(exports).toEqual(Object.entries(env).map(([name, value]) => `export ${name}=${value}`));
  });

  it('--write merges into ~/.claude/settings.json and keeps every other setting', async () => {
    const { home, key } = await initialisedHome();
    const dir = path.join(home, '.claude');
    fs.mkdirSync(dir);
    const file = path.join(dir, 'settings.json');
    const original = {
      model: 'opus',
      permissions: { allow: ['Bash(npm test)'], deny: [] },
      env: { DISABLE_TELEMETRY: '1', ANTHROPIC_BASE_URL: 'http://old:1' },
      hooks: {},
    };
    fs.writeFileSync(file, `${JSON.stringify(original, null, 4)}\n`, { mode: 0o644 });

    const result = await runCli(['connect', 'claude', '--write', '--base-url', 'http://127.0.0.1:8787'], { home });
    expect(result.code, result.stderr).toBe(0);
    const written = fs.readFileSync(file, 'utf8');
    expect(JSON.parse(written)).toEqual({
      ...original,
      env: { DISABLE_TELEMETRY: '1', ANTHROPIC_BASE_URL: 'http://127.0.0.1:8787', ANTHROPIC_AUTH_TOKEN: key, ...claudeModelEnv },
    });
    // The file's own indentation is kept, so the diff shows only the env lines; it now holds the
    // key, so a mode others could read is tightened, and the user is told.
    expect(written).toContain('\n    "permissions": {');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(result.stderr).toContain(`${file} was mode 0644 and now holds your key: changed it to 0600`);
    // The key is in the file, and shown in the printed changes only as its hint.
    expect(result.stdout + result.stderr).not.toContain(key);
    expect(diffLines(result.stdout)).toEqual([
      '-         "ANTHROPIC_BASE_URL": "http://old:1"',
      '+         "ANTHROPIC_BASE_URL": "http://127.0.0.1:8787",',
      `+         "ANTHROPIC_AUTH_TOKEN": "${keyHint(key)}",`,
      ...Object.entries(claudeModelEnv).map(([name, value], index, all) => `+         "${name}": "${value}"${index < all.length - 1 ? ',' : ''}`),
    ]);
  });

  it('--write creates settings.json (0600) under CLAUDE_CONFIG_DIR', async () => {
    const { home, key } = await initialisedHome();
    const dir = path.join(home, 'claude-config');
    const result = await runCli(['connect', 'claude', '--write'], { home, env: { CLAUDE_CONFIG_DIR: dir } });
    expect(result.code, result.stderr).toBe(0);
    const file = path.join(dir, 'settings.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
      env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:8787', ANTHROPIC_AUTH_TOKEN: key, ...claudeModelEnv },
    });
  });

  it('--write refuses a settings.json that is not JSON (exit 1, untouched)', async () => {
    const { home } = await initialisedHome();
    fs.mkdirSync(path.join(home, '.claude'));
    const file = path.join(home, '.claude', 'settings.json');
    fs.writeFileSync(file, '{ "model": ');
    const result = await runCli(['connect', 'claude', '--write'], { home });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('not valid JSON');
    expect(fs.readFileSync(file, 'utf8')).toBe('{ "model": ');
  });
});

describe('svc-router connect gemini', () => {
  /** Gemini CLI's home as it finds it: $GEMINI_CLI_HOME stands for the home directory. */
  const geminiFiles = (home: string) => ({ settings: path.join(home, '.gemini', 'settings.json'), env: path.join(home, '.gemini', '.env') });
  const mode = (file: string): number => fs.statSync(file).mode & 0o777;
  /** settings.json as Gemini CLI reads it: comments stripped (strip-json-comments), then JSON.parse. */
  const parseSettings = (text: string): unknown => JSON.parse(text.replace(/^\s*\/\/.*$/gm, ''));

  it('prints settings.json on stdout and the address and key as export lines on stderr', async () => {
    const { home, key } = await initialisedHome();
    const result = await runCli(['connect', 'gemini', '--base-url', 'http://127.0.0.1:8787/v1/'], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ security: { auth: { selectedType: 'gemini-api-key' } }, model: { name: 'svc.intelligent-pro' } });
    expect(result.stdout).not.toContain(key);
    // The origin without /v1: Gemini clients add /v1beta themselves.
    expect(result.stderr.split('\n').filter((line) => line.startsWith('export '))).toEqual(['export GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:8787', `export GEMINI_API_KEY=${key}`]);
  });

  it('--write merges into existing files (comments, other keys and lines kept), writes the key 0600, shows no key, and a second run changes nothing', async () => {
    const { home, key } = await initialisedHome();
    const files = geminiFiles(home);
    fs.mkdirSync(path.dirname(files.settings));
    const settings = '{\n  // my Gemini settings\n  "general": { "vimMode": true },\n  "model": { "name": "gemini-2.5-pro", "maxSessionTurns": 40 },\n  "ui": { "theme": "GitHub" }\n}\n';
    const dotEnv = '# project defaults\nGOOGLE_CLOUD_PROJECT=my-project\nGEMINI_API_KEY=AIzaSyOLDOLDOLDOLDOLDOLDOLDOLDOLDOLDOLD12\nGOOGLE_GEMINI_BASE_URL=http://old:1\n';
    fs.writeFileSync(files.settings, settings, { mode: 0o644 });
    fs.writeFileSync(files.env, dotEnv, { mode: 0o644 });
    fs.chmodSync(files.settings, 0o644);
    fs.chmodSync(files.env, 0o644);

    const result = await runCli(['connect', 'gemini', '--write', '--base-url', 'http://127.0.0.1:8787/v1'], { home, env: { GEMINI_CLI_HOME: undefined, GEMINI_API_KEY: undefined, GOOGLE_GEMINI_BASE_URL: undefined } });
    expect(result.code, result.stderr).toBe(0);
    const writtenSettings = fs.readFileSync(files.settings, 'utf8');
    const writtenEnv = fs.readFileSync(files.env, 'utf8');
    expect(parseSettings(writtenSettings)).toEqual({
      general: { vimMode: true },
      model: { name: 'svc.intelligent-pro', maxSessionTurns: 40 },
      ui: { theme: 'GitHub' },
      security: { auth: { selectedType: 'gemini-api-key' } },
    });
    expect(writtenSettings).toContain('// my Gemini settings');
    expect(writtenEnv).toBe(`# project defaults\nGOOGLE_CLOUD_PROJECT=my-project\nGEMINI_API_KEY=${key}\nGOOGLE_GEMINI_BASE_URL=http://127.0.0.1:8787\n`);
    // The key's file is private; settings.json holds no key and keeps its mode.
    expect(mode(files.env)).toBe(0o600);
    expect(mode(files.settings)).toBe(0o644);
    expect(writtenSettings).not.toContain(key);
    expect(result.stderr).toContain(`${files.env} was mode 0644 and now holds your key: changed it to 0600`);
    // No key in anything printed: neither ours nor the one it replaced.
    expect(result.stdout + result.stderr).not.toContain(key);
    expect(result.stdout + result.stderr).not.toContain('AIzaSyOLD');
    expect(diffLines(result.stdout)).toEqual(expect.arrayContaining([`+ GEMINI_API_KEY=${keyHint(key)}`, '- GOOGLE_GEMINI_BASE_URL=http://old:1', '+ GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:8787']));

    const again = await runCli(['connect', 'gemini', '--write', '--base-url', 'http://127.0.0.1:8787'], { home, env: { GEMINI_CLI_HOME: undefined } });
    expect(again.code, again.stderr).toBe(0);
    expect(diffLines(again.stdout)).toEqual([]);
    expect(again.stdout).toContain(`${files.settings} already has these settings`);
    expect(again.stdout).toContain(`${files.env} already has these settings`);
    expect(fs.readFileSync(files.settings, 'utf8')).toBe(writtenSettings);
    expect(fs.readFileSync(files.env, 'utf8')).toBe(writtenEnv);

    const undone = await runCli(['connect', 'gemini', '--undo'], { home, env: { GEMINI_CLI_HOME: undefined } });
    expect(undone.code, undone.stderr).toBe(0);
    expect(fs.readFileSync(files.settings, 'utf8')).toBe(settings);
    expect(fs.readFileSync(files.env, 'utf8')).toBe(dotEnv);
    expect(mode(files.settings)).toBe(0o644);
    expect(mode(files.env)).toBe(0o644);
    expect(undone.stdout + undone.stderr).not.toContain(key);
    expect(fs.readdirSync(path.dirname(files.settings)).sort()).toEqual(['.env', 'settings.json']);
    const nothing = await runCli(['connect', 'gemini', '--undo'], { home, env: { GEMINI_CLI_HOME: undefined } });
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain('nothing to undo');
  });

  it('--write creates both files (0600) under GEMINI_CLI_HOME, and --undo removes them', async () => {
    const { home, key } = await initialisedHome();
    const geminiHome = path.join(home, 'gemini-home');
    const files = geminiFiles(geminiHome);
    const result = await runCli(['connect', 'gemini', '--write', '--model', 'svc.intelligent-lite'], { home, env: { GEMINI_CLI_HOME: geminiHome } });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(files.settings, 'utf8'))).toEqual({ security: { auth: { selectedType: 'gemini-api-key' } }, model: { name: 'svc.intelligent-lite' } });
    expect(fs.readFileSync(files.env, 'utf8')).toBe(`GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:8787\nGEMINI_API_KEY=${key}\n`);
    expect([mode(files.settings), mode(files.env)]).toEqual([0o600, 0o600]);
    expect(fs.existsSync(path.join(home, '.gemini'))).toBe(false);

    // An edit since the write keeps both files as they are, unless --force.
    fs.appendFileSync(files.env, 'MINE=1\n');
    const refused = await runCli(['connect', 'gemini', '--undo'], { home, env: { GEMINI_CLI_HOME: geminiHome } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('has changed since svc-router wrote it');
    expect(fs.existsSync(files.settings)).toBe(true);
    const forced = await runCli(['connect', 'gemini', '--undo', '--force'], { home, env: { GEMINI_CLI_HOME: geminiHome } });
    expect(forced.code, forced.stderr).toBe(0);
    expect(fs.readdirSync(path.dirname(files.settings))).toEqual([]);
  });

  it('warns when the shell sets a variable that would win over the .env file', async () => {
    const { home } = await initialisedHome();
    const result = await runCli(['connect', 'gemini', '--write'], { home, env: { GEMINI_CLI_HOME: undefined, GEMINI_API_KEY: 'AIzaSyMINEMINEMINEMINEMINEMINEMINEMINE12' } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/this shell sets GEMINI_API_KEY to another key; Gemini CLI uses it over .*\.env/);
    expect(result.stderr).not.toContain('AIzaSyMINE');
  });

  it('refuses a settings.json Gemini CLI could not read, and --model names the SKUs it takes (exit 2)', async () => {
    const { home } = await initialisedHome();
    const files = geminiFiles(home);
    fs.mkdirSync(path.dirname(files.settings));
    fs.writeFileSync(files.settings, '{ "model": { "name": "x" }, }');
    const broken = await runCli(['connect', 'gemini', '--write'], { home, env: { GEMINI_CLI_HOME: undefined } });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/cannot merge into .*settings\.json: it is not valid JSON \(line 1, column 29/);
    expect(fs.existsSync(files.env)).toBe(false);
    const model = await runCli(['connect', 'gemini', '--model', 'gpt-4o'], { home });
    expect(model.code).toBe(2);
    expect(model.stderr).toContain('svc.intelligent-pro, svc.intelligent-basic, svc.intelligent-lite');
    expect((await runCli(['connect', 'claude', '--model', 'svc.intelligent-pro'], { home })).code).toBe(2);
  });
});

describe('svc-router connect openai-sdk and anthropic-sdk', () => {
  /** Saves the printed snippet inside the checkout (so `openai` and `@anthropic-ai/sdk` resolve) and runs it with only the variable it names. */
  async function runSnippet(stdout: string, variable: string, key: string): Promise<string> {
    const snippet = stdout.slice(stdout.indexOf('// npm install'));
    const dir = fs.mkdtempSync(path.join(ROOT, 'test', '.snippet-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'example.mjs');
    fs.writeFileSync(file, snippet);
    const { stdout: output } = await run(process.execPath, [file], { env: { PATH: process.env.PATH ?? '', [variable]: key }, timeout: 20_000 });
    return output;
  }

  it('prints an OpenAI SDK snippet that runs against the router as printed', async () => {
    const router = await startRouter();
    cleanups.push(() => router.close());
    const result = await runCli(['connect', 'openai-sdk', '--base-url', router.baseURL, '--key', router.key], { home: router.home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`export OPENAI_API_KEY=${router.key}`);
    expect(result.stdout).not.toContain('export ');
    expect(result.stdout).toContain(`baseURL: '${router.baseURL}'`);
    expect(await runSnippet(result.stdout, 'OPENAI_API_KEY', router.key)).toContain('you said "Say hello."');
  });

  it('prints an Anthropic SDK snippet that runs against the router as printed', async () => {
    const router = await startRouter();
    cleanups.push(() => router.close());
    const result = await runCli(['connect', 'anthropic-sdk', '--base-url', router.baseURL], { home: router.home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`baseURL: '${router.origin}'`);
    expect(result.stderr).toContain('export ANTHROPIC_AUTH_TOKEN=');
    expect(await runSnippet(result.stdout, 'ANTHROPIC_AUTH_TOKEN', router.key)).toContain('you said "Say hello."');
  });

  it.each(['openai-sdk', 'anthropic-sdk'])('%s --write is a usage error (exit 2) that writes nothing', async (client) => {
    const { home } = await initialisedHome();
    const before = fs.readdirSync(home).sort();
    const result = await runCli(['connect', client, '--write'], { home });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--write is for codex, claude and gemini');
    expect(fs.readdirSync(home).sort()).toEqual(before);
  });
});

describe('svc-router connect: usage errors', () => {
  it('exits 2 for an unknown client', async () => {
    const { home } = await initialisedHome();
    const result = await runCli(['connect', 'emacs'], { home });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("'emacs' is invalid");
  });

  it('exits 2 for a key with trailing whitespace', async () => {
    const { home } = await initialisedHome();
    const result = await runCli(['connect', 'claude', '--key', 'svc_alice_abcdefabcdefabcdefabcdefabcdefabcdef '], { home });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no trailing whitespace');
  });

  it('exits 2 without a stored key or --key', async () => {
    const home = makeHome();
    homes.push(home);
    const result = await runCli(['connect', 'codex'], { home });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('svc-router init');
  });
});
