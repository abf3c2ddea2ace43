import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIChatUpstream, type OpenAIChatUpstream } from '../fakes/openai-chat-upstream.js';
import { configText, initHome, makeHome, removeHome, runCli, runCliJson, startServe, type ServeChild } from './run-cli.js';

/**
 * While `serve --config FILE` runs, every other command reads the config in force on it (its
 * state file names FILE), says so on stderr, and refuses a write to config.json that FILE hides.
 * SVC_ROUTER_CONFIG names another file instead.
 */
describe('commands read the config in force on the running serve', () => {
  const UPSTREAM_KEY = 'sk-team-upstream-0123456789abcdef';
  let home: string;
  let file: string;
  let upstream: OpenAIChatUpstream;
  let serve: ServeChild;
  let pid: number;
  const env = { TEAM_KEY: UPSTREAM_KEY };

  beforeAll(async () => {
    upstream = await startOpenAIChatUpstream(() => ({ text: 'from the team upstream' }), { apiKey: UPSTREAM_KEY, models: ['gpt-4o-mini'] });
    home = makeHome();
    await initHome(home);
    file = path.join(home, 'team.json');
    fs.writeFileSync(
      file,
      JSON.stringify({ backends: { team: { type: 'openai-chat', baseUrl: upstream.url, apiKeyEnv: 'TEAM_KEY' } }, routes: { 'svc.intelligent-lite': ['team:gpt-4o-mini'] } }, null, 2),
    );
    serve = await startServe(home, ['--port', '0', '--quiet', '--config', 'team.json'], env);
    pid = serve.child.pid!;
  });

  afterAll(async () => {
    await serve?.kill();
    await upstream?.close();
    if (home) removeHome(home);
  });

  const saysWhich = (stderr: string) => expect(stderr).toContain(`note: config: ${file} over ${path.join(home, 'config.json')}, as the running serve (pid ${pid}) reads it`);

  it('routes list, backends list and config export show the running serve\'s routes and backends, and say which config', async () => {
    const routes = await runCli(['routes', 'list', '--json'], { home });
    expect(routes.code, routes.stderr).toBe(0);
    expect((JSON.parse(routes.stdout) as Array<{ model: string; targets: string[] }>).find((route) => route.model === 'svc.intelligent-lite')).toMatchObject({ targets: ['team:gpt-4o-mini'], from: file });
    // The SOURCE column names the file each route comes from: the declarative one, or built in.
    const table = (await runCli(['routes', 'list'], { home })).stdout.split('\n');
    expect(table.find((line) => line.startsWith('svc.intelligent-lite '))?.endsWith(` ${file}`)).toBe(true);
    expect(table.find((line) => line.startsWith('svc.intelligent-pro '))).toMatch(/ built-in$/);
    saysWhich(routes.stderr);

    const backends = await runCliJson<Array<{ name: string; api_key: string }>>(['backends', 'list', '--json'], { home });
    expect(backends).toEqual([expect.objectContaining({ name: 'team', api_key: 'env:TEAM_KEY' })]);

    const exported = await runCliJson<{ routes: Record<string, string[]> }>(['config', 'export'], { home });
    expect(exported.routes['svc.intelligent-lite']).toEqual(['team:gpt-4o-mini']);
  });

  it('chat -m svc.intelligent-lite answers from the file\'s backend, not the offline one', async () => {
    const chat = await runCli(['chat', '-m', 'svc.intelligent-lite', 'hello'], { home, env });
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stdout.trim()).toBe('from the team upstream');
    saysWhich(chat.stderr);
  });

  it('doctor checks the file\'s backend and routes', async () => {
    const doctor = await runCli(['doctor', '--json', '--timeout', '2000'], { home, env });
    const report = JSON.parse(doctor.stdout) as { checks: Array<{ id: string; status: string }> };
    expect(report.checks.find((check) => check.id === 'backend:team')?.status).toBe('pass');
    expect(report.checks.find((check) => check.id === 'route:svc.intelligent-lite')?.status).toBe('pass');
    saysWhich(doctor.stderr);
  });

  it('a write the file hides is refused, naming the file, and config.json is left as it was; one it does not hide is saved', async () => {
    const before = configText(home);
    const routes = await runCli(['routes', 'set', 'svc.intelligent-lite', 'offline'], { home });
    expect(routes.code).toBe(1);
    expect(routes.stderr).toContain(`not saved: ${file} sets routes and is in force on the running serve (pid ${pid}), so this change to config.json would have no effect; edit that file instead`);
    const remove = await runCli(['backends', 'remove', 'team'], { home });
    expect(remove.code).toBe(1);
    expect(remove.stderr).toContain(`'team' comes from ${file}, which is in force over config.json: change it in that file`);
    expect(configText(home)).toBe(before);

    const price = await runCli(['prices', 'set', 'gpt-4o-mini', '--input', '0.15', '--output', '0.6'], { home });
    expect(price.code, price.stderr).toBe(0);
    expect(JSON.parse(configText(home)).prices['gpt-4o-mini']).toMatchObject({ input: 0.15, output: 0.6 });
  });

  it('a file that is not valid now is named, while the running serve keeps its last valid version', async () => {
    const good = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, '{ "routes": ');
    try {
      const routes = await runCli(['routes', 'list'], { home });
      expect(routes.code).toBe(1);
      expect(routes.stderr).toContain(`${file} is not valid`);
      expect(routes.stderr).toContain(`the running serve (pid ${pid}) keeps the last valid version`);
      const doctor = await runCli(['doctor', '--json', '--timeout', '2000'], { home, env });
      const report = JSON.parse(doctor.stdout) as { checks: Array<{ id: string; status: string; message: string; remedy?: string }> };
      const configFile = report.checks.find((check) => check.id === 'config-file')!;
      expect(configFile).toMatchObject({ status: 'fail', remedy: `Fix it: svc-router config validate ${file} names each problem.` });
      // config.json itself is fine: the local key is still found.
      expect(report.checks.find((check) => check.id === 'key')?.status).toBe('pass');
    } finally {
      fs.writeFileSync(file, good);
    }
  });

  it('SVC_ROUTER_CONFIG names another file, and the note says the running serve reads a different one', async () => {
    const other = path.join(home, 'other.json');
    fs.writeFileSync(other, JSON.stringify({ routes: { 'svc.intelligent-lite': ['offline'] } }));
    const routes = await runCli(['routes', 'list', '--json'], { home, env: { SVC_ROUTER_CONFIG: other } });
    expect(routes.code, routes.stderr).toBe(0);
    expect((JSON.parse(routes.stdout) as Array<{ model: string; targets: string[] }>).find((route) => route.model === 'svc.intelligent-lite')?.targets).toEqual(['offline']);
    expect(routes.stderr).toContain(`note: config: ${other} over ${path.join(home, 'config.json')} (SVC_ROUTER_CONFIG); the running serve (pid ${pid}) reads ${file} over config.json`);
  });

  it('a declarative file that sets no routes leaves config.json\'s in force, and routes list says so', async () => {
    const serverOnly = path.join(home, 'server-only.json');
    fs.writeFileSync(serverOnly, JSON.stringify({ server: { bodyLimitBytes: 1048576 } }));
    const set = await runCli(['routes', 'set', 'claude-*', 'offline'], { home, env: { SVC_ROUTER_CONFIG: serverOnly } });
    expect(set.code, set.stderr).toBe(0);
    const routes = await runCliJson<Array<{ model: string; from: string }>>(['routes', 'list', '--json'], { home, env: { SVC_ROUTER_CONFIG: serverOnly } });
    expect(routes.find((route) => route.model === 'claude-*')).toMatchObject({ from: 'config.json' });
    expect(routes.find((route) => route.model === 'svc.intelligent-pro')).toMatchObject({ from: 'built-in' });
  });
});

describe('with no serve running', () => {
  it('commands read config.json and say nothing about it', async () => {
    const home = makeHome();
    try {
      await initHome(home);
      const routes = await runCli(['routes', 'list', '--json'], { home });
      expect(routes).toMatchObject({ code: 0, stderr: '' });
      expect((JSON.parse(routes.stdout) as Array<{ model: string; source: string }>).every((route) => route.source === 'default')).toBe(true);
    } finally {
      removeHome(home);
    }
  });
});
