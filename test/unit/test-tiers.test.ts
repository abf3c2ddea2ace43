import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { QUICK_AREAS } from '../../vitest.config.js';
import { importsOf } from '../helpers/import-graph.js';

/**
 * The quick tier (`npm run test:quick`, docs/testing.md) needs only Node and the checkout. Its test
 * files, and every test helper they import, reach none of the suites' heavy parts: the agents
 * (downloaded), the real model (llama-server, built), Redis, Chromium, the CLI run as a child
 * process. A helper that starts one of them, imported by a quick test, fails here by name.
 */

const root = path.resolve(import.meta.dirname, '../..');

/** Test helpers that start what the quick tier must not need, and why. */
const HEAVY: Array<[RegExp, string]> = [
  [/^test\/agents\//, 'the coding agents (downloaded on first use)'],
  [/^test\/real-model\//, 'llama-server (built on first use)'],
  [/^test\/clients\//, 'the client-library suites'],
  [/^test\/ui\//, 'Chromium'],
  [/^test\/reliability\/redis-process\.ts$/, 'redis-server'],
  [/^test\/reliability\/redis-sentinels\.ts$/, 'redis-server and redis-sentinel'],
  [/^test\/cli\/run-cli\.ts$/, 'the CLI in child processes'],
];
const HEAVY_PACKAGES = ['playwright-core'];

function testFiles(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true }).filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts')).map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

/** Every test helper a test file loads (type imports load nothing; src/ is the router itself and not followed), and every package it names. */
const importsRead = new Map<string, ReturnType<typeof importsOf>>();
const importsIn = (file: string) => importsRead.get(file) ?? importsRead.set(file, importsOf(file, fs.readFileSync(path.join(root, file), 'utf8'))).get(file)!;

function reach(file: string): { helpers: Set<string>; packages: Set<string> } {
  const helpers = new Set<string>();
  const packages = new Set<string>();
  const visit = (from: string) => {
    for (const { specifier, typeOnly } of importsIn(from)) {
      if (typeOnly) continue;
      if (!specifier.startsWith('.')) {
        packages.add(specifier);
        continue;
      }
      const target = path.relative(root, path.resolve(path.dirname(path.join(root, from)), specifier.replace(/\.js$/, '.ts')));
      if (!target.startsWith('test/') || !target.endsWith('.ts') || helpers.has(target) || !fs.existsSync(path.join(root, target))) continue;
      helpers.add(target);
      visit(target);
    }
  };
  visit(file);
  return { helpers, packages };
}

describe('the quick tier', () => {
  const files = QUICK_AREAS.flatMap(testFiles);

  it('holds the unit, translator and server suites', () => {
    expect(files.some((file) => file.startsWith('test/unit/translators/'))).toBe(true);
    expect(files.some((file) => file.startsWith('test/server/'))).toBe(true);
    expect(files.length).toBeGreaterThan(100);
  });

  it('reaches nothing that needs more than Node: no agents, llama-server, Redis, Chromium or CLI process', () => {
    const needs: string[] = [];
    for (const file of files) {
      const { helpers, packages } = reach(file);
      for (const helper of helpers) for (const [pattern, what] of HEAVY) if (pattern.test(helper)) needs.push(`${file} → ${helper}: ${what}`);
      for (const name of HEAVY_PACKAGES) if (packages.has(name)) needs.push(`${file} → ${name}`);
    }
    expect(needs).toEqual([]);
  });

  it('is found by the check: a helper that starts Redis is named', () => {
    const { helpers } = reach('test/reliability/redis-ledger-cost.test.ts');
    expect([...helpers].filter((helper) => HEAVY.some(([pattern]) => pattern.test(helper)))).toContain('test/reliability/redis-process.ts');
  });
});
