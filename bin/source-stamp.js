// What a source checkout's dist/ was built from: every path the build read (src/, its folders,
// tsconfig.json) with its modification time, written into dist/ by the build. A file edited,
// replaced (git pull, checkout) or touched changes its own time; one added, removed or renamed
// changes its folder's. Checking is one stat per path, no directory listing: well under 2 ms for
// a few hundred files, so `--version` stays fast.
import fs from 'node:fs';
import path from 'node:path';

export const STAMP_FILE = '.source-stamp.json';

/** Every path the build reads, with its mtime, listed now (before the build reads them). */
export function sourceSnapshot(root) {
  const entries = [['tsconfig.json', fs.statSync(path.join(root, 'tsconfig.json')).mtimeMs]];
  const walk = (relative) => {
    entries.push([relative, fs.statSync(path.join(root, relative)).mtimeMs]);
    for (const entry of fs.readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = `${relative}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else entries.push([child, fs.statSync(path.join(root, child)).mtimeMs]);
    }
  };
  walk('src');
  return entries;
}

/** Whether dist/ was built from src/ as it is now. No stamp (a build by plain tsc) counts as stale. */
export function isCurrent(root) {
  let stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(path.join(root, 'dist', STAMP_FILE), 'utf8'));
  } catch {
    return false;
  }
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  for (const [relative, mtimeMs] of stamp.entries) {
    const stat = fs.statSync(prefix + relative, { throwIfNoEntry: false });
    if (stat === undefined || stat.mtimeMs !== mtimeMs) return false;
  }
  return true;
}
