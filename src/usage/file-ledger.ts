import fs from 'node:fs';
import { DailyBuckets } from './daily-buckets.js';
import type { Ledger, UsageRecord, UsageSummary } from './ledger.js';

/**
 * The embedded ledger: one JSON line per completed request, appended with a single write(2) on an
 * O_APPEND descriptor before the response is finished. A killed process therefore loses nothing
 * it had recorded (the kernel holds the bytes), and the lines of several processes never interleave.
 * Reads catch up with whatever any process appended since the last read.
 */
export class FileLedger implements Ledger {
  private readonly fd: number;
  private readonly buckets = new DailyBuckets();
  private offset = 0;
  private pending = '';

  constructor(readonly file: string) {
    this.fd = fs.openSync(file, 'a+', 0o600);
    this.catchUp();
    // A process killed mid-write can leave a torn last line; start ours on a line of its own.
    if (this.pending !== '') {
      fs.writeSync(this.fd, '\n');
      this.pending = '';
      this.catchUp();
    }
  }

  record(entry: UsageRecord): void {
    fs.writeSync(this.fd, `${JSON.stringify(entry)}\n`);
  }

  async summary(developer: string, now = Date.now()): Promise<UsageSummary> {
    this.catchUp();
    return this.buckets.summary(developer, now);
  }

  async close(): Promise<void> {
    fs.closeSync(this.fd);
  }

  private catchUp(): void {
    const size = fs.fstatSync(this.fd).size;
    if (size <= this.offset) return;
    const chunk = Buffer.alloc(size - this.offset);
    const read = fs.readSync(this.fd, chunk, 0, chunk.length, this.offset);
    this.offset += read;
    const lines = (this.pending + chunk.toString('utf8', 0, read)).split('\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines) {
      const entry = parseRecord(line);
      if (entry) this.buckets.add(entry);
    }
  }
}

/** A well-formed record, or undefined for a blank, torn or foreign line (skipped, never fatal). */
export function parseRecord(line: string): UsageRecord | undefined {
  if (line.trim() === '') return undefined;
  try {
    const value = JSON.parse(line) as Partial<UsageRecord>;
    if (typeof value.developer !== 'string' || typeof value.ts !== 'number') return undefined;
    return {
      ts: value.ts,
      developer: value.developer,
      inputTokens: Number(value.inputTokens) || 0,
      outputTokens: Number(value.outputTokens) || 0,
      requests: Number(value.requests) || 1,
    };
  } catch {
    return undefined;
  }
}
