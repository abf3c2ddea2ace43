import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { FileLedger } from '../../src/usage/file-ledger.js';
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
        for (const ledger of [together, oneByOne]) ledger.record({ ts: Date.now(), developer: 'dev', inputTokens: usedBefore, outputTokens: 0, requests: 1 });
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
  it('shares their write, after their lines, and both count', async () => {
    const file = ledgerFile();
    const ledger = new FileLedger(file);
    const first = await ask(ledger, 'dev', 'first', { input: 10, output: 10 });
    expect(first.granted).toBe(true);
    const writes = vi.spyOn(fs, 'writeSync');
    let waiting: Promise<Reservation[]>;
    try {
      waiting = Promise.all([ask(ledger, 'dev', 'a', { input: 10, output: 90 }), ask(ledger, 'dev', 'b', { input: 10, output: 90 })]);
      ledger.record({ ts: Date.now(), developer: 'dev', inputTokens: 10, outputTokens: 5, requests: 1, requestId: 'first' });
      expect(writes).toHaveBeenCalledTimes(1);
    } finally {
      writes.mockRestore();
    }
    // Decided before the record settled 'first', so its 20 were still held.
    expect(await waiting).toEqual([
      { granted: true, tokens: 100, used: 0, reserved: 20 },
      { granted: true, tokens: 100, used: 0, reserved: 120 },
    ]);
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, { id?: string }> & { requestId?: string });
    expect(lines.map((line) => line.reserve?.id ?? line.requestId)).toEqual(['first', 'a', 'b', 'first']);
    // The record counts once (15 used); 'a' and 'b' still hold 200.
    expect(await ask(ledger, 'dev', 'c', { input: 10, output: 0 })).toMatchObject({ granted: true, used: 15, reserved: 200 });
    expect((await ledger.summary('dev')).totalTokens).toBe(15);
    await ledger.close();
  });
});
