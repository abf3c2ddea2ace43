#!/usr/bin/env node
// Runs the compiled CLI, so a call starts without a TypeScript loader. The published package ships
// dist/ (built by prepack) and no src/, and runs it as it is. A source checkout builds dist/ on its
// first run and again whenever src/ has changed since (an edit, a git pull), so `npm ci` and then
// `npx svc-router serve` run the code as it is now, with no other step.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The version comes from package.json, not from the build: `--version` alone loads nothing else,
// so a script that asks for it pays only for node's own start.
if (process.argv.length === 3 && (process.argv[2] === '--version' || process.argv[2] === '-V')) {
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
  process.exit(0);
}

const root = fileURLToPath(new URL('..', import.meta.url));
const main = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(new URL('../src', import.meta.url))) {
  const { isCurrent } = await import('./source-stamp.js');
  if (!isCurrent(root)) await rebuild();
} else if (!existsSync(main)) {
  process.stderr.write('svc-router: dist/ is missing from this install; reinstall the package.\n');
  process.exit(1);
}
await import(main.href);

async function rebuild() {
  const { buildDist } = await import('./source-build.js');
  const first = !existsSync(main);
  const outcome = buildDist(root, {
    say: () => process.stderr.write(`svc-router: ${first ? 'first run from a source checkout' : 'src/ has changed since the last build'}: building dist/ (npm run build)…\n`),
  });
  if (outcome === 'no-typescript' && !first) {
    process.stderr.write('svc-router: src/ has changed since the last build, but TypeScript is not installed to rebuild it (npm ci); running the last build.\n');
  } else if (outcome === 'no-typescript') {
    process.stderr.write('svc-router: dist/ is missing and TypeScript is not installed: run `npm ci && npm run build` in the svc-router checkout.\n');
    process.exit(1);
  } else if (outcome === 'failed' || !existsSync(main)) {
    process.stderr.write('svc-router: the build failed (the errors are above); fix them, or run `npm run build` to see them again.\n');
    process.exit(1);
  }
}
