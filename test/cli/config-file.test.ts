import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, configText, initHome, makeHome, removeHome, runCli, runCliJson } from './run-cli.js';
import { spawn } from 'node:child_process';

const homes: string[] = [];
const freshHome = (): string => {
  const home = makeHome();
  homes.push(home);
  return home;
};
afterAll(() => homes.forEach(removeHome));

const STORED_KEY = 'sk-proj-StoredLiteralKey0123456789abcdefABCDEF';

/** A team file as a person writes it, with a comment and a typo in a fallback target on line 12. */
const TYPO_FILE = `{
  // the team's routing; keys come from the environment
  "backends": {
    "openai": {
      "type": "openai-chat",
      "baseUrl": "https://api.openai.com/v1",
      "apiKeyEnv": "OPENAI_API_KEY"
    }
  },
  "routes": {
    "svc.intelligent-pro": [
      "openai:gpt-4o",
      "opneai:gpt-4o-mini"
    ]
  }
}
`;

describe('config validate', () => {
  let home: string;
  beforeAll(() => {
    home = freshHome();
    fs.writeFileSync(path.join(home, 'typo.json'), TYPO_FILE);
    fs.writeFileSync(path.join(home, 'good.json'), TYPO_FILE.replace('opneai', 'openai'));
  });

  it('names the path, line and column of the bad value, with exit code 2', async () => {
    const result = await runCli(['config', 'validate', 'typo.json'], { home });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('routes.svc.intelligent-pro[1] at line 13, column 7: unknown backend "opneai" (did you mean "openai"?)');
  });

  it('prints the problems as JSON with --json', async () => {
    const result = await runCli(['config', 'validate', 'typo.json', '--json'], { home });
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({
      valid: false,
      problems: [{ path: 'routes.svc.intelligent-pro[1]', line: 13, column: 7, message: expect.stringMatching(/^unknown backend "opneai"/) }],
    });
  });

  it('says a good file is valid, and warns of a variable it names that is not set here', async () => {
    const result = await runCli(['config', 'validate', 'good.json'], { home, env: { OPENAI_API_KEY: undefined } });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/good\.json is valid: 1 backend\(s\), 1 route\(s\)/);
    expect(result.stderr).toMatch(/backends\.openai\.apiKeyEnv at line 7, column 20: \$OPENAI_API_KEY is not set/);
  });

  it('checks $SVC_ROUTER_CONFIG when no file is named, and asks for one when neither is given', async () => {
    expect((await runCli(['config', 'validate'], { home, env: { SVC_ROUTER_CONFIG: path.join(home, 'good.json') } })).code).toBe(0);
    const none = await runCli(['config', 'validate'], { home });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/name the file to check \(or set SVC_ROUTER_CONFIG\)/);
  });
});

describe('config export and import', () => {
  let source: string;
  let exported: string;
  let notes: string;

  beforeAll(async () => {
    source = freshHome();
    await initHome(source);
    for (const args of [
      ['backends', 'add', 'openai', '--type', 'openai-chat', '--base-url', 'https://api.openai.com/v1', '--api-key', STORED_KEY],
      ['backends', 'add', 'claude', '--type', 'anthropic', '--base-url', 'https://api.anthropic.com', '--api-key-env', 'ANTHROPIC_API_KEY', '--idle-timeout', '90000'],
      ['routes', 'set', 'svc.intelligent-pro', 'openai:gpt-4o', 'claude:claude-sonnet-4-5'],
      ['routes', 'set', 'claude-*', 'claude'],
      ['config', 'set', 'defaults.capTokens', '40000000'],
    ]) {
      const result = await runCli(args, { home: source });
      expect(result.code, result.stderr).toBe(0);
    }
    const result = await runCli(['config', 'export'], { home: source });
    expect(result.code, result.stderr).toBe(0);
    exported = result.stdout;
    notes = result.stderr;
  });

  it('prints a file on stdout with no secret in it, and says on stderr what it left out', () => {
    const file = JSON.parse(exported);
    expect(file.$schema).toMatch(/svc-router\.schema\.json$/);
    expect(file.backends.openai).toEqual({ type: 'openai-chat', baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY' });
    expect(file.backends.claude.timeouts).toEqual({ idleMs: 90000 });
    expect(file.routes['svc.intelligent-pro']).toEqual(['openai:gpt-4o', 'claude:claude-sonnet-4-5']);
    expect(file.keys).toBeUndefined();
    expect(exported).not.toContain(STORED_KEY);
    expect(exported).not.toMatch(/svc_alice_/);
    expect(notes).toMatch(/backend "openai" has a stored key, which is not exported: the file reads it from \$OPENAI_API_KEY/);
    expect(notes).toMatch(/1 issued key record\(s\) not exported \(add --with-keys/);
  });

  it('names a $schema that exists, relative to where the file is written', async () => {
    const resolves = (dir: string, ref: string) => fs.existsSync(path.resolve(dir, ref));
    // stdout: relative to the working directory (the home, here).
    const printed = JSON.parse(exported).$schema as string;
    expect(printed).toMatch(/^\.\.?\//);
    expect(resolves(source, printed), printed).toBe(true);
    // --output elsewhere: relative to that file's folder.
    const nested = path.join(source, 'team', 'configs');
    fs.mkdirSync(nested, { recursive: true });
    expect((await runCli(['config', 'export', '-o', path.join(nested, 'svc-router.json')], { home: source })).code).toBe(0);
    const written = JSON.parse(fs.readFileSync(path.join(nested, 'svc-router.json'), 'utf8')).$schema as string;
    expect(resolves(nested, written), written).toBe(true);
    // A project that installs svc-router: its copy, by the path that travels with the project.
    const project = path.join(source, 'project');
    fs.mkdirSync(path.join(project, 'node_modules', 'svc-router', 'schema'), { recursive: true });
    fs.writeFileSync(path.join(project, 'node_modules', 'svc-router', 'schema', 'svc-router.schema.json'), '{}');
    expect((await runCli(['config', 'export', '-o', path.join(project, 'svc-router.json')], { home: source })).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(project, 'svc-router.json'), 'utf8')).$schema).toBe('./node_modules/svc-router/schema/svc-router.schema.json');
  });

  it('writes to --output, refusing to replace a file without --force', async () => {
    const out = path.join(source, 'team.json');
    expect((await runCli(['config', 'export', '-o', out], { home: source })).code).toBe(0);
    expect(fs.readFileSync(out, 'utf8')).toBe(exported);
    const again = await runCli(['config', 'export', '-o', out], { home: source });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/exists; add --force/);
  });

  it('imports into another home, listing each change, so its routes and backends are the exported ones', async () => {
    const target = freshHome();
    await initHome(target, ['--developer', 'bob']);
    const file = path.join(target, 'team.json');
    fs.writeFileSync(file, exported);

    const before = configText(target);
    const dry = await runCli(['config', 'import', file, '--dry-run'], { home: target });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/Would import/);
    expect(configText(target)).toBe(before);

    const result = await runCli(['config', 'import', file], { home: target });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('backends: + openai, + claude');
    expect(result.stdout).toContain('routes: + svc.intelligent-pro, + claude-*');
    expect(result.stdout).toContain('defaults.capTokens: 200000000 → 40000000');
    const routes = await runCliJson<Array<{ model: string; targets: string[]; source: string }>>(['routes', 'list', '--json'], { home: target });
    expect(routes.filter((route) => route.source === 'config').map(({ model, targets, source }) => ({ model, targets, source }))).toEqual([
      { model: 'svc.intelligent-pro', targets: ['openai:gpt-4o', 'claude:claude-sonnet-4-5'], source: 'config' },
      { model: 'claude-*', targets: ['claude'], source: 'config' },
    ]);
    // bob's own key is untouched: init's record is not in the file, and keys were not imported.
    expect((await runCli(['whoami'], { home: target })).code).toBe(0);

    const again = await runCli(['config', 'import', file], { home: target });
    expect(again.stdout).toMatch(/nothing changed/);
  });

  it('writes nothing when the file is not valid', async () => {
    const target = freshHome();
    await initHome(target, ['--developer', 'carol']);
    fs.writeFileSync(path.join(target, 'typo.json'), TYPO_FILE);
    const before = configText(target);
    const result = await runCli(['config', 'import', 'typo.json'], { home: target });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('at line 13, column 7: unknown backend "opneai"');
    expect(configText(target)).toBe(before);
  });
});

describe('a declarative file in force', () => {
  it('is what every command reads when SVC_ROUTER_CONFIG names it', async () => {
    const home = freshHome();
    const file = path.join(home, 'team.json');
    fs.writeFileSync(file, TYPO_FILE.replace('opneai', 'openai'));
    const routes = await runCliJson<Array<{ model: string; targets: string[] }>>(['routes', 'list', '--json'], { home, env: { SVC_ROUTER_CONFIG: file } });
    expect(routes.find((route) => route.model === 'svc.intelligent-pro')?.targets).toEqual(['openai:gpt-4o', 'openai:gpt-4o-mini']);
  });

  it('keeps serve from starting when it is not valid, naming the line', async () => {
    const home = freshHome();
    fs.writeFileSync(path.join(home, 'typo.json'), TYPO_FILE);
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--config', 'typo.json'], { cwd: home, env: cliEnv(home), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(guard);
    expect(code).toBe(2);
    expect(stdout).not.toMatch(/listening/);
    expect(stderr).toContain('routes.svc.intelligent-pro[1] at line 13, column 7: unknown backend "opneai"');
  });
});
