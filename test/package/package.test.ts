import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { MissingDependencyError, requireOptional } from '../../src/core/optional-dependency.js';

/** What `npm pack` ships, and what a source checkout needs to run after `npm ci`. */

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  license: string;
};
const scratch: string[] = [];
afterAll(() => scratch.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

describe('the published tarball', () => {
  it('ships dist without source maps, bin, the LICENSE, and no src/', async () => {
    // --ignore-scripts: dist/ is already built (the CLI tests need it); prepack would only rebuild it.
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
    const files = (JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((file) => file.path);
    expect(files).toContain('LICENSE');
    expect(files).toContain('bin/svc-router.js');
    expect(files).toContain('dist/cli/main.js');
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    expect(files.filter((file) => file.startsWith('src/') || file.startsWith('test/'))).toEqual([]);
    // Nothing shipped points at a map that is not there.
    for (const file of files.filter((name) => name.endsWith('.js'))) expect(fs.readFileSync(path.join(root, file), 'utf8'), file).not.toContain('sourceMappingURL');
  });

  it('is MIT with a LICENSE naming svc-router contributors; builds on prepack, not prepare', () => {
    expect(manifest.license).toBe('MIT');
    expect(fs.readFileSync(path.join(root, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) svc-router contributors\n/);
    expect(manifest.scripts.prepack).toBe('npm run build');
    expect(manifest.scripts.prepare).toBeUndefined();
  });

  it('keeps ioredis and prom-client optional, and a missing optional package is named with its install command', () => {
    for (const name of ['ioredis', 'prom-client']) {
      expect(manifest.optionalDependencies?.[name], name).toBeDefined();
      expect(Object.hasOwn(manifest.dependencies, name), name).toBe(false);
    }
    expect(() => requireOptional('svc-router-not-installed-anywhere', '--metrics')).toThrow(MissingDependencyError);
    expect(() => requireOptional('svc-router-not-installed-anywhere', '--metrics')).toThrow(
      /^--metrics needs the optional package svc-router-not-installed-anywhere, which is not installed: run `npm install svc-router-not-installed-anywhere`/,
    );
  });
});

describe('a source checkout after npm ci (no dist/ yet)', () => {
  it('builds dist/ on the first run of bin/svc-router.js, then runs the command', async () => {
    const checkout = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-router-checkout-'));
    scratch.push(checkout);
    for (const entry of ['bin', 'src', 'package.json', 'tsconfig.json']) fs.cpSync(path.join(root, entry), path.join(checkout, entry), { recursive: true });
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(checkout, 'node_modules'));
    // --version reads package.json alone: it neither needs nor builds dist/.
    const version = await run(process.execPath, [path.join(checkout, 'bin', 'svc-router.js'), '--version'], { cwd: checkout });
    expect(version.stdout.trim()).toBe((JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version);
    expect(fs.existsSync(path.join(checkout, 'dist'))).toBe(false);
    const { stdout, stderr } = await run(process.execPath, [path.join(checkout, 'bin', 'svc-router.js'), '--help'], { cwd: checkout, timeout: 240_000 });
    expect(stderr).toContain('first run from a source checkout: building dist/');
    expect(stdout).toContain('Usage: svc-router');
    expect(fs.existsSync(path.join(checkout, 'dist', 'cli', 'main.js'))).toBe(true);
    // The second run finds dist/ and says nothing about building.
    const again = await run(process.execPath, [path.join(checkout, 'bin', 'svc-router.js'), '--help'], { cwd: checkout });
    expect(again.stderr).toBe('');
  }, 300_000);
});
