import fs from 'node:fs';
import path from 'node:path';

/**
 * How long an outbox file may stay untouched before its owner counts as stopped when no pid can
 * prove it (a router on another host sharing the home, or a pid now reused by another process).
 * Live routers touch their file every sweep (a few seconds); this leaves room for a blocked event
 * loop and for a network filesystem's cached attributes (NFS caches them for up to 60 s by
 * default). Judging a live router stopped costs little: its records are replayed (Redis counts
 * each request id once) and it writes its pending records to a new file at its next sweep.
 */
export const STALE_MS = 120_000;

/** `<host>-<pid>-<random>`, then `.jsonl`, or `.claimed-<n>.jsonl` for a file taken over from a stopped router. */
const NAME = /^(.+)-(\d+)-([0-9a-f]+)(\.claimed-\d+)?\.jsonl$/;

export interface OutboxOwner {
  /** `<host>-<pid>-<random>`: one outbox of one process. */
  stem: string;
  host: string;
  pid: number;
  /** A file being (or left half-way) taken over by its owner, not the owner's own outbox. */
  claimed: boolean;
}

function outboxOwner(name: string): OutboxOwner | undefined {
  const match = NAME.exec(name);
  if (!match) return undefined;
  return { stem: `${match[1]}-${match[2]}-${match[3]}`, host: match[1]!, pid: Number(match[2]), claimed: match[4] !== undefined };
}

/**
 * Decides which outbox files in a shared directory belong to routers that have stopped. On this
 * host a dead pid settles it at once. Otherwise (another host, or a live pid that may have been
 * reused) the file must have kept the same modification time and size for `staleMs`, as measured
 * on this process's own clock: no two hosts' clocks are ever compared. Remembers one observation
 * per file listed, and forgets files that are gone, so its memory is bounded by the directory.
 */
export class OwnerWatch {
  private readonly seen = new Map<string, { mtimeMs: number; size: number; since: number }>();

  constructor(
    private readonly host: string,
    /** True for an outbox this process has open: never judged stopped. */
    private readonly openHere: (stem: string) => boolean,
    private readonly staleMs = STALE_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The names among `names` (a listing of `dir`) whose owners have stopped. */
  stopped(dir: string, names: string[]): string[] {
    const listed = new Set(names);
    for (const name of this.seen.keys()) if (!listed.has(name)) this.seen.delete(name);
    const now = this.now();
    const result: string[] = [];
    for (const name of names) {
      const owner = outboxOwner(name);
      if (!owner) continue;
      if (this.openHere(owner.stem)) {
        // Claims run start to end in one synchronous step, so a claimed file of ours seen here was left half-way.
        if (owner.claimed) result.push(name);
        continue;
      }
      const here = owner.host === this.host;
      if (here && (owner.pid === process.pid || !isAlive(owner.pid))) result.push(name);
      else if (this.silentFor(path.join(dir, name), name, now) >= this.staleMs) result.push(name);
    }
    return result;
  }

  /** How long the file has kept its modification time and size, as far as this process has watched it. */
  private silentFor(file: string, name: string, now: number): number {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch {
      this.seen.delete(name);
      return 0;
    }
    const last = this.seen.get(name);
    if (!last || last.mtimeMs !== stat.mtimeMs || last.size !== stat.size) {
      this.seen.set(name, { mtimeMs: stat.mtimeMs, size: stat.size, since: now });
      return 0;
    }
    return now - last.since;
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
