import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(file) : fs.statSync(file).mtimeMs);
  }
  return newest;
}

/** Runs `npm run build` when dist/ is missing or older than src/, so the bench measures the current code. */
export function ensureDist(root: string, log: (line: string) => void): void {
  const entry = path.join(root, 'dist', 'cli', 'main.js');
  const missing = !fs.existsSync(entry);
  if (!missing && fs.statSync(entry).mtimeMs >= newestMtime(path.join(root, 'src'))) return;
  log(missing ? 'dist/ is missing: npm run build…' : 'dist/ is older than src/: npm run build…');
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  if (build.status === 0) return;
  if (missing) throw new Error('npm run build failed and there is no dist/ to measure');
  log('warning: npm run build failed; measuring the existing dist/');
}
