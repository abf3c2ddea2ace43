import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { UsageRecord } from '../../src/usage/ledger.js';
import { Outbox } from '../../src/usage/outbox.js';

const STALE = 1_000;
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-router-outbox-'));
  roots.push(dir);
  return dir;
}

const record = (id: string): UsageRecord => ({ ts: Date.now(), developer: 'dev', inputTokens: 3, outputTokens: 4, requests: 1, requestId: id });
const lines = (records: UsageRecord[]): string => records.map((entry) => `${JSON.stringify(entry)}\n`).join('');
const idsIn = (file: string): string[] =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line).requestId);

/** A pid that no process has: one of a child that has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid!;
}

describe('Outbox: which outboxes of a shared directory are taken over', () => {
  // Owners no pid check can clear: another host's router, and a live pid on this host (it may have
  // been reused by another process after the router that wrote the file died).
  const owners = [
    { what: 'a router on another host', stem: () => `far-host.example-4242-${'ab'.repeat(6)}` },
    { what: 'a live pid on this host', stem: () => `${os.hostname()}-${process.ppid}-${'cd'.repeat(6)}` },
  ];
  for (const owner of owners) {
    it(`takes the file of ${owner.what} exactly when it has stayed unchanged for the stale time on this router's clock`, () => {
      const step = fc.record({ advance: fc.integer({ min: 0, max: STALE * 1.5 }), touch: fc.boolean(), sweep: fc.boolean() });
      fc.assert(
        fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
          const dir = tempDir();
          const file = path.join(dir, `${owner.stem()}.jsonl`);
          fs.writeFileSync(file, lines([record('req_a'), record('req_b')]));
          let clock = 0;
          const outbox = new Outbox(dir, { staleMs: STALE, now: () => clock });
          let touches = 0;
          // The model: a sweep that sees the file changed (or sees it first) restarts its silence.
          let seenChangeAt: number | undefined;
          let changedSinceSeen = true;
          let taken: UsageRecord[] = [];
          try {
            for (const { advance, touch, sweep } of [...steps, { advance: STALE, touch: false, sweep: true }, { advance: STALE, touch: false, sweep: true }]) {
              clock += advance;
              if (touch && fs.existsSync(file)) {
                // A live owner's sign of life: a new modification time (whole seconds, as coarse filesystems keep).
                fs.utimesSync(file, 1_000_000 + ++touches, 1_000_000 + touches);
                changedSinceSeen = true;
              }
              if (!sweep) continue;
              const expectTaken = fs.existsSync(file) && !changedSinceSeen && seenChangeAt !== undefined && clock - seenChangeAt >= STALE;
              if (fs.existsSync(file) && changedSinceSeen) {
                seenChangeAt = clock;
                changedSinceSeen = false;
              }
              const claimed = outbox.claimOrphans();
              expect(claimed.length > 0).toBe(expectTaken);
              taken = taken.concat(claimed);
            }
            // Taken once, in the end, in full; and kept in the taker's own outbox until Redis has it.
            expect(taken.map((entry) => entry.requestId)).toEqual(['req_a', 'req_b']);
            expect(fs.existsSync(file)).toBe(false);
            expect(idsIn(outbox.file)).toEqual(['req_a', 'req_b']);
          } finally {
            outbox.close(true);
          }
        }),
        { numRuns: 60 },
      );
    });
  }

  it('takes the file of a dead pid on this host at the first sweep, and leaves a live router of this process alone', () => {
    const dir = tempDir();
    const dead = path.join(dir, `${os.hostname()}-${deadPid()}-${'ef'.repeat(6)}.jsonl`);
    fs.writeFileSync(dead, lines([record('req_dead')]));
    const live = new Outbox(dir);
    live.append([record('req_live')]);
    const taker = new Outbox(dir);
    try {
      expect(taker.claimOrphans().map((entry) => entry.requestId)).toEqual(['req_dead']);
      expect(fs.existsSync(dead)).toBe(false);
      expect(idsIn(live.file)).toEqual(['req_live']);
      expect(taker.claimOrphans()).toEqual([]);
    } finally {
      live.close(true);
      taker.close(true);
    }
  });

  it('leaves the file of a router that touches it at every sweep, however long it runs', () => {
    const dir = tempDir();
    let clock = 0;
    const watcher = new Outbox(dir, { staleMs: STALE, now: () => clock });
    const far = path.join(dir, `far-host-77-${'12'.repeat(6)}.jsonl`);
    fs.writeFileSync(far, lines([record('req_far')]));
    try {
      for (let sweep = 0; sweep < 10; sweep++) {
        // What keepAlive does on the other host: a new modification time each sweep.
        fs.utimesSync(far, 2_000_000 + sweep, 2_000_000 + sweep);
        expect(watcher.claimOrphans()).toEqual([]);
        clock += STALE - 1;
      }
      expect(idsIn(far)).toEqual(['req_far']);
    } finally {
      watcher.close(true);
    }
  });
});

describe('Outbox.keepAlive', () => {
  it('touches its own file, so routers that cannot check its pid see it alive', () => {
    const dir = tempDir();
    const outbox = new Outbox(dir);
    try {
      fs.utimesSync(outbox.file, 1, 1);
      expect(outbox.keepAlive([])).toBe(false);
      expect(fs.statSync(outbox.file).mtimeMs).toBeGreaterThan(Date.now() - 60_000);
    } finally {
      outbox.close(true);
    }
  });

  it('writes what it still queues to a new file when another router judged it stopped and took its own', () => {
    const dir = tempDir();
    const outbox = new Outbox(dir);
    try {
      const pending = [record('req_1'), record('req_2')];
      outbox.append(pending);
      // What a router that judged this one stopped does first: the file moves to a name of its own.
      fs.renameSync(outbox.file, path.join(dir, `far-host-9-${'34'.repeat(6)}.claimed-1.jsonl`));
      expect(outbox.keepAlive(pending)).toBe(true);
      expect(idsIn(outbox.file)).toEqual(['req_1', 'req_2']);
      // Records queued from now on land in the new file; a kill loses none of them.
      outbox.append([record('req_3')]);
      expect(idsIn(outbox.file)).toEqual(['req_1', 'req_2', 'req_3']);
      expect(outbox.keepAlive([])).toBe(false);
      // A file removed outright (the taker finished) is noticed too.
      fs.rmSync(outbox.file);
      expect(outbox.keepAlive([record('req_4')])).toBe(true);
      expect(idsIn(outbox.file)).toEqual(['req_4']);
    } finally {
      outbox.close(true);
    }
  });
});
