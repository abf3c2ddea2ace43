/**
 * One process racing others for one developer's cap on a shared ledger file:
 * `node --import tsx file-ledger-racer.ts FILE DEVELOPER CAP ATTEMPTS SEED`. Each granted
 * reservation is settled by a record (at most what was granted), released, or left held.
 * Reservations are asked for in small bursts. Starts on the first byte of standard input, so every racer starts at once. Prints one JSON
 * line: how many reservations were granted and refused.
 */
import { FileLedger } from '../../src/usage/file-ledger.js';

const [file, developer, capArg, attemptsArg, seedArg] = process.argv.slice(2) as [string, string, string, string, string];
const ledger = new FileLedger(file);
let seed = Number(seedArg);
/** A small deterministic generator, so a failing run can be replayed. */
const random = (): number => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);

process.stdout.write('READY\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
process.stdin.destroy();

let granted = 0;
let refused = 0;
// Reservations go in bursts of 1 to 4 asked at once, as a busy router's are: decided together in
// one write, and rechecked together when another racer wrote in between. The previous burst's
// requests are settled while the next one waits, so their records share its write.
let previous: Array<{ requestId: string; input: number; tokens: number }> = [];
for (let n = 0; n < Number(attemptsArg) || previous.length; ) {
  const burst = Math.min(1 + Math.floor(random() * 4), Number(attemptsArg) - n);
  const asks = Array.from({ length: burst }, () => {
    const requestId = `${process.pid}-${n++}`;
    const input = 1 + Math.floor(random() * 20);
    return { requestId, input, reservation: ledger.reserve({ developer, requestId, capTokens: Number(capArg), minimum: input, tokens: input + Math.floor(random() * 30), ttlMs: 600_000 }) };
  });
  for (const { requestId, input, tokens } of previous) {
    const fate = random();
    if (fate < 0.5) {
      const used = input + Math.floor(random() * (tokens - input + 1));
      ledger.record({ ts: Date.now(), developer, inputTokens: input, outputTokens: used - input, requests: 1, requestId });
    } else if (fate < 0.7) {
      await ledger.release(developer, requestId);
    }
  }
  previous = [];
  for (const { requestId, input, reservation: asked } of asks) {
    const reservation = await asked;
    if (!reservation.granted) {
      refused++;
      continue;
    }
    granted++;
    previous.push({ requestId, input, tokens: reservation.tokens });
  }
}
await ledger.close();
process.stdout.write(`DONE ${JSON.stringify({ granted, refused })}\n`);
