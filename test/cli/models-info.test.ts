import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRICE_PACKAGE_SOURCE } from '../../src/catalog/index.js';
import { initHome, makeHome, removeHome, runCli, runCliJson } from './run-cli.js';

interface Sourced {
  value: unknown;
  source: string;
}
interface Shown {
  model: string;
  route?: string;
  context_window?: { value: number; source: string } | null;
  targets: Array<{ target: string; type?: string; context_window: Sourced | null; max_output: Sourced | null; price: { source: string; value: Record<string, { base: number } | null> } | null; capabilities: Sourced | null }>;
}

describe('svc-router models info', () => {
  let home: string;
  beforeAll(async () => {
    home = makeHome();
    await initHome(home);
    for (const args of [
      ['backends', 'add', 'anth', '--type', 'anthropic', '--base-url', 'https://api.anthropic.example', '--api-key', 'sk-ant-secret-1'],
      ['backends', 'add', 'oa', '--type', 'openai-responses', '--base-url', 'https://api.openai.example/v1', '--api-key', 'sk-secret-2'],
      ['routes', 'set', 'svc.intelligent-pro', 'anth:claude-opus-4-7', 'oa:gpt-5.4'],
      ['prices', 'set', 'oa:gpt-5.4', '--input', '1', '--output', '2'],
      ['routes', 'window', 'anth:claude-opus-4-7', '300000'],
    ]) {
      expect((await runCli(args, { home })).code, args.join(' ')).toBe(0);
    }
  });
  afterAll(() => removeHome(home));

  it("shows each target of a route with every value's source: the package, the local table, the config", async () => {
    const shown = await runCliJson<Shown>(['models', 'info', 'svc.intelligent-pro', '--json'], { home });
    expect(shown.route).toBe('svc.intelligent-pro');
    const [opus, gpt] = shown.targets;
    expect(opus).toMatchObject({ target: 'anth:claude-opus-4-7', type: 'anthropic', context_window: { value: 300_000, source: 'config: contextWindows["anth:claude-opus-4-7"]' } });
    expect(opus!.price?.source).toBe(PRICE_PACKAGE_SOURCE);
    expect(opus!.price?.value.cache_write_1h?.base).toBe(10);
    expect(opus!.max_output?.source).toMatch(/^local table \(https:\/\/platform\.claude\.com\//);
    expect(opus!.capabilities?.value).toMatchObject({ refusesSampling: ['temperature', 'topP', 'topK'], reasoning: { adaptive: true, budget: false } });
    expect(gpt).toMatchObject({ target: 'oa:gpt-5.4', price: { source: 'config: prices["oa:gpt-5.4"]', value: { input: { base: 1 }, output: { base: 2 } } } });
    expect(gpt!.context_window?.source).toBe(PRICE_PACKAGE_SOURCE);
    // The window clients are told is the smallest along the route.
    expect(shown.context_window).toEqual({ value: 300_000, source: 'config: contextWindows["anth:claude-opus-4-7"]' });
  });

  it('says a model no source lists is unknown, with no made-up numbers', async () => {
    const shown = await runCliJson<Shown>(['models', 'info', 'my-local-llama', '--json'], { home });
    expect(shown.targets).toEqual([{ target: 'my-local-llama', context_window: null, max_output: null, price: null, capabilities: null }]);
    const text = await runCli(['models', 'info', 'constructor'], { home });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('context window: unknown');
    expect(text.stdout).toContain('prices: unknown');
  });

  it('names the near miss of a name nothing lists: a model, a SKU, a backend', async () => {
    for (const [given, meant] of [
      ['claude-opuss-4-7', "did you mean 'claude-opus-4-7'?"],
      ['svc.intelligent-por', "did you mean 'svc.intelligent-pro'?"],
      ['anht:claude-opus-4-7', "no backend 'anht' (did you mean 'anth'?)"],
    ]) {
      const result = await runCli(['models', 'info', given!, '--json'], { home });
      expect(result.code, given).toBe(0);
      expect(result.stderr, given).toContain(`no source lists '${given}'`);
      expect(result.stderr, given).toContain(meant);
      // stdout stays the answer alone.
      expect(JSON.parse(result.stdout).model).toBe(given);
    }
    // A name far from every known one gets no guess.
    expect((await runCli(['models', 'info', 'my-local-llama'], { home })).stderr).toBe('');
  });

  it('prints the sources in text too, and never a key', async () => {
    const text = await runCli(['models', 'info', 'svc.intelligent-pro'], { home });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(PRICE_PACKAGE_SOURCE);
    expect(text.stdout).toContain('cache write, 1 hour: $10');
    expect(text.stdout).toContain('config: prices["oa:gpt-5.4"]');
    expect(text.stdout + text.stderr).not.toMatch(/sk-(?:ant-)?secret/);
  });
});
