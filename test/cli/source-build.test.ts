import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './run-cli.js';

/**
 * bin/svc-router.js in a source checkout runs the code as it is now: it builds dist/ on the first
 * run and again after src/ changed (an edit in place, a file replaced as git pull does, even with
 * an older time, a file added or removed), and not otherwise. An installed package (no src/) runs
 * its dist/ as it is. Each case runs in a small checkout of its own (the real bin, the real
 * tsconfig, node_modules linked), so the repository's own dist/ is never touched.
 */

const TIMEOUT = 180_000;
let scratch: string;
const checkouts: string[] = [];

beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-router-source-build-'));
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** A checkout whose program prints what main.ts says. */
function checkout(main: string): string {
  const dir = fs.mkdtempSync(path.join(scratch, 'checkout-'));
  checkouts.push(dir);
  fs.mkdirSync(path.join(dir, 'bin'));
  for (const file of fs.readdirSync(path.join(ROOT, 'bin'))) if (file.endsWith('.js') && !file.startsWith('.')) fs.copyFileSync(path.join(ROOT, 'bin', file), path.join(dir, 'bin', file));
  fs.copyFileSync(path.join(ROOT, 'tsconfig.json'), path.join(dir, 'tsconfig.json'));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'scratch', version: '9.8.7', type: 'module' }));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  write(dir, 'src/cli/main.ts', main);
  return dir;
}

function write(dir: string, file: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
}

const says = (text: string, imports = ''): string => `${imports}console.log(${JSON.stringify(text)}${imports ? ' + extra' : ''});\nexport {};\n`;

function run(dir: string, args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(dir, 'bin', 'svc-router.js'), ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const REBUILT = /building dist\//;

describe('a source checkout', () => {
  it(
    'builds on the first run, runs the build as it is while src/ is unchanged, and rebuilds after an edit in place',
    async () => {
      const dir = checkout(says('one'));
      const first = await run(dir);
      expect(first).toMatchObject({ code: 0, stdout: 'one\n' });
      expect(first.stderr).toMatch(/first run from a source checkout/);

      const again = await run(dir);
      expect(again).toEqual({ code: 0, stdout: 'one\n', stderr: '' });

      write(dir, 'src/cli/main.ts', says('two'));
      // --version alone reads package.json, which no build changes: it pays for neither the check
      // nor the program.
      expect(await run(dir, ['--version'])).toEqual({ code: 0, stdout: '9.8.7\n', stderr: '' });
      expect(await run(dir, ['-V'])).toEqual({ code: 0, stdout: '9.8.7\n', stderr: '' });
      const edited = await run(dir);
      expect(edited).toMatchObject({ code: 0, stdout: 'two\n' });
      expect(edited.stderr).toMatch(/src\/ has changed since the last build/);
    },
    TIMEOUT,
  );

  it(
    'rebuilds after a pull: a file replaced (even carrying an older time), one added, one removed',
    async () => {
      const dir = checkout(says('one'));
      expect((await run(dir)).stdout).toBe('one\n');

      // Replaced by rename, as git writes files, with a time from before the build.
      const replacement = path.join(dir, 'replacement.ts');
      fs.writeFileSync(replacement, says('replaced'));
      const past = new Date(Date.now() - 86_400_000);
      fs.utimesSync(replacement, past, past);
      fs.renameSync(replacement, path.join(dir, 'src/cli/main.ts'));
      expect((await run(dir)).stdout).toBe('replaced\n');

      // A new module in a new folder, imported by main.
      write(dir, 'src/extra/extra.ts', "export const extra = ' and more';\n");
      write(dir, 'src/cli/main.ts', says('with', "import { extra } from '../extra/extra.js';\n"));
      expect((await run(dir)).stdout).toBe('with and more\n');

      // Removed: the next build has no trace of it.
      fs.rmSync(path.join(dir, 'src/extra'), { recursive: true });
      write(dir, 'src/cli/main.ts', says('alone'));
      const removed = await run(dir);
      expect(removed).toMatchObject({ code: 0, stdout: 'alone\n' });
      expect(fs.existsSync(path.join(dir, 'dist/extra'))).toBe(false);
    },
    TIMEOUT,
  );

  it(
    'several starts after an edit build once between them, and each runs the new code',
    async () => {
      const dir = checkout(says('one'));
      expect((await run(dir)).stdout).toBe('one\n');
      write(dir, 'src/cli/main.ts', says('two'));
      // What a build killed midway leaves behind: its half-built folder, and its lock naming a
      // process that is gone. The next start takes the lock over and clears the folder.
      const gone = spawn(process.execPath, ['-e', '']);
      await new Promise((resolve) => gone.on('exit', resolve));
      fs.mkdirSync(path.join(dir, 'dist.lock'));
      fs.writeFileSync(path.join(dir, 'dist.lock', 'pid'), String(gone.pid));
      fs.mkdirSync(path.join(dir, `dist.${gone.pid}.building`, 'cli'), { recursive: true });
      const results = await Promise.all(Array.from({ length: 4 }, () => run(dir)));
      for (const result of results) expect(result).toMatchObject({ code: 0, stdout: 'two\n' });
      expect(results.filter((result) => REBUILT.test(result.stderr))).toHaveLength(1);
      expect(fs.readdirSync(dir).filter((name) => name.startsWith('dist.'))).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'a change that does not compile stops the run with the compiler errors, and runs once fixed',
    async () => {
      const dir = checkout(says('one'));
      expect((await run(dir)).stdout).toBe('one\n');
      write(dir, 'src/cli/main.ts', 'const broken: number = "text";\nexport {};\n');
      const failed = await run(dir);
      expect(failed.code).toBe(1);
      expect(failed.stdout).toBe('');
      expect(failed.stderr).toMatch(/error TS2322/);
      expect(failed.stderr).toMatch(/the build failed/);
      write(dir, 'src/cli/main.ts', says('fixed'));
      expect(await run(dir)).toMatchObject({ code: 0, stdout: 'fixed\n' });
    },
    TIMEOUT,
  );
});

describe('an installed package (no src/)', () => {
  it(
    'runs its dist/ as it is, stamp or none, building nothing',
    async () => {
      const dir = checkout(says('installed'));
      expect((await run(dir)).stdout).toBe('installed\n');
      // As npm installs it: bin and dist, no sources, no tsconfig, no stamp.
      fs.rmSync(path.join(dir, 'src'), { recursive: true });
      fs.rmSync(path.join(dir, 'tsconfig.json'));
      fs.rmSync(path.join(dir, 'dist', '.source-stamp.json'));
      expect(await run(dir)).toEqual({ code: 0, stdout: 'installed\n', stderr: '' });
    },
    TIMEOUT,
  );
});
