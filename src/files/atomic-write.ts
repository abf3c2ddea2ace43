import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Replaces a file so that a reader sees either the old content or the new, never part of either:
 * the text goes to a new file beside it (same directory, so the rename stays on one file system),
 * is flushed to disk, and is renamed over the old name. The file gets `mode` when given (0600
 * for a file that holds keys, whatever umask says), else keeps the mode it had; a new file
 * without one gets the default (0666 less umask). On failure the temporary file is removed and
 * the old file is as it was. A symlink is followed, and stays a link to the new file.
 */
export function writeFileAtomic(given: string, text: string, options: { mode?: number } = {}): void {
  // A symlinked file (a dotfile manager's) stays a link: its target is what is replaced.
  const file = realTarget(given);
  const mode = options.mode ?? existingMode(file);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // A dot-name of its own: two writers (or a crashed one's leftover) never share a temporary file.
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let fd: number | undefined;
  try {
    fd = fs.openSync(temporary, 'wx', mode ?? 0o666);
    fs.writeFileSync(fd, text);
    if (mode !== undefined) fs.fchmodSync(fd, mode);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(temporary, file);
  } catch (error) {
    if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}

function existingMode(file: string): number | undefined {
  try {
    return fs.statSync(file).mode & 0o7777;
  } catch {
    return undefined;
  }
}

function realTarget(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}
