import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initHome, makeHome, readConfig, removeHome, runCli, runCliJson } from './run-cli.js';

describe('svc-router prices', () => {
  let home: string;
  beforeAll(async () => {
    home = makeHome();
    await initHome(home);
  });
  afterAll(() => removeHome(home));

  it("lists the model catalog's prices under the price package and its version", async () => {
    const listed = await runCliJson<{ defaults_source: string; prices: Array<{ model: string; source: string; input: number; cacheWrite1h?: number }> }>(['prices', 'list', '--json'], { home });
    expect(listed.defaults_source).toMatch(/^@pydantic\/genai-prices \d+\.\d+\.\d+$/);
    expect(listed.prices.find((row) => row.model === 'gpt-4.1')).toMatchObject({ input: 2, source: listed.defaults_source });
    expect(listed.prices.find((row) => row.model === 'claude-haiku-4-5')).toMatchObject({ input: 1, cacheWrite1h: 2 });
  });

  it('sets a config price over a default, and unsets it back', async () => {
    expect((await runCli(['prices', 'set', 'gpt-4.1', '--input', '1.5', '--output', '6', '--cache-read', '0.4'], { home })).code).toBe(0);
    expect(readConfig(home)!.prices['gpt-4.1']).toEqual({ input: 1.5, output: 6, cacheRead: 0.4 });
    const listed = await runCliJson<{ prices: Array<{ model: string; source: string; input: number }> }>(['prices', 'list', '--json'], { home });
    expect(listed.prices.filter((row) => row.model === 'gpt-4.1')).toEqual([expect.objectContaining({ source: 'config', input: 1.5 })]);
    expect((await runCli(['prices', 'unset', 'gpt-4.1'], { home })).code).toBe(0);
    expect(readConfig(home)!.prices['gpt-4.1']).toBeUndefined();
  });

  it('refuses a rate that is not a non-negative number, changing nothing', async () => {
    const before = readConfig(home);
    for (const rate of ['-1', 'abc', '']) {
      const result = await runCli(['prices', 'set', 'my-model', '--input', rate, '--output', '1'], { home });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--input');
    }
    expect(readConfig(home)).toEqual(before);
    // Well formed, but no config price has that name (nor does Object.prototype lend it one): exit 1.
    expect((await runCli(['prices', 'unset', 'constructor'], { home })).code).toBe(1);
  });
});
