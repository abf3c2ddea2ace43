import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';

const homes: string[] = [];
const stores: ConfigStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.unwatch();
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

function watchedStore(): ConfigStore {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-config-watch-'));
  homes.push(home);
  const store = new ConfigStore(home);
  store.update((settings) => {
    settings.routes['svc.first'] = ['offline'];
  });
  store.watch();
  stores.push(store);
  return store;
}

describe('a watched config store', () => {
  it('sees a write through another store of this process on the very next read', () => {
    const store = watchedStore();
    expect(store.read().routes['svc.first']).toEqual(['offline']);
    new ConfigStore(store.dir).update((settings) => {
      settings.routes['svc.second'] = ['offline'];
    });
    expect(store.read().routes['svc.second']).toEqual(['offline']);
  });

  it('sees a file another process replaced, as the CLI writes it (temporary file, then rename)', async () => {
    const store = watchedStore();
    const before = store.read();
    const file = store.path;
    const next = { ...JSON.parse(fs.readFileSync(file, 'utf8')), routes: { 'svc.from-elsewhere': ['offline'] } };
    const script = `const fs=require('fs');fs.writeFileSync(process.argv[1]+'.tmp',process.argv[2]);fs.renameSync(process.argv[1]+'.tmp',process.argv[1]);`;
    expect(spawnSync(process.execPath, ['-e', script, file, JSON.stringify(next)]).status).toBe(0);
    // The change arrives as a file-system event; until then the snapshot is served as is.
    await vi.waitFor(() => expect(store.read().routes['svc.from-elsewhere']).toEqual(['offline']), { timeout: 5_000, interval: 5 });
    expect(store.read()).not.toBe(before);
  });

  it('serves the same snapshot while nothing changed', () => {
    const store = watchedStore();
    const first = store.read();
    expect(store.read()).toBe(first);
    expect(store.read()).toBe(first);
  });
});
