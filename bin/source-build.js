// Builds a source checkout's dist/ from src/ (what `npm run build` runs, and what the bin runs
// when src/ changed since the last build): tsc into a folder of its own, the stamp of what it
// read, then one rename into place, so a process starting meanwhile sees the old build or the
// new one, never half of one. One build at a time: the others wait for it, then find dist/
// current.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isCurrent, sourceSnapshot, STAMP_FILE } from './source-stamp.js';

/** A lock older than this was left by a build that died; a real build takes seconds. */
const STALE_LOCK_MS = 5 * 60_000;
const POLL_MS = 100;

/**
 * Builds dist/ unless it is current (`force` builds anyway): 'built' or 'current'; 'failed' when
 * tsc failed (its errors went to stderr) and 'no-typescript' when it is not installed, dist/ then
 * as it was.
 */
export function buildDist(root, { force = false, say = () => {} } = {}) {
  return withLock(root, () => {
    if (!force && isCurrent(root)) return 'current';
    let tsc;
    try {
      tsc = createRequire(path.join(root, 'package.json')).resolve('typescript/bin/tsc');
    } catch {
      return 'no-typescript';
    }
    say();
    // What a build killed midway left; with the lock held, no other build is using it.
    for (const name of fs.readdirSync(root)) if (/^dist\.\d+\.(building|old)$/.test(name)) fs.rmSync(path.join(root, name), { recursive: true, force: true });
    const snapshot = sourceSnapshot(root);
    const dist = path.join(root, 'dist');
    const staging = `${dist}.${process.pid}.building`;
    const retired = `${dist}.${process.pid}.old`;
    fs.rmSync(staging, { recursive: true, force: true });
    // tsc prints its errors on stdout; stdout is the command's own (`connect > file`), so both go to stderr.
    const built = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json'), '--outDir', staging], { stdio: ['ignore', 2, 2] });
    if (built.status !== 0) {
      fs.rmSync(staging, { recursive: true, force: true });
      return 'failed';
    }
    fs.writeFileSync(path.join(staging, STAMP_FILE), JSON.stringify({ entries: snapshot }));
    if (fs.existsSync(dist)) fs.renameSync(dist, retired);
    fs.renameSync(staging, dist);
    fs.rmSync(retired, { recursive: true, force: true });
    return 'built';
  });
}

/** A lock whose builder has died (killed midway), or that is older than any build takes. */
function isAbandoned(lock) {
  let pid;
  try {
    pid = Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8'));
    process.kill(pid, 0);
  } catch (error) {
    if (pid !== undefined && error.code === 'ESRCH') return true;
  }
  const since = fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
  return since !== undefined && Date.now() - since > STALE_LOCK_MS;
}

function withLock(root, work) {
  const lock = path.join(root, 'dist.lock');
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    if (isAbandoned(lock)) fs.rmSync(lock, { recursive: true, force: true });
    else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, POLL_MS);
  }
  try {
    return work();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

// `npm run build`: always builds, and fails as tsc does.
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const outcome = buildDist(root, { force: true });
  if (outcome === 'no-typescript') process.stderr.write('svc-router: TypeScript is not installed: run `npm ci` first.\n');
  process.exitCode = outcome === 'built' ? 0 : 1;
}
