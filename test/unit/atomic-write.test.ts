import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/files/atomic-write.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
const tempDir = (): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-atomic-'));
  dirs.push(dir);
  return dir;
};

describe('writeFileAtomic', () => {
  it('keeps the mode a file had, and gives a new one the mode asked for', () => {
    const dir = tempDir();
    const kept = path.join(dir, 'kept.json');
    fs.writeFileSync(kept, '{}');
    fs.chmodSync(kept, 0o640);
    writeFileAtomic(kept, '{"a":1}');
    expect(fs.statSync(kept).mode & 0o777).toBe(0o640);
    const secret = path.join(dir, 'secret.json');
    writeFileAtomic(secret, '{"key":"x"}', { mode: 0o600 });
    expect(fs.statSync(secret).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir).sort()).toEqual(['kept.json', 'secret.json']);
  });

  it('replaces the target of a symlink, which stays a link', () => {
    const dir = tempDir();
    const target = path.join(dir, 'real.json');
    const link = path.join(dir, 'link.json');
    fs.writeFileSync(target, 'old');
    fs.symlinkSync(target, link);
    writeFileAtomic(link, 'new');
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(target, 'utf8')).toBe('new');
  });

  it('leaves the old file and no temporary file when it cannot replace it', () => {
    const dir = tempDir();
    const target = path.join(dir, 'taken');
    fs.mkdirSync(target);
    fs.writeFileSync(path.join(target, 'inside'), 'x');
    expect(() => writeFileAtomic(target, 'text')).toThrow();
    expect(fs.readdirSync(dir)).toEqual(['taken']);
  });

  it('never lets a reader in another process see part of a file', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'config.json');
    // Two versions far larger than one write of the kernel's page cache, each a whole JSON document.
    const version = (fill: string): string => JSON.stringify({ fill: fill.repeat(256 * 1024) });
    const versions = [version('a'), version('b')];
    writeFileAtomic(file, versions[0]!);
    const writes = 200;
    const script = `
      import { writeFileAtomic } from ${JSON.stringify(new URL('../../src/files/atomic-write.ts', import.meta.url).href)};
      const version = ${version.toString()};
      const versions = [version('a'), version('b')];
      for (let i = 0; i < ${writes}; i++) writeFileAtomic(${JSON.stringify(file)}, versions[i % 2]);
    `;
    const writer = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: 'inherit' });
    const done = new Promise<number | null>((resolve) => writer.on('exit', resolve));
    let finished = false;
    void done.then(() => (finished = true));
    let reads = 0;
    try {
      while (!finished) {
        const text = fs.readFileSync(file, 'utf8');
        expect(versions.includes(text), `a read of ${text.length} bytes`).toBe(true);
        reads++;
        // Let the exit event through between reads.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      if (!finished) writer.kill();
    }
    expect(await done).toBe(0);
    expect(reads).toBeGreaterThan(0);
  });
});
