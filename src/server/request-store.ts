import fs from 'node:fs';
import path from 'node:path';
import { batchedLog, formatJson, redactEntry, type RequestLog } from './request-log.js';

/** The request log `svc-router logs` and the dashboard read, under the config directory. */
export const REQUESTS_FILE = 'requests.jsonl';
/** The previous generation: the current file is moved here when it reaches half the size bound. */
export const REQUESTS_OLD_FILE = 'requests.1.jsonl';

export interface RequestStoreOptions {
  /** The config directory. */
  dir: string;
  /** Records older than this are not shown, and a generation holding only such records is removed. */
  retentionDays: number;
  /** Both generations together stay under this many bytes. */
  maxBytes: number;
  logBodies?: boolean;
  secrets?: () => Iterable<string>;
}

/**
 * The searchable request log: one JSON line per finished request (the `--log-format json` line,
 * redacted, with its targets and cost), appended to a file in batches off the request's path (on the
 * next turn of the event loop). Bounded: at half its byte budget the file becomes the old generation
 * and the one before is dropped; records past the retention are dropped on the same turn.
 */
export function createRequestStore(options: RequestStoreOptions): RequestLog {
  const file = path.join(options.dir, REQUESTS_FILE);
  const old = path.join(options.dir, REQUESTS_OLD_FILE);
  const half = Math.max(4_096, Math.floor(options.maxBytes / 2));
  let fd = fs.openSync(file, 'a+', 0o600);
  let size = fs.fstatSync(fd).size;
  // A router killed mid-write leaves a torn last line: ours start on a line of their own, so the
  // first is not joined to it (and lost with it); `logs` skips the torn one and says so.
  if (size > 0 && !endsWithNewline(fd, size)) size += fs.writeSync(fd, '\n');
  dropExpired(old, options.retentionDays);

  const rotate = (): void => {
    fs.closeSync(fd);
    fs.renameSync(file, old);
    fd = fs.openSync(file, 'a', 0o600);
    size = 0;
  };

  return batchedLog(
    (entries, known) => {
      let text = '';
      for (const entry of entries) text += `${formatJson(redactEntry(entry, known))}\n`;
      try {
        if (size + Buffer.byteLength(text) > half && size > 0) {
          rotate();
          dropExpired(old, options.retentionDays);
        }
        fs.writeSync(fd, text);
        size += Buffer.byteLength(text);
      } catch {
        // A full or read-only disk costs the searchable log, never the request.
      }
    },
    options,
  );
}

function endsWithNewline(fd: number, size: number): boolean {
  const last = Buffer.alloc(1);
  fs.readSync(fd, last, 0, 1, size - 1);
  return last[0] === 0x0a;
}

/** Removes a generation whose newest record is older than the retention (its mtime says when it was last written). */
function dropExpired(file: string, retentionDays: number): void {
  try {
    if (Date.now() - fs.statSync(file).mtimeMs > retentionDays * 86_400_000) fs.rmSync(file, { force: true });
  } catch {
    // No old generation.
  }
}

/** Every request log in `logs`, fanned out from the one call the HTTP layer makes per finished request. */
export function fanOut(logs: RequestLog[]): RequestLog | undefined {
  if (logs.length <= 1) return logs[0];
  return {
    logBodies: logs.some((log) => log.logBodies),
    record(entry) {
      for (const log of logs) log.record(entry);
    },
    flush() {
      for (const log of logs) log.flush();
    },
  };
}
