import fs from 'node:fs';
import path from 'node:path';
import { Chalk } from 'chalk';
import type { TextProblem } from '../../files/json-text.js';
import { SkippedLines } from '../../files/skipped-lines.js';
import { entryFromStored, formatText } from '../../server/request-log.js';
import { matches, readRequests, readStoredLine, type RequestFilter, type StoredRequest } from '../../server/request-records.js';
import { REQUESTS_FILE } from '../../server/request-store.js';
import { usageError } from '../cli-error.js';
import { printLine, warn } from '../output.js';
import { parsePositiveInteger } from '../parse-options.js';
import { openConfig } from '../config-in-force.js';

export interface LogsOptions {
  follow?: boolean;
  since?: string;
  caller?: string;
  status?: string;
  session?: string;
  limit?: string;
  json?: boolean;
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** How often --follow looks for new lines. */
const FOLLOW_POLL_MS = 200;

/** `30m`, `2h`, `7d` back from now, or a date (`2026-11-20`, an ISO time). */
export function parseSince(value: string, now = Date.now()): number {
  const relative = /^(\d+)([smhd])$/.exec(value);
  if (relative) return now - Number(relative[1]) * UNITS[relative[2]!]!;
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw usageError(`--since: expected a duration such as 30m, 2h or 7d, or a date such as 2026-11-20, got '${value}'`);
  return time;
}

/** `svc-router logs`: the requests serve recorded, filtered, newest last; --follow prints new ones as they finish. */
export async function runLogs(options: LogsOptions): Promise<void> {
  if (options.status !== undefined && !/^(?:[1-5]\d\d|[1-5]xx|error)$/i.test(options.status)) {
    throw usageError(`--status: expected a status (429), a class (5xx) or 'error', got '${options.status}'`);
  }
  if (options.session !== undefined && !/^[\w-]{1,64}$/.test(options.session)) {
    throw usageError(`--session: expected a session id as svc-router sessions shows it (letters, digits, - and _), or its first characters, got '${options.session}'`);
  }
  const limit = options.limit === undefined ? 50 : parsePositiveInteger(options.limit, '--limit');
  const filter: RequestFilter = {
    ...(options.since !== undefined ? { since: parseSince(options.since) } : {}),
    ...(options.caller !== undefined ? { caller: options.caller } : {}),
    ...(options.status !== undefined ? { status: options.status.toLowerCase() } : {}),
    ...(options.session !== undefined ? { session: options.session } : {}),
  };
  const config = await openConfig();
  const { dir } = config;
  const colours = new Chalk({ level: process.stdout.isTTY && !process.env.NO_COLOR ? 1 : 0 });
  const print = (record: StoredRequest) => printLine(options.json ? JSON.stringify(record) : formatText(entryFromStored(record), colours));
  // A torn or foreign line is skipped and named (file, line, column), never the end of the listing.
  const skipped = new Map<string, SkippedLines>();
  const skip = (file: string, line: number, problem: Omit<TextProblem, 'line'>) => {
    if (!skipped.has(file)) skipped.set(file, new SkippedLines(file, warn, 'the record is'));
    skipped.get(file)!.skip(line, problem);
  };
  const found = readRequests(dir, filter, config.read().server.requestLogDays, skip);
  for (const lines of skipped.values()) lines.done();
  for (const record of found.slice(-limit)) print(record);
  if (!options.follow) {
    if (found.length === 0 && !options.json) process.stderr.write(`No requests recorded${Object.keys(filter).length ? ' that match' : ''} (serve records them in ${path.join(dir, REQUESTS_FILE)}; not with --quiet).\n`);
    return;
  }
  const file = path.join(dir, REQUESTS_FILE);
  await follow(file, (line, number) => {
    const read = readStoredLine(line);
    if (read.kind === 'record' && matches(read.record, filter)) print(read.record);
    else if (read.kind === 'unreadable') skip(file, number, read.problem);
  }, () => skipped.get(file)?.done());
}

/** Calls `onLine` for each line appended to the file from now on (with its line number), and `onRead` after each read, across rotations, until the process is stopped. */
function follow(file: string, onLine: (line: string, number: number) => void, onRead: () => void): Promise<never> {
  let offset = fileSize(file);
  let pending = '';
  let lines = linesIn(file, offset);
  return new Promise<never>(() => {
    setInterval(() => {
      const size = fileSize(file);
      // Rotated (or removed): the new file is read from its start.
      if (size < offset) {
        offset = 0;
        lines = 0;
        pending = '';
      }
      if (size === offset) return;
      const fd = fs.openSync(file, 'r');
      try {
        const chunk = Buffer.alloc(size - offset);
        const read = fs.readSync(fd, chunk, 0, chunk.length, offset);
        offset += read;
        const appended = (pending + chunk.toString('utf8', 0, read)).split('\n');
        pending = appended.pop() ?? '';
        for (const line of appended) onLine(line, ++lines);
        onRead();
      } finally {
        fs.closeSync(fd);
      }
    }, FOLLOW_POLL_MS);
  });
}

/** Whole lines in the file's first `bytes`: where following starts counting. */
function linesIn(file: string, bytes: number): number {
  try {
    const text = fs.readFileSync(file).subarray(0, bytes);
    let count = 0;
    for (let index = text.indexOf(0x0a); index !== -1; index = text.indexOf(0x0a, index + 1)) count++;
    return count;
  } catch {
    return 0;
  }
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

