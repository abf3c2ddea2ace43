import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { FileLedger, reserveLine } from '../../src/usage/file-ledger.js';
import type { Reservation } from '../../src/usage/ledger.js';
import { tempHome } from '../helpers/router.js';

const CAP = 1_000;
const homes: string[] = [];
afterAll(() => {
  for (const home of homes) fs.rmSync(home, { recursive: true, force: true });
});

function ledgerFile(): string {
  const home = tempHome();
  homes.push(home);
  return path.join(home, 'usage.jsonl');
}

interface Ask {
  input: number;
  output: number;
}

const ask = (ledger: FileLedger, developer: string, id: string, { input, output }: Ask): Promise<Reservation> =>
  ledger.reserve({ developer, requestId: id, capTokens: CAP, minimum: input, tokens: input + output, ttlMs: 60_000 });

describe('file ledger: reservations asked in one turn of the event loop', () => {
  it('are decided as if asked one after another, and written with one write', async () => {
    const asks = fc.array(fc.record({ input: fc.integer({ min: 1, max: 300 }), output: fc.integer({ min: 0, max: 300 }) }), { minLength: 1, maxLength: 12 });
    // Usage already recorded before the burst, so some asks are cut short or refused.
    await fc.assert(
      fc.asyncProperty(asks, fc.integer({ min: 0, max: CAP }), async (burst, usedBefore) => {
        const together = new FileLedger(ledgerFile());
        const oneByOne = new FileLedger(ledgerFile());
        for (const ledger of [together, oneByOne]) await ledger.record({ ts: Date.now(), developer: 'dev', inputTokens: usedBefore, outputTokens: 0, requests: 1 });
        const writes = vi.spyOn(fs, 'writeSync');
        let batched: Reservation[];
        try {
          batched = await Promise.all(burst.map((one, n) => ask(together, 'dev', `r${n}`, one)));
          // Only the granted ones are written, all in one write (none when every one is refused).
          expect(writes).toHaveBeenCalledTimes(batched.some((reservation) => reservation.granted) ? 1 : 0);
        } finally {
          writes.mockRestore();
        }
        const sequential: Reservation[] = [];
        for (const [n, one] of burst.entries()) sequential.push(await ask(oneByOne, 'dev', `r${n}`, one));
        expect(batched).toEqual(sequential);
        // What was granted fits under the cap beside what was used.
        const held = batched.reduce((sum, reservation) => sum + reservation.tokens, 0);
        expect(usedBefore + held).toBeLessThanOrEqual(Math.max(CAP, usedBefore));
        await together.close();
        await oneByOne.close();
      }),
      { numRuns: 60 },
    );
  });

  it('are all refused, and none left held, when the file cannot be written', async () => {
    const ledger = new FileLedger(ledgerFile());
    const writes = vi.spyOn(fs, 'writeSync').mockImplementation(() => {
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    });
    try {
      const results = await Promise.allSettled([ask(ledger, 'dev', 'a', { input: 10, output: 10 }), ask(ledger, 'dev', 'b', { input: 10, output: 10 })]);
      expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    } finally {
      writes.mockRestore();
    }
    // Nothing of the failed burst is counted as held: a later ask may take the whole cap.
    const after = await ask(ledger, 'dev', 'c', { input: CAP, output: 0 });
    expect(after).toMatchObject({ granted: true, tokens: CAP, reserved: 0 });
    await ledger.close();
  });
});

describe('file ledger: a record made while reservations wait for their write', () => {
  it('shares their write, ahead of their lines, and they are decided with it counted', async () => {
    const file = ledgerFile();
    const ledger = new FileLedger(file);
    const first = await ask(ledger, 'dev', 'first', { input: 10, output: 10 });
    expect(first.granted).toBe(true);
    const writes = vi.spyOn(fs, 'writeSync');
    let decided: Reservation[];
    try {
      const waiting = Promise.all([ask(ledger, 'dev', 'a', { input: 10, output: 90 }), ask(ledger, 'dev', 'b', { input: 10, output: 90 })]);
      const written = ledger.record({ ts: Date.now(), developer: 'dev', inputTokens: 10, outputTokens: 5, requests: 1, requestId: 'first' });
      // Nothing is written before the turn ends; then the record and both reservations go in one write.
      expect(writes).toHaveBeenCalledTimes(0);
      decided = await waiting;
      await written;
      expect(writes).toHaveBeenCalledTimes(1);
    } finally {
      writes.mockRestore();
    }
    // The record settled 'first' (15 used, its 20 no longer held) before 'a' and 'b' were decided.
    expect(decided).toEqual([
      { granted: true, tokens: 100, used: 15, reserved: 0 },
      { granted: true, tokens: 100, used: 15, reserved: 100 },
    ]);
    // In the file too, so every process replays the same decisions.
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, { id?: string }> & { requestId?: string });
    expect(lines.map((line) => (line.reserve ? `reserve ${line.reserve.id}` : `record ${line.requestId}`))).toEqual(['reserve first', 'record first', 'reserve a', 'reserve b']);
    // The record counts once; 'a' and 'b' still hold 200.
    expect(await ask(ledger, 'dev', 'c', { input: 10, output: 0 })).toMatchObject({ granted: true, used: 15, reserved: 200 });
    expect((await ledger.summary('dev')).totalTokens).toBe(15);
    await ledger.close();
  });
});

describe('file ledger: a record whose reservation has lapsed, made while reservations wait', () => {
  it('adds its usage but releases nothing: the lapsed reservation was no longer held', async () => {
    const ledger = new FileLedger(ledgerFile());
    // Asked long ago with a short time-to-live: lapsed by now.
    const old = await ledger.reserve({ developer: 'dev', requestId: 'old', capTokens: CAP, minimum: 10, tokens: 400, ttlMs: 1_000, now: Date.now() - 60_000 });
    expect(old.granted).toBe(true);
    const waiting = Promise.all([ask(ledger, 'dev', 'a', { input: 10, output: 90 }), ask(ledger, 'dev', 'b', { input: 10, output: 90 })]);
    ledger.record({ ts: Date.now(), developer: 'dev', inputTokens: 10, outputTokens: 20, requests: 1, requestId: 'old' });
    expect(await waiting).toEqual([
      { granted: true, tokens: 100, used: 30, reserved: 0 },
      { granted: true, tokens: 100, used: 30, reserved: 100 },
    ]);
    await ledger.close();
  });
});

describe('a reservation line', () => {
  it('is the JSON of its object, whatever the id, developer and numbers', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), fc.double(), fc.double(), (id, developer, tokens, until) => {
        const held = { developer, tokens, until, seq: 0 };
        expect(reserveLine(id, held)).toBe(`${JSON.stringify({ reserve: { id, developer, tokens, until } })}\n`);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('file ledger: records, releases and reservations made in one turn of the event loop', () => {
  it('share one write, and a record is answered only once that write is done', async () => {
    const turns = fc.array(
      fc.record({ records: fc.integer({ min: 0, max: 8 }), releases: fc.integer({ min: 0, max: 3 }), reserves: fc.integer({ min: 0, max: 5 }) }),
      { minLength: 1, maxLength: 6 },
    );
    await fc.assert(
      fc.asyncProperty(turns, async (plan) => {
        const file = ledgerFile();
        const ledger = new FileLedger(file);
        // Reservations to settle and release later, made (and written) beforehand.
        const open: string[] = [];
        for (let n = 0; n < 30; n++) {
          open.push(`held-${n}`);
          expect((await ask(ledger, 'dev', `held-${n}`, { input: 1, output: 1 })).granted).toBe(true);
        }
        const writes = vi.spyOn(fs, 'writeSync');
        try {
          for (const [turn, { records, releases, reserves }] of plan.entries()) {
            writes.mockClear();
            const lines = () => fs.readFileSync(file, 'utf8').split('\n').length;
            const before = lines();
            const recorded = Array.from({ length: records }, () => {
              const id = open.pop();
              const written = ledger.record({ ts: Date.now(), developer: 'dev', inputTokens: 1, outputTokens: 1, requests: 1, ...(id ? { requestId: id } : {}) });
              // Resolves only after the turn's write: by then the line is in the file.
              return Promise.resolve(written).then(() => lines());
            });
            let released = 0;
            for (let n = 0; n < releases; n++) {
              const id = open.pop();
              if (id) void ledger.release('dev', id).then(() => released++);
            }
            const reserved = Array.from({ length: reserves }, (_, n) => ask(ledger, 'dev', `turn-${turn}-${n}`, { input: 1, output: 1 }));
            expect(writes).toHaveBeenCalledTimes(0);
            const seen = await Promise.all(recorded);
            await Promise.all(reserved);
            // Releases alone have nothing to wait on: the turn's end (scheduled before this) has written them.
            await new Promise((resolve) => setImmediate(resolve));
            // At most one write; exactly one when a line had to go out (asks a lease admits write nothing).
            expect(writes.mock.calls.length).toBeLessThanOrEqual(1);
            if (records + released > 0) expect(writes).toHaveBeenCalledTimes(1);
            for (const count of seen) expect(count).toBeGreaterThan(before);
          }
        } finally {
          writes.mockRestore();
          await ledger.close();
        }
      }),
      { numRuns: 40 },
    );
  });
});
