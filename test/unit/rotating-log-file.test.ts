import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RotatingLogFile } from '../../src/cli/log-file.js';

/** The files oldest first: FILE.keep … FILE.1, FILE. */
function filesOldestFirst(log: RotatingLogFile): string[] {
  return [...log.rotatedFiles().reverse(), log.file];
}

describe('RotatingLogFile', () => {
  it('for any writes: no file passes the size unless one write alone does, at most `keep` rotated files, and what is kept is the latest writes, whole and in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 0, maxLength: 80 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 0, max: 4 }),
        (writes, maxBytes, keep) => {
          const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-router-log-'));
          try {
            const log = new RotatingLogFile(path.join(dir, 'serve.log'), maxBytes, keep);
            for (const text of writes) log.write(text);
            log.close();
            const files = filesOldestFirst(log);
            expect(fs.readdirSync(dir).length).toBeLessThanOrEqual(keep + 1);
            expect(fs.existsSync(`${log.file}.${keep + 1}`)).toBe(false);
            const kept = files.map((file) => fs.readFileSync(file));
            for (const bytes of kept) {
              if (bytes.length > maxBytes) expect(writes.some((text) => Buffer.byteLength(text) === bytes.length)).toBe(true);
            }
            // What is kept is exactly the concatenation of the last k non-empty writes, for some k.
            const all = writes.filter((text) => text.length > 0).map((text) => Buffer.from(text));
            const keptBytes = Buffer.concat(kept);
            let suffix = Buffer.alloc(0);
            let found = keptBytes.length === 0;
            for (let i = all.length - 1; i >= 0 && !found; i--) {
              suffix = Buffer.concat([all[i]!, suffix]);
              found = suffix.equals(keptBytes);
            }
            expect(found).toBe(true);
          } finally {
            fs.rmSync(dir, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('with room for every rotation nothing is lost, and a reopened file appends where it left off', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-router-log-'));
    try {
      const file = path.join(dir, 'serve.log');
      const lines = Array.from({ length: 100 }, (_, i) => `line ${i} ${'x'.repeat(i % 17)}\n`);
      let log = new RotatingLogFile(file, 256, 1000);
      for (const line of lines.slice(0, 50)) log.write(line);
      log.close();
      log = new RotatingLogFile(file, 256, 1000);
      for (const line of lines.slice(50)) log.write(line);
      log.close();
      expect(filesOldestFirst(log).map((name) => fs.readFileSync(name, 'utf8')).join('')).toBe(lines.join(''));
      for (const name of filesOldestFirst(log)) {
        expect(fs.statSync(name).size).toBeLessThanOrEqual(256);
        expect(fs.statSync(name).mode & 0o777).toBe(0o600);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
