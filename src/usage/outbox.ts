import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { reportOnStderr } from '../files/report-on-stderr.js';
import { SkippedLines } from '../files/skipped-lines.js';
import type { UsageRecord } from './ledger.js';
import { readLedgerLine } from './ledger-lines.js';
import { OwnerWatch, STALE_MS } from './outbox-owners.js';

/** Outbox files this process has open, by stem: a file of our own pid that is not among them is an orphan. */
const openHere = new Set<string>();

export interface OutboxOptions {
  /** See STALE_MS; shorter only in tests. */
  staleMs?: number;
  /** A monotonic clock in milliseconds, for judging how long another router's file has been silent. */
  now?: () => number;
  /** Hears of each line of a taken-over outbox that cannot be read, and of a file that cannot be (default: standard error). */
  report?: (message: string) => void;
}

/**
 * Usage records a Redis-backed ledger has queued but Redis has not yet confirmed, kept on disk so
 * that a router killed while Redis is down (or before a write landed) loses nothing. Each record
 * is appended with one write(2) on an O_APPEND descriptor as it is queued, as the file ledger
 * does: a killed process leaves the bytes with the kernel. The file is emptied whenever the queue
 * has drained. Each process writes its own file in a shared directory, and touches it at every
 * sweep as a sign of life; every router sweeps the directory and takes over the files of stopped
 * routers (see OwnerWatch) to replay them. Replaying is safe because Redis applies each request id once.
 */
export class Outbox {
  private fd: number;
  private readonly stem: string;
  readonly file: string;
  private readonly watch: OwnerWatch;
  private readonly report: (message: string) => void;
  private claims = 0;
  private bytes = 0;

  constructor(
    readonly dir: string,
    options: OutboxOptions = {},
  ) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.stem = `${os.hostname()}-${process.pid}-${randomBytes(6).toString('hex')}`;
    this.file = path.join(dir, `${this.stem}.jsonl`);
    this.fd = fs.openSync(this.file, 'a', 0o600);
    openHere.add(this.stem);
    this.report = options.report ?? reportOnStderr;
    this.watch = new OwnerWatch(os.hostname(), (stem) => openHere.has(stem), options.staleMs ?? STALE_MS, options.now);
  }

  append(entries: readonly UsageRecord[]): void {
    if (!entries.length) return;
    const text = entries.map((entry) => `${JSON.stringify(entry)}\n`).join('');
    fs.writeSync(this.fd, text);
    this.bytes += Buffer.byteLength(text);
  }

  /** Forgets everything written so far: every record in it has reached Redis. */
  clear(): void {
    if (this.bytes === 0) return;
    fs.ftruncateSync(this.fd, 0);
    this.bytes = 0;
  }

  /**
   * Touches the file, so routers that cannot check this process's pid see it alive. If another
   * router judged this one stopped and took the file over (its name is gone, or names another
   * file), `pending` is written to a new file of the same name, so a kill from now on still loses
   * nothing. Returns true when it had to.
   */
  keepAlive(pending: readonly UsageRecord[]): boolean {
    const mine = fs.fstatSync(this.fd);
    let taken: boolean;
    try {
      const named = fs.statSync(this.file);
      taken = named.ino !== mine.ino || named.dev !== mine.dev;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      taken = true;
    }
    if (taken) {
      // Opened before the old one is closed: a failed open must not leave a closed descriptor's number to write to.
      const fd = fs.openSync(this.file, 'a', 0o600);
      fs.closeSync(this.fd);
      this.fd = fd;
      this.bytes = 0;
      this.append(pending);
    }
    const now = new Date();
    fs.futimesSync(this.fd, now, now);
    return taken;
  }

  /**
   * Takes over the outboxes of stopped routers: each is renamed to a name of ours first (rename is
   * atomic, so when two routers race for one file exactly one gets it), its records are appended
   * to this outbox, then it is removed. Returns the records taken over.
   */
  claimOrphans(): UsageRecord[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return [];
    }
    const taken: UsageRecord[] = [];
    for (const name of this.watch.stopped(this.dir, names)) {
      const claimed = path.join(this.dir, `${this.stem}.claimed-${++this.claims}.jsonl`);
      try {
        fs.renameSync(path.join(this.dir, name), claimed);
      } catch {
        continue; // another router took it first
      }
      let text: string;
      try {
        text = fs.readFileSync(claimed, 'utf8');
      } catch (error) {
        // Left under our name rather than removed unread: the next sweep tries it again.
        this.report(`cannot read ${claimed} (an outbox taken over as ${name}): ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
        continue;
      }
      // A line torn when its process was killed, or garbage: skipped and told, by the name the file had.
      const records: UsageRecord[] = [];
      const skipped = new SkippedLines(path.join(this.dir, name), this.report);
      text.split('\n').forEach((line, index) => {
        const read = readLedgerLine(line);
        if (read.kind === 'record') records.push(read.record);
        else if (read.kind === 'unreadable') skipped.skip(index + 1, read.problem);
      });
      skipped.done();
      try {
        this.append(records);
      } catch {
        // As for a record of our own: a full disk costs crash safety, not the records (they queue in memory).
      }
      taken.push(...records);
      try {
        fs.rmSync(claimed, { force: true });
      } catch {
        // Left, it is taken again at the next sweep; Redis counts each request id once.
      }
    }
    return taken;
  }

  /** Closes the file; removes it when nothing in it still waits for Redis, else leaves it for another router. */
  close(empty: boolean): void {
    openHere.delete(this.stem);
    fs.closeSync(this.fd);
    if (empty) fs.rmSync(this.file, { force: true });
  }
}
