import fs from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { unknownSettingsFields } from '../../src/config/settings-shape.js';
import { DEFAULT_SETTINGS } from '../../src/config/settings.js';
import { callRouter, configFile, initHome, makeHome, readConfig, removeHome, runCli, startServe, type ServeChild } from './run-cli.js';

/**
 * A field of config.json the settings do not know is ignored by the router, so a misspelt one
 * leaves its setting at the default (`"guardrails": {"secret": "refuse"}` leaves the guardrail
 * off). The serve names each such field once, when it appears (at start, on a reload), and doctor
 * fails the config file naming it, each with the near miss it was probably meant to be.
 */

const homes: string[] = [];
const servers: ServeChild[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.kill()));
  homes.splice(0).forEach(removeHome);
});

async function freshHome(): Promise<{ home: string; key: string }> {
  const home = makeHome();
  homes.push(home);
  return { home, key: await initHome(home) };
}

/** Rewrites config.json by hand, as a user editing it would. */
function edit(home: string, change: (json: Record<string, any>) => void): void {
  const json = readConfig(home)!;
  change(json);
  fs.writeFileSync(configFile(home), JSON.stringify(json, null, '\t'), { mode: 0o600 });
}

const occurrences = (text: string, part: string): number => text.split(part).length - 1;
const GUARDRAIL_TYPO = 'guardrails: unknown field "secret" (did you mean "secrets"?)';
const UI_TYPO = 'server: unknown field "uii" (did you mean "ui"?)';

describe('a misspelt field in config.json', () => {
  it('is named by serve once at start, a new one once on reload, and one kept is not named again', async () => {
    const { home, key } = await freshHome();
    edit(home, (json) => void (json.guardrails = { secret: 'refuse' }));
    // With the request log on: it follows the config's reports on the same stream, so a logged request has every report before it.
    const server = await startServe(home, ['--port', '0']);
    servers.push(server);
    await vi.waitFor(() => expect(server.stderr()).toContain(GUARDRAIL_TYPO), { timeout: 5_000, interval: 10 });
    // Where it is, as editors link it.
    expect(server.stderr()).toMatch(new RegExp(`${configFile(home).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} line \\d+, column \\d+: guardrails: unknown field`));

    // A reload that adds another: only the new one is named.
    edit(home, (json) => void (json.server = { ...json.server, uii: true }));
    await vi.waitFor(
      async () => {
        expect((await callRouter(server.origin, key, 'GET', '/whoami')).status).toBe(200);
        expect(server.stderr()).toContain(UI_TYPO);
      },
      { timeout: 5_000, interval: 50 },
    );
    // A reload that keeps both (a CLI write of another setting) names neither again.
    expect((await runCli(['config', 'set', 'server.bodyLimitBytes', '1048576'], { home })).code).toBe(0);
    const chat = () => callRouter(server.origin, key, 'POST', '/v1/chat/completions', { model: 'svc.intelligent-pro', messages: [{ role: 'user', content: 'hi' }] });
    for (let i = 0; i < 3; i++) expect((await chat()).status).toBe(200);
    await vi.waitFor(() => expect(occurrences(server.stderr(), 'POST /v1/chat/completions')).toBe(3), { timeout: 5_000, interval: 10 });
    expect(occurrences(server.stderr(), GUARDRAIL_TYPO)).toBe(1);
    expect(occurrences(server.stderr(), UI_TYPO)).toBe(1);
  });

  it('fails doctor’s config-file check, naming the field and what it was probably meant to be', async () => {
    const { home } = await freshHome();
    const clean = await runCli(['doctor', '--json', '--timeout', '500'], { home });
    expect(JSON.parse(clean.stdout).checks.find((check: { id: string }) => check.id === 'config-file')).toMatchObject({ status: 'pass', message: expect.stringContaining('every field known') });

    edit(home, (json) => void (json.guardrails = { secret: 'refuse' }));
    const result = await runCli(['doctor', '--json', '--timeout', '500'], { home });
    const check = JSON.parse(result.stdout).checks.find((entry: { id: string }) => entry.id === 'config-file');
    expect(check.status).toBe('fail');
    expect(check.message).toContain(GUARDRAIL_TYPO);
    expect(check.message).toMatch(/line \d+, column \d+: guardrails/);
    expect(check.remedy).toContain('config set');
  });
});

describe('the fields config.json may hold', () => {
  it('are every field the settings have: the defaults, and every table entry the CLI writes, are known', async () => {
    expect(unknownSettingsFields(DEFAULT_SETTINGS)).toEqual([]);
    const { home } = await freshHome();
    const steps = [
      ['backends', 'add', 'or', '--type', 'openai-chat', '--base-url', 'https://openrouter.ai/api/v1', '--api-key-env', 'OR_KEY', '--header', 'x-title=t', '--connect-timeout', '1000', '--cache-control', '--profile', 'openrouter', '--provider-routing', '{"order":["anthropic"],"max_price":{"prompt":1}}'],
      ['backends', 'pool', 'or', '--key-env', 'A_KEY', '--key-env', 'B_KEY', '--rate-limit-cooldown', '1000'],
      ['backends', 'add', 'ant', '--type', 'anthropic', '--base-url', 'https://api.anthropic.com', '--api-key', 'sk-ant-test-0123456789', '--auth', 'bearer', '--anthropic-version', '2023-06-01'],
      ['backends', 'add', 'br', '--type', 'bedrock', '--region', 'us-east-1', '--aws-profile', 'dev'],
      ['routes', 'set', 'svc.intelligent-pro', 'or:gpt-4o', 'ant:claude-sonnet-4-5', '--context-window', '100000'],
      ['routes', 'rule', 'svc.intelligent-pro', 'bg', 'ant:claude-haiku-4-5', '--background', '--context-above', '1000'],
      ['routes', 'weights', 'svc.intelligent-pro', 'or:gpt-4o=2', 'ant:claude-sonnet-4-5=1'],
      ['routes', 'guard', 'svc.intelligent-pro', 'mask'],
      ['routes', 'search', 'svc.intelligent-pro', 'ant'],
      ['prices', 'set', 'gpt-4o', '--input', '1', '--output', '2', '--cache-read', '0.5', '--cache-write', '1.5'],
      ['keys', 'issue', '--developer', 'bob', '--cap', '1000'],
      ['keys', 'limit', 'bob', '--rpm', '10', '--tpm', '1000'],
      ['config', 'set', 'guardrails.secrets', 'warn'],
      ['config', 'set', 'server.hosts', 'router.example.com'],
    ];
    for (const step of steps) {
      const result = await runCli(step, { home });
      expect(result.code, `${step.join(' ')}: ${result.stderr}`).toBe(0);
    }
    expect(unknownSettingsFields(readConfig(home))).toEqual([]);
  }, 120_000);
});
