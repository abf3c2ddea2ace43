import fs from 'node:fs';
import path from 'node:path';

/** `--log-max-size` default: 10 MiB a file. */
export const DEFAULT_LOG_MAX_BYTES = 10 * 1024 * 1024;
/** `--log-keep` default: FILE.1 … FILE.5 beside FILE. */
export const DEFAULT_LOG_KEEP = 5;

/**
 * An append-only log file rotated by size, as logrotate's `size` + `rotate N` would: when a write
 * would take FILE past `maxBytes`, FILE becomes FILE.1, FILE.1 becomes FILE.2 … and FILE.`keep`
 * is dropped; writing goes on in a fresh FILE. A write is never split, so a line stays whole
 * (one larger than `maxBytes` gets a file of its own). Writes are synchronous: a line the server
 * wrote is on disk before it exits, however it exits.
 */
export class RotatingLogFile {
  private fd: number;
  private size: number;

  constructor(
    readonly file: string,
    readonly maxBytes: number = DEFAULT_LOG_MAX_BYTES,
    readonly keep: number = DEFAULT_LOG_KEEP,
  ) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // Request logs may hold bodies (--log-bodies): only the owner reads them.
    this.fd = fs.openSync(file, 'a', 0o600);
    this.size = fs.fstatSync(this.fd).size;
  }

  write(text: string | Uint8Array): void {
    const bytes = typeof text === 'string' ? Buffer.from(text) : text;
    if (bytes.length === 0) return;
    if (this.size > 0 && this.size + bytes.length > this.maxBytes) this.rotate();
    fs.writeSync(this.fd, bytes);
    this.size += bytes.length;
  }

  close(): void {
    fs.closeSync(this.fd);
  }

  /** The rotated files that exist now, newest first (FILE.1, FILE.2, …). */
  rotatedFiles(): string[] {
    const files: string[] = [];
    for (let n = 1; n <= this.keep; n++) if (fs.existsSync(`${this.file}.${n}`)) files.push(`${this.file}.${n}`);
    return files;
  }

  private rotate(): void {
    fs.closeSync(this.fd);
    if (this.keep === 0) {
      fs.truncateSync(this.file, 0);
    } else {
      fs.rmSync(`${this.file}.${this.keep}`, { force: true });
      for (let n = this.keep - 1; n >= 1; n--) {
        if (fs.existsSync(`${this.file}.${n}`)) fs.renameSync(`${this.file}.${n}`, `${this.file}.${n + 1}`);
      }
      fs.renameSync(this.file, `${this.file}.1`);
    }
    this.fd = fs.openSync(this.file, 'a', 0o600);
    this.size = 0;
  }
}

/**
 * Sends everything this process writes to standard output and standard error (banner, request
 * log, warnings, a crash's last words) to `log` instead: a server started in the background has
 * no terminal, and a file descriptor handed to it could not be rotated.
 */
export function redirectOutputTo(log: RotatingLogFile): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.write = ((chunk: string | Uint8Array, encodingOrDone?: BufferEncoding | ((error?: Error | null) => void), done?: (error?: Error | null) => void) => {
      const callback = typeof encodingOrDone === 'function' ? encodingOrDone : done;
      const encoding = typeof encodingOrDone === 'string' ? encodingOrDone : undefined;
      try {
        log.write(typeof chunk === 'string' && encoding && encoding !== 'utf8' ? Buffer.from(chunk, encoding) : chunk);
        callback?.(null);
      } catch (error) {
        // A full disk must not take the server down; the write is reported as failed to whoever asked.
        callback?.(error as Error);
      }
      return true;
    }) as typeof stream.write;
  }
}
