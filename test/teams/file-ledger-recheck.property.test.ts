import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { FileLedger, reserveLine } from '../../src/usage/file-ledger.js';
import { worstTotal } from '../helpers/ledger-file-order.js';
import { tempHome } from '../helpers/router.js';

const CAP = 1_000;
const homes: string[] = [];
afterAll(() => {
  for (const home of homes) fs.rmSync(home, { recursive: true, force: true });
});

/**
 * Another process's reservation, on a line above ours (one below is that process's to recheck
 * against ours), and how it ends: settled or released on a line above ours or below it.
 */
const theirs = fc.record({
  tokens: fc.integer({ min: 1, max: 400 }),
  fate: fc.constantFrom('settled', 'released', 'held'),
  usedShare: fc.double({ min: 0, max: 1, noNaN: true }),
  fateBelow: fc.boolean(),
});

describe('file ledger: a reservation rechecked after other processes wrote around it', () => {
  it('is judged by the file as it stood at its own line, whatever lands above and below it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(theirs, { maxLength: 6 }), fc.integer({ min: 1, max: 600 }), fc.integer({ min: 1, max: 600 }), async (others, input, output) => {
        const home = tempHome();
        homes.push(home);
        const file = path.join(home, 'usage.jsonl');
        // Theirs fit the cap among themselves (a record never uses more than was held), so any overshoot is ours.
        const scale = Math.min(1, CAP / Math.max(1, others.reduce((sum, other) => sum + other.tokens, 0)));
        const lines = others.map((other, n) => {
          const id = `theirs-${n}`;
          const tokens = Math.max(1, Math.floor(other.tokens * scale));
          const reserve = reserveLine(id, { developer: 'dev', tokens, until: Date.now() + 60_000, seq: 0 });
          const end =
            other.fate === 'settled'
              ? `${JSON.stringify({ ts: Date.now(), developer: 'dev', inputTokens: Math.floor(tokens * other.usedShare), outputTokens: 0, requests: 1, requestId: id })}\n`
              : other.fate === 'released'
                ? `${JSON.stringify({ release: id })}\n`
                : '';
          return { reserve, end, endBelow: other.fateBelow };
        });
        // This process opens the file before any of theirs is written, so it decides first from nothing it knows.
        const ours = new FileLedger(file);
        const write = (text: string): void => fs.appendFileSync(file, text);
        write(lines.map((line) => line.reserve).join(''));
        write(lines.filter((line) => !line.endBelow).map((line) => line.end).join(''));
        const realWrite = fs.writeSync;
        let injected = false;
        const spy = vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, text: string, ...rest: unknown[]) => {
          const written = (realWrite as (...args: unknown[]) => number)(fd, text, ...rest);
          if (!injected && typeof text === 'string' && text.includes('"reserve"')) {
            // Theirs, appended between our write and our reading back.
            injected = true;
            write(lines.filter((line) => line.endBelow).map((line) => line.end).join(''));
          }
          return written;
        }) as typeof fs.writeSync);
        try {
          const reservation = await ours.reserve({ developer: 'dev', requestId: 'ours', capTokens: CAP, minimum: input, tokens: input + output, ttlMs: 60_000 });
          if (reservation.granted) expect(reservation.tokens).toBeGreaterThanOrEqual(input);
        } finally {
          spy.mockRestore();
          await ours.close();
        }
        expect(worstTotal(file).worst).toBeLessThanOrEqual(CAP);
      }),
      { numRuns: 300 },
    );
  });
});
