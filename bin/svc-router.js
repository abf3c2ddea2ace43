#!/usr/bin/env node
// Runs the compiled CLI, so a call starts without a TypeScript loader. The published package ships
// dist/ (built by prepack); a source checkout builds it on its first run, so that `npm ci` and then
// `npx svc-router serve` work with no other step.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) buildFromSource();
await import(main.href);

function buildFromSource() {
  const tsconfig = fileURLToPath(new URL('../tsconfig.json', import.meta.url));
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    process.stderr.write('svc-router: dist/ is missing and TypeScript is not installed: run `npm ci && npm run build` in the svc-router checkout.\n');
    process.exit(1);
  }
  if (!existsSync(tsconfig)) {
    process.stderr.write('svc-router: dist/ is missing from this install; reinstall the package.\n');
    process.exit(1);
  }
  process.stderr.write('svc-router: first run from a source checkout: building dist/ (npm run build)…\n');
  const built = spawnSync(process.execPath, [tsc, '-p', tsconfig], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (built.status !== 0 || !existsSync(main)) {
    process.stderr.write('svc-router: the build failed; run `npm run build` to see why.\n');
    process.exit(1);
  }
}
