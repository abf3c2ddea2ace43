import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeclarativeFile, DeclarativeFileError } from '../../../src/config/declarative/file-source.js';
import { ConfigStore } from '../../../src/config/store.js';
import { generateKey, hashKey } from '../../../src/core/router-keys.js';

/** The file in force under a ConfigStore, in one process: what each read sees as the file changes. */
describe('a declarative file over config.json', () => {
  let home: string;
  let file: string;
  let reports: string[];
  let store: ConfigStore;

  const write = (value: unknown) => {
    fs.writeFileSync(`${file}.tmp`, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
    fs.renameSync(`${file}.tmp`, file);
  };
  const routes = (targets: string[]) => ({ routes: { 'svc.intelligent-pro': targets } });

  beforeEach(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-router-declarative-'));
    file = path.join(home, 'team.json');
    reports = [];
    new ConfigStore(home).update((settings) => {
      settings.backends.stored = { type: 'openai-chat', baseUrl: 'http://127.0.0.1:1/v1' };
      settings.routes['svc.intelligent-lite'] = ['stored'];
    });
    store = new ConfigStore(home, { overlay: new DeclarativeFile(file, (message) => reports.push(message)) });
  });
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  it('refuses a first read of a missing or invalid file, naming it', () => {
    expect(() => store.read()).toThrow(DeclarativeFileError);
    write('{ "routes": { "svc.intelligent-pro": ["nowhere"] } }');
    expect(() => store.read()).toThrow(/team\.json is not valid:\n {2}routes\.svc\.intelligent-pro\[0\] at line 1, column 39: unknown backend "nowhere" \(backends: stored, offline\)/);
  });

  it("replaces the stored tables the file has, and keeps those it has not", () => {
    write(routes(['stored:gpt-4o']));
    const settings = store.read();
    expect(settings.routes).toEqual({ 'svc.intelligent-pro': ['stored:gpt-4o'] });
    expect(Object.keys(settings.backends)).toEqual(['stored']);
    expect(Object.getPrototypeOf(settings.routes)).toBeNull();
  });

  it('overrides the safeguards group field by field: the classifier route the file names, the stored timeout kept', () => {
    new ConfigStore(home).update((settings) => void (settings.safeguards.timeoutMs = 7_000));
    write({ safeguards: { classifier: 'svc.intelligent-lite' } });
    expect(store.read().safeguards).toEqual({ classifier: 'svc.intelligent-lite', timeoutMs: 7_000 });
    write({ safeguards: { classifier: 'svc.*' } });
    expect(store.read().safeguards.classifier).toBe('svc.intelligent-lite');
    expect(reports.at(-1)).toMatch(/safeguards\.classifier/);
  });

  it('follows each change on the next read; a broken one is reported once and changes nothing; a fix is taken', () => {
    write(routes(['offline']));
    expect(store.read().routes['svc.intelligent-pro']).toEqual(['offline']);
    write(routes(['stored']));
    expect(store.read().routes['svc.intelligent-pro']).toEqual(['stored']);
    expect(reports).toEqual([expect.stringMatching(/^reloaded .*team\.json \(backends from config\.json, 1 route\(s\)\)$/)]);

    write('{\n  "routes": { "svc.intelligent-pro": ["stored",\n}');
    for (let i = 0; i < 3; i++) expect(store.read().routes['svc.intelligent-pro']).toEqual(['stored']);
    expect(reports.slice(1)).toEqual([expect.stringMatching(/is not valid:\n.*line 3, column 1: syntax error.*\n {2}the previous version stays in force/s)]);

    fs.rmSync(file);
    expect(store.read().routes['svc.intelligent-pro']).toEqual(['stored']);
    expect(reports.at(-1)).toMatch(/cannot read .*team\.json: ENOENT/);

    write(routes(['offline', 'stored']));
    expect(store.read().routes['svc.intelligent-pro']).toEqual(['offline', 'stored']);
    expect(reports.at(-1)).toMatch(/^reloaded/);
  });

  it('says when a change to config.json is hidden by the file, and only then', () => {
    write({ ...routes(['offline']), server: { port: 9000 } });
    store.read();
    store.update((settings) => void (settings.routes['svc.intelligent-basic'] = ['offline']));
    expect(reports.pop()).toMatch(/^warning: saved in config\.json, but .*team\.json sets routes while it is in force/);
    store.update((settings) => void (settings.server.host = '0.0.0.0'));
    expect(reports).toEqual([]);
    store.update((settings) => void (settings.server.port = 9001));
    expect(reports.pop()).toMatch(/sets server\.port while/);
    store.update((settings) => void (settings.backends.other = { type: 'anthropic', baseUrl: 'https://api.anthropic.com' }));
    expect(reports).toEqual([]);
  });

  it("keeps the local key working beside the file's keys, without a warning for it", () => {
    const localKey = generateKey('me');
    const record = (developer: string, key: string) => ({ developer, organisation: 'o', tier: 't', capTokens: 1, hash: hashKey(key), hint: key.slice(0, 8), createdAt: '2026-01-01T00:00:00.000Z' });
    write({ keys: { team: record('team', generateKey('team')) } });
    store.read();
    store.update((settings) => {
      settings.localKey = localKey;
      settings.keys.me = record('me', localKey);
    });
    expect(reports).toEqual([]);
    expect(Object.keys(store.read().keys).sort()).toEqual(['me', 'team']);
    store.update((settings) => void (settings.keys.bob = record('bob', generateKey('bob'))));
    expect(reports.pop()).toMatch(/sets keys while it is in force/);
    expect(Object.hasOwn(store.read().keys, 'bob')).toBe(false);
  });
});
