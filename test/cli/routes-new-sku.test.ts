import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configText, initHome, makeHome, readConfig, removeHome, runCli, runCliJson } from './run-cli.js';

/**
 * `routes set` under an svc.* name: a built-in SKU or an existing route as it is; a new SKU only
 * with --new; a near miss of a built-in SKU never, with "did you mean". `config export` then writes
 * a file `config validate` accepts.
 */

let home: string;
beforeAll(async () => {
  home = makeHome();
  await initHome(home);
  expect((await runCli(['backends', 'add', 'local', '--type', 'openai-chat', '--base-url', 'http://127.0.0.1:9/v1'], { home })).code).toBe(0);
});
afterAll(() => removeHome(home));

const skus = async (): Promise<string[]> => (await runCliJson<Array<{ model: string }>>(['routes', 'list', '--json'], { home })).map((row) => row.model);

describe('routes set: new SKUs take --new, typos are refused', () => {
  it('refuses a near miss of a built-in SKU, with or without --new, naming the SKU meant', async () => {
    const before = configText(home);
    for (const args of [['routes', 'set', 'svc.inteligent-basic', 'local:x'], ['routes', 'set', 'svc.inteligent-basic', 'local:x', '--new'], ['routes', 'set', 'svc.Intelligent-Lite', 'local:x', '--new']]) {
      const result = await runCli(args, { home });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/did you mean 'svc\.intelligent-(basic|lite)'\?/);
    }
    expect(configText(home)).toBe(before);
    expect(await skus()).toEqual(['svc.intelligent-pro', 'svc.intelligent-basic', 'svc.intelligent-lite']);
  });

  it('creates a SKU of its own only with --new; after that the name is a route like any other', async () => {
    const without = await runCli(['routes', 'set', 'svc.team-search', 'local:x'], { home });
    expect(without.code).toBe(2);
    expect(without.stderr).toContain('add --new');
    expect(readConfig(home)!.routes).toEqual({});

    const created = await runCli(['routes', 'set', 'svc.team-search', 'local:x', '--new'], { home });
    expect(created.code, created.stderr).toBe(0);
    expect(await skus()).toContain('svc.team-search');
    expect((await runCli(['routes', 'set', 'svc.team-search', 'local:y'], { home })).code).toBe(0);

    const typo = await runCli(['routes', 'set', 'svc.team-serch', 'local:x'], { home });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("did you mean 'svc.team-search'?");
  });

  it('a built-in SKU needs no --new', async () => {
    expect((await runCli(['routes', 'set', 'svc.intelligent-basic', 'local:x'], { home })).code).toBe(0);
  });

  it('commands acting on a route suggest the name meant', async () => {
    const result = await runCli(['routes', 'unset', 'svc.team-serch'], { home });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("did you mean 'svc.team-search'?");
  });

  it('what the CLI stored, config export writes and config validate accepts', async () => {
    const exported = await runCli(['config', 'export', '-o', 'team.json'], { home });
    expect(exported.code, exported.stderr).toBe(0);
    const validated = await runCli(['config', 'validate', 'team.json'], { home });
    expect(validated.code, validated.stderr).toBe(0);
  });
});
