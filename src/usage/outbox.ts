import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { reportOnStderr } from '../files/report-on-stderr.js';
import { SkippedLines } from '../files/skipped-lines.js';
import type { UsageRecord } from './ledger.js';
import { readLedgerLine } from './ledger-lines.js';

/** Outbox files this process has open, by stem: a file of our own pid that is not among them is an orphan. */
const openHere = new Set<string>();

/** `<host>-<pid>-<random>`, then `.jsonl` or `.claimed-<n>.jsonl` for a file taken over from a dead process. */
const NAME = /^(.+)-(\d+)-([0-9a-f]+)(?:\.claimed-\d+)?\.jsonl$/;

/**
 * Usage records a Redis-backed ledger has queued but Redis has not yet confirmed, kept on disk so
 * that a router killed while Redis is down (or before a write landed) loses nothing. Each record
 * is appended with one write(2) on an O_APPEND descriptor as it is queued, as the file ledger
 * does: a killed process leaves the bytes with the kernel. The file is emptied whenever the queue
 * has drained. Each process writes its own file in a shared directory; a router that starts (or
 * sees Redis come back) takes over the files of dead processes on its host and replays them.
 * Replaying is safe because Redis applies each request id once.
 */
export class Outbox {
  private readonly fd: number;
  private readonly stem: string;
  readonly file: string;
  private claims = 0;
  private bytes = 0;

  /** `report` hears of each line of a taken-over outbox that cannot be read (default: standard error). */
  constructor(
    readonly dir: string,
    private readonly report: (message: string) => void = reportOnStderr,
  ) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.stem = `${os.hostname()}-${process.pid}-${randomBytes(6).toString('hex')}`;
    this.file = path.join(dir, `${this.stem}.jsonl`);
    this.fd = fs.openSync(this.file, 'a', 0o600);
    openHere.add(this.stem);
  }

  append(entries: UsageRecord[]): void {
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
   * Takes over the outboxes of dead processes on this host: each is renamed to a name of ours
   * first (so two routers starting at once do not both take it), its records are appended to
   * this outbox, then it is removed. Returns the records taken over.
   */
  claimOrphans(): UsageRecord[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return [];
    }
    const host = os.hostname();
    const taken: UsageRecord[] = [];
    for (const name of names) {
      const match = NAME.exec(name);
      if (!match || match[1] !== host) continue;
      const stem = `${match[1]}-${match[2]}-${match[3]}`;
      const pid = Number(match[2]);
      if (stem === this.stem || openHere.has(stem) || (pid !== process.pid && isAlive(pid))) continue;
      const claimed = path.join(this.dir, `${this.stem}.claimed-${++this.claims}.jsonl`);
      try {
        fs.renameSync(path.join(this.dir, name), claimed);
      } catch {
        continue; // another router took it first
      }
      const records: UsageRecord[] = [];
      let text = '';
      try {
        text = fs.readFileSync(claimed, 'utf8');
      } catch (error) {
        // Left where it is rather than removed unread: a later start takes it over again.
        this.report(`cannot read ${claimed} (an outbox taken over from process ${pid}): ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
        continue;
      }
      // A line torn when its process was killed, or garbage: skipped and told, by the name the file had.
      const skipped = new SkippedLines(path.join(this.dir, name), this.report);
      text.split('\n').forEach((line, index) => {
        const read = readLedgerLine(line);
        if (read.kind === 'record') records.push(read.record);
        else if (read.kind === 'unreadable') skipped.skip(index + 1, read.problem);
      });
      skipped.done();
      this.append(records);
      fs.rmSync(claimed, { force: true });
      taken.push(...records);
    }
    return taken;
  }

  /** Closes the file; removes it when nothing in it still waits for Redis, else leaves it for the next start. */
  close(empty: boolean): void {
    openHere.delete(this.stem);
    fs.closeSync(this.fd);
    if (empty) fs.rmSync(this.file, { force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
