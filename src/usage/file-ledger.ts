import fs from 'node:fs';
import { DailyBuckets } from './daily-buckets.js';
import type { Ledger, UsageRecord, UsageRow, UsageSummary } from './ledger.js';

const RECHECK_MS = 25;

/**
 * The embedded ledger: one JSON line per completed request, appended with a single write(2) on an
 * O_APPEND descriptor before the response is finished. A killed process therefore loses nothing
 * it had recorded (the kernel holds the bytes), and the lines of several processes never interleave.
 * Reads catch up with whatever other processes appended since the last read; this process's own
 * records are counted as they are written, so the common case reads nothing back.
 */
export class FileLedger implements Ledger {
  private readonly fd: number;
  private readonly buckets = new DailyBuckets();
  /** Bytes of the file already counted, from the start. */
  private offset = 0;
  private pending = '';
  /** Own records written past `offset`: their bytes, and their ids to skip when read back. */
  private ownBytes = 0;
  private checkedAt = -Infinity;
  private readonly ownIds = new Set<string>();

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
    const line = `${JSON.stringify(entry)}\n`;
    fs.writeSync(this.fd, line);
    this.buckets.add(entry);
    this.ownBytes += Buffer.byteLength(line);
    if (entry.requestId) this.ownIds.add(entry.requestId);
  }

  async summary(developer: string, now = Date.now()): Promise<UsageSummary> {
    // Other processes' records (another router, the CLI's in-process chat) are looked for at most
    // every RECHECK_MS: a stat per request would cost a system call on the hot path.
    const checked = performance.now();
    if (checked - this.checkedAt >= RECHECK_MS) {
      this.checkedAt = checked;
      this.catchUp();
    }
    return this.buckets.summary(developer, now);
  }

  async breakdown(now = Date.now()): Promise<UsageRow[]> {
    this.catchUp();
    return this.buckets.breakdown(now);
  }

  async close(): Promise<void> {
    fs.closeSync(this.fd);
  }

  private catchUp(): void {
    const size = fs.fstatSync(this.fd).size;
    if (size === this.offset + this.ownBytes && this.pending === '') {
      // Nobody else wrote: everything past the offset is ours and already counted.
      this.offset = size;
      this.ownBytes = 0;
      this.ownIds.clear();
      return;
    }
    if (size <= this.offset) return;
    const chunk = Buffer.alloc(size - this.offset);
    const read = fs.readSync(this.fd, chunk, 0, chunk.length, this.offset);
    this.offset += read;
    const lines = (this.pending + chunk.toString('utf8', 0, read)).split('\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines) {
      const entry = parseRecord(line);
      if (!entry) continue;
      if (entry.requestId && this.ownIds.delete(entry.requestId)) continue;
      this.buckets.add(entry);
    }
    this.ownBytes = 0;
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
      ...(typeof value.requestId === 'string' ? { requestId: value.requestId } : {}),
      ...(typeof value.model === 'string' ? { model: value.model } : {}),
      ...(typeof value.backend === 'string' ? { backend: value.backend } : {}),
      ...(typeof value.upstreamModel === 'string' ? { upstreamModel: value.upstreamModel } : {}),
      ...(Number.isSafeInteger(value.cacheReadTokens) ? { cacheReadTokens: value.cacheReadTokens } : {}),
      ...(Number.isSafeInteger(value.cacheWriteTokens) ? { cacheWriteTokens: value.cacheWriteTokens } : {}),
      // A cost is a whole number of nano-dollars; anything else in its place is no cost, never 0.
      ...(Number.isSafeInteger(value.costNanoUsd) ? { costNanoUsd: value.costNanoUsd } : {}),
    };
  } catch {
    return undefined;
  }
}
