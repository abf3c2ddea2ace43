import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../files/atomic-write.js';
import { BrokenFileError } from '../files/broken-file.js';
import { positionOfPath, readJsonText } from '../files/json-text.js';
import { CliError, EXIT_FAILED } from './cli-error.js';

/**
 * Writing a client's own config file (Codex's config.toml, Claude Code's settings.json) so that
 * nothing is lost: the content it replaces is kept beside it, a file that now holds a key is made
 * private, and `undo` puts the previous content (or absence) back.
 */

/** What `connect --write` keeps to undo its last write: a JSON file beside the client's file, 0600. */
export interface Backup {
  /** Whether the file existed before the write; undo deletes a file the write created. */
  existed: boolean;
  content?: string;
  mode?: number;
  /** sha256 of what the write left, so undo can tell whether the file changed since. */
  writtenSha256: string;
  writtenAt: string;
}

export const backupPath = (file: string): string => `${file}.svc-router-backup.json`;

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The file a path names, followed through a symlink (dotfile managers link these files). */
export const resolveTarget = (file: string): string => (fs.existsSync(file) ? fs.realpathSync(file) : file);

export interface WriteOutcome {
  backup?: string;
  /** The mode the file had when it was readable by others and now holds a key. */
  tightenedFrom?: number;
  mode: number;
}

/**
 * Writes `content` atomically (same directory, then rename), keeping the file's mode unless the
 * content holds `secret` and others could read it (then 0600), and backing up what was there.
 */
export function writeClientFile(file: string, content: string, secret: string | undefined): WriteOutcome {
  const target = resolveTarget(file);
  const existed = fs.existsSync(target);
  const before = existed ? fs.readFileSync(target, 'utf8') : undefined;
  const oldMode = existed ? fs.statSync(target).mode & 0o777 : undefined;
  const holdsSecret = secret !== undefined && secret !== '' && content.includes(secret);
  const tighten = oldMode !== undefined && holdsSecret && (oldMode & 0o077) !== 0;
  const mode = oldMode === undefined ? 0o600 : tighten ? 0o600 : oldMode;
  const backup: Backup = {
    existed,
    ...(existed ? { content: before, mode: oldMode } : {}),
    writtenSha256: sha256(content),
    writtenAt: new Date().toISOString(),
  };
  fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
  atomicWrite(backupPath(target), `${JSON.stringify(backup, null, 2)}\n`, 0o600);
  atomicWrite(target, content, mode);
  return { backup: backupPath(target), mode, ...(tighten ? { tightenedFrom: oldMode } : {}) };
}

/**
 * Whether `file` has a backup to put back (false when it has none); throws, as undo would, when
 * the file has changed since the write and `force` is not given. Undo of several files asks this
 * of each before touching any.
 */
export function assertUndoable(file: string, force: boolean): boolean {
  return undoable(file, force) !== undefined;
}

/** The file's backup, checked as assertUndoable says; undefined when it has none. */
function undoable(file: string, force: boolean): { target: string; backupFile: string; backup: Backup; current: string | undefined } | undefined {
  const target = resolveTarget(file);
  const backupFile = backupPath(target);
  let text: string;
  try {
    text = fs.readFileSync(backupFile, 'utf8');
  } catch {
    return undefined;
  }
  const backup = readBackup(backupFile, text);
  const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : undefined;
  if (current !== undefined && sha256(current) !== backup.writtenSha256 && !force) {
    throw new CliError(`${file} has changed since svc-router wrote it (${backup.writtenAt}); undo would lose those changes. Pass --force to restore the backup anyway (${backupFile}).`, EXIT_FAILED);
  }
  return { target, backupFile, backup, current };
}

export type UndoOutcome =
  | { status: 'restored'; content: string; current: string | undefined }
  | { status: 'removed'; current: string | undefined }
  | { status: 'no-backup' };

/**
 * Puts back what the last write replaced. When the file has changed since that write, refuses
 * unless `force` (the later edits would be lost).
 */
export function undoClientFile(file: string, force: boolean): UndoOutcome {
  const found = undoable(file, force);
  if (!found) return { status: 'no-backup' };
  const { target, backupFile, backup, current } = found;
  if (backup.existed && typeof backup.content === 'string') {
    atomicWrite(target, backup.content, backup.mode ?? 0o600);
    fs.rmSync(backupFile, { force: true });
    return { status: 'restored', content: backup.content, current };
  }
  fs.rmSync(target, { force: true });
  fs.rmSync(backupFile, { force: true });
  return { status: 'removed', current };
}

/** A backup as written, or BrokenFileError naming where it is not: undo must not guess what to put back. */
function readBackup(file: string, text: string): Backup {
  const reading = readJsonText(text);
  if (!reading.ok) throw new BrokenFileError(file, [reading.problem]);
  const value = reading.value as Partial<Record<keyof Backup, unknown>> | null;
  const wrong = (path: string[], message: string) => new BrokenFileError(file, [{ ...positionOfPath(text, path), message }]);
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw wrong([], 'expected a backup (an object)');
  if (typeof value.existed !== 'boolean') throw wrong(['existed'], 'existed: expected true or false');
  if (value.existed && typeof value.content !== 'string') throw wrong(['content'], 'content: expected the text to put back');
  if (value.mode !== undefined && !Number.isSafeInteger(value.mode)) throw wrong(['mode'], 'mode: expected a file mode');
  if (typeof value.writtenSha256 !== 'string') throw wrong(['writtenSha256'], 'writtenSha256: expected a digest');
  return value as Backup;
}

function atomicWrite(file: string, content: string, mode: number): void {
  try {
    writeFileAtomic(file, content, { mode });
  } catch (error) {
    throw new CliError(`cannot write ${file}: ${(error as Error).message}`, EXIT_FAILED);
  }
}
