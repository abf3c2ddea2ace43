import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * "Only one of us does this, once per period" (a notice sent), decided where the routers that must
 * agree can see it: in this process, in files every process on the machine sees, or (redis-state.ts)
 * in Redis.
 */
export interface OnceClaims {
  /** True for exactly one caller per name within any `ttlMs`; false for every other. */
  claim(name: string, ttlMs: number, now?: number): Promise<boolean>;
}

/** Names remembered at once, at most: past it the oldest claim is forgotten (and may be made again). */
const MEMORY_CAPACITY = 10_000;

/** This process's own claims. */
export class MemoryClaims implements OnceClaims {
  private readonly until = new Map<string, number>();

  async claim(name: string, ttlMs: number, now = Date.now()): Promise<boolean> {
    return this.claimNow(name, ttlMs, now);
  }

  claimNow(name: string, ttlMs: number, now = Date.now()): boolean {
    const held = this.until.get(name);
    if (held !== undefined && held > now) return false;
    this.until.delete(name);
    this.until.set(name, now + ttlMs);
    for (const [oldest, until] of this.until) {
      if (this.until.size <= MEMORY_CAPACITY && until > now) break;
      this.until.delete(oldest);
    }
    return true;
  }
}

/**
 * Claims every process sharing a directory agrees on (routers on one machine sharing the file
 * ledger's home), without a lock: a claim is a file created with O_EXCL, which exactly one process
 * can do. Its name is a hash of the claim's name and the period (`ttlMs`-long, counted from the
 * epoch) it was made in; a claim made in the previous period still holds while it is younger than
 * `ttlMs` (its modification time says when). So a name is claimed at most once in any `ttlMs`, and
 * at most two files per name exist. A directory that cannot be written falls back to this
 * process's own claims, and says so once.
 */
export class FileClaims implements OnceClaims {
  private readonly memory = new MemoryClaims();
  private warned = false;

  constructor(
    private readonly dir: string,
    private readonly report: (message: string) => void,
  ) {}

  async claim(name: string, ttlMs: number, now = Date.now()): Promise<boolean> {
    const hash = createHash('sha256').update(name).digest('hex').slice(0, 32);
    const period = Math.floor(now / ttlMs);
    const file = (p: number) => path.join(this.dir, `${hash}-${p}`);
    try {
      await fs.promises.mkdir(this.dir, { recursive: true, mode: 0o700 });
      const previous = await fs.promises.stat(file(period - 1)).catch(() => undefined);
      if (previous && now - previous.mtimeMs < ttlMs) return false;
      const handle = await fs.promises.open(file(period), 'wx', 0o600).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'EEXIST') return undefined;
        throw error;
      });
      if (!handle) return false;
      await handle.close();
      // Older periods can no longer decide anything.
      await fs.promises.rm(file(period - 2), { force: true });
      return true;
    } catch (error) {
      if (!this.warned) {
        this.warned = true;
        this.report(`cannot keep notice claims in ${this.dir} (${(error as NodeJS.ErrnoException).code ?? 'error'}); each process decides on its own`);
      }
      return this.memory.claimNow(name, ttlMs, now);
    }
  }
}
