import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { callRouter, configFile, configText, initHome, makeHome, removeHome, runCli, startServe, type ServeChild } from './run-cli.js';

const homes: string[] = [];
const servers: ServeChild[] = [];
const freshHome = (): string => {
  const home = makeHome();
  homes.push(home);
  return home;
};

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.kill()));
  homes.splice(0).forEach(removeHome);
});

/** `{` → `{,,`: the mistake of the report, at line 1, column 2. */
const breakIt = (home: string): string => {
  const good = configText(home);
  fs.writeFileSync(configFile(home), good.replace('{', '{,,'));
  return good;
};

const occurrences = (text: string, part: string): number => text.split(part).length - 1;

describe('a broken config.json under a running serve', () => {
  it('keeps serving the last good settings, says where once, and takes the fix', async () => {
    const home = freshHome();
    const key = await initHome(home);
    const server = await startServe(home);
    servers.push(server);
    const good = breakIt(home);
    const where = `${configFile(home)} line 1, column 2: syntax error`;

    for (let i = 0; i < 3; i++) {
      const whoami = await callRouter(server.origin, key, 'GET', '/whoami');
      expect(whoami.status).toBe(200);
      expect(whoami.json.developer).toBe('alice');
      const chat = await callRouter(server.origin, key, 'POST', '/v1/chat/completions', { model: 'svc.intelligent-pro', messages: [{ role: 'user', content: 'still here' }] });
      expect(chat.status).toBe(200);
    }
    // The request log follows the report on the same stream: once the last request is logged, every report for it is there.
    await vi.waitFor(() => expect(occurrences(server.stderr(), 'POST /v1/chat/completions')).toBe(3), { timeout: 5_000, interval: 10 });
    expect(occurrences(server.stderr(), where), server.stderr()).toBe(1);
    expect(server.stderr()).toContain('the previous version stays in force until the file is fixed');

    fs.writeFileSync(configFile(home), good);
    expect((await callRouter(server.origin, key, 'GET', '/whoami')).status).toBe(200);
    await vi.waitFor(() => expect(server.stderr()).toContain(`${configFile(home)} is valid again`), { timeout: 5_000, interval: 10 });
  });
});

describe('CLI commands on a broken config.json', () => {
  it('name the file, line and column, exit 1, and change nothing', async () => {
    const home = freshHome();
    await initHome(home);
    breakIt(home);
    const broken = configText(home);
    const message = `svc-router: ${configFile(home)} line 1, column 2: syntax error: `;

    for (const args of [['config', 'get', 'server.port'], ['routes', 'list'], ['keys', 'list'], ['whoami'], ['config', 'set', 'server.port', '9000'], ['keys', 'issue', '--developer', 'bob'], ['prices', 'set', 'gpt-x', '--input', '1', '--output', '2']]) {
      const result = await runCli(args, { home });
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toMatch(new RegExp(`^${escape(message)}[a-z ]+\\n$`));
      expect(result.stdout, args.join(' ')).toBe('');
    }
    // A write never replaces what it could not read: the user's file is as they left it.
    expect(configText(home)).toBe(broken);

    const json = await runCli(['routes', 'list', '--json'], { home });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'broken_file', exit_code: 1, file: configFile(home), line: 1, column: 2 } });
  });

  it('names a value of the wrong type by its own line and column, and never quotes a key', async () => {
    const home = freshHome();
    const key = await initHome(home);
    const stored = JSON.parse(configText(home));
    fs.writeFileSync(configFile(home), JSON.stringify({ ...stored, routes: { 'svc.intelligent-pro': 'offline' } }, null, 2));
    const line = configText(home).split('\n').findIndex((text) => text.includes('"svc.intelligent-pro": "offline"')) + 1;
    const result = await runCli(['routes', 'list'], { home });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`svc-router: ${configFile(home)} line ${line}, column 28: routes["svc.intelligent-pro"]: expected a list, got text\n`);
    expect(result.stderr).not.toContain(key);
  });

  it('still find a running serve through serve.json: status does not read the settings', async () => {
    const home = freshHome();
    await initHome(home);
    const server = await startServe(home);
    servers.push(server);
    breakIt(home);
    const status = await runCli(['status'], { home });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(server.origin);
  });
});

describe('writes to config.json', () => {
  it('replace the file whole (a rename), as 0600, and leave no temporary file', async () => {
    const home = freshHome();
    await initHome(home);
    fs.chmodSync(configFile(home), 0o644);
    const before = fs.statSync(configFile(home)).ino;
    const held = fs.openSync(configFile(home), 'r');
    const old = configText(home);
    expect((await runCli(['config', 'set', 'server.port', '9123'], { home })).code).toBe(0);
    // A reader that had the file open still reads the old version whole.
    expect(fs.readFileSync(held, 'utf8')).toBe(old);
    fs.closeSync(held);
    expect(fs.statSync(configFile(home)).ino).not.toBe(before);
    expect(fs.statSync(configFile(home)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(configText(home)).server.port).toBe(9123);
    expect(fs.readdirSync(home).filter((name) => name.includes('tmp'))).toEqual([]);
  });
});

describe('a broken serve.json', () => {
  it('is named with its line and column, and taken as no running server', async () => {
    const home = freshHome();
    await initHome(home);
    fs.writeFileSync(path.join(home, 'serve.json'), '{\n  "pid": 12,\n  "url": \n}\n');
    const status = await runCli(['status'], { home });
    expect(status.code).toBe(3);
    expect(status.stderr).toContain(`${path.join(home, 'serve.json')} line 4, column 1: syntax error: value expected; taken as no running server`);
  });
});

describe("a client's broken settings file", () => {
  it('is named by line and column, never quoted (it may hold a key), and left as it is', async () => {
    const home = freshHome();
    await initHome(home);
    fs.mkdirSync(path.join(home, '.claude'));
    const file = path.join(home, '.claude', 'settings.json');
    const secret = 'sk-ant-api03-0123456789abcdefghijklmnopqrstuvwxyz';
    const text = `{\n  "env": { "ANTHROPIC_API_KEY": "${secret}" },,\n  "model": "opus"\n}\n`;
    fs.writeFileSync(file, text);
    const result = await runCli(['connect', 'claude', '--write'], { home });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot merge into ${file}: it is not valid JSON (line 2, column`);
    expect(result.stderr).not.toContain(secret);
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
  });

  it("undo names a backup it cannot read, rather than saying there is none", async () => {
    const home = freshHome();
    await initHome(home);
    fs.mkdirSync(path.join(home, '.claude'));
    const backup = path.join(home, '.claude', 'settings.json.svc-router-backup.json');
    fs.writeFileSync(backup, '{ "existed": true, "content": ');
    const result = await runCli(['connect', 'claude', '--undo'], { home });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^svc-router: ${escape(backup)} line 1, column \\d+: syntax error: `));
  });
});

describe('a torn or garbage line in the request log', () => {
  it('is skipped by logs, named with its line and column, and the rest is listed', async () => {
    const home = freshHome();
    await initHome(home);
    const file = path.join(home, 'requests.jsonl');
    const record = (status: number) => JSON.stringify({ time: new Date().toISOString(), method: 'POST', path: '/v1/messages', status, latency_ms: 3 });
    // A torn line, a time that is no date (printing it would throw), then a line still being written.
    fs.writeFileSync(file, [record(200), record(201).slice(0, 25), JSON.stringify({ ...JSON.parse(record(202)), time: 'yesterday' }), record(203), record(204).slice(0, 10)].join('\n'));
    const result = await runCli(['logs'], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trimEnd().split('\n').map((line) => / (\d{3}) POST/.exec(line)?.[1])).toEqual(['200', '203']);
    expect(result.stderr).toBe(
      `warning: ${file} line 2, column 9: syntax error: unexpected end of string; the record is skipped\n` +
        `warning: ${file} line 3, column 9: time: expected an ISO 8601 time; the record is skipped\n`,
    );
  });
});

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
