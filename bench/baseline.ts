import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';

/** A git ref checked out and built in a temporary worktree: the router `--against` compares with. */
export interface Baseline {
  /** the ref as given */
  ref: string;
  /** the commit it resolved to */
  sha: string;
  /** the worktree's root */
  dir: string;
  /** its bin/svc-router.js */
  bin: string;
  /** its built dist/ */
  dist: string;
  /** how node_modules got there: a link to this checkout's (same lockfile) or `npm ci` */
  modules: 'linked' | 'npm ci';
  /** Removes the worktree; safe to call more than once. */
  remove(): void;
}

function run(command: string, args: string[], options: SpawnSyncOptions & { cwd: string }): string {
  const result = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    const output = `${result.stderr ?? ''}${result.stdout ?? ''}`.toString().trim();
    throw new Error(`${command} ${args.join(' ')} failed (${result.status})${output ? `:\n${output.slice(-2000)}` : ''}`);
  }
  return (result.stdout ?? '').toString().trim();
}

const read = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file) : undefined);

/**
 * Checks `ref` out into a temporary detached worktree, gives it node_modules (a link to this
 * checkout's when the lockfiles are byte-identical, else `npm ci`) and builds it with tsc. The
 * worktree is removed by `remove()` and, failing that, when this process exits (Ctrl-C included).
 */
export function prepareBaseline(root: string, ref: string, log: (line: string) => void): Baseline {
  const resolved = spawnSync('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: root, encoding: 'utf8' });
  const sha = resolved.status === 0 ? resolved.stdout.trim() : '';
  if (!sha) throw new Error(`--against: '${ref}' is not a commit in this repository`);
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-router-baseline-'));
  const dir = path.join(parent, 'tree');
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    process.off('exit', remove);
    // Unlink the node_modules link first, so nothing that removes the tree can reach this checkout's.
    const modules = path.join(dir, 'node_modules');
    if (fs.lstatSync(modules, { throwIfNoEntry: false })?.isSymbolicLink()) fs.unlinkSync(modules);
    spawnSync('git', ['worktree', 'remove', '--force', dir], { cwd: root, stdio: 'ignore' });
    fs.rmSync(parent, { recursive: true, force: true });
    spawnSync('git', ['worktree', 'prune'], { cwd: root, stdio: 'ignore' });
  };
  process.on('exit', remove);
  try {
    log(`baseline: ${ref} (${sha.slice(0, 10)}) into a worktree at ${dir}`);
    run('git', ['worktree', 'add', '--detach', dir, sha], { cwd: root });
    const lockfile = 'package-lock.json';
    const ours = read(path.join(root, lockfile));
    const theirs = read(path.join(dir, lockfile));
    const same = ours !== undefined && theirs !== undefined && ours.equals(theirs) && fs.existsSync(path.join(root, 'node_modules'));
    if (same) {
      fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
      log('baseline: same lockfile, node_modules linked from this checkout');
    } else {
      log('baseline: lockfile differs, npm ci in the worktree…');
      run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    }
    // npm run build, not tsc alone: the bin rebuilds a checkout whose dist/ lacks the build's stamp.
    log('baseline: building (npm run build)…');
    run('npm', ['run', 'build', '--silent'], { cwd: dir });
    const bin = path.join(dir, 'bin', 'svc-router.js');
    if (!fs.existsSync(bin)) throw new Error(`${ref} has no bin/svc-router.js`);
    return { ref, sha, dir, bin, dist: path.join(dir, 'dist'), modules: same ? 'linked' : 'npm ci', remove };
  } catch (error) {
    remove();
    throw error;
  }
}
