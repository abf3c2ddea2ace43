/**
 * `npx tsx bench/ledger-cost.ts [--leases] [SRC_DIR]`: what the file ledger costs a request in-process: one
 * reservation and its record, over 60,000 of them, as a router makes them when `concurrency`
 * requests are in flight (that many reservations asked in one turn of the event loop, while the
 * previous turn's requests are recorded). CPU and wall time per reservation+record, and the
 * write(2) and fstat(2) calls per request, median of five rounds. SRC_DIR (default: this tree's
 * src/) lets the same measure run against another build's sources, for a before/after pair;
 * `--leases` opens the ledger with leases (docs/teams.md).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const leases = args.includes('--leases');
const source = path.resolve(args.find((arg) => arg !== '--leases') ?? path.join(ROOT, 'src'));
const { FileLedger } = (await import(pathToFileURL(path.join(source, 'usage', 'file-ledger.ts')).href)) as typeof import('../src/usage/file-ledger.js');

const REQUESTS = 60_000;
const ROUNDS = 5;

interface Round {
  cpuMicroseconds: number;
  wallMicroseconds: number;
  writes: number;
  fstats: number;
}

async function round(concurrency: number): Promise<Round> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-cost-'));
  const ledger = new (FileLedger as unknown as new (file: string, report: undefined, options: { leases: boolean }) => InstanceType<typeof FileLedger>)(path.join(dir, 'usage.jsonl'), undefined, { leases });
  const writeSync = fs.writeSync;
  const fstatSync = fs.fstatSync;
  let writes = 0;
  let fstats = 0;
  // Counted by wrapping the calls the ledger makes (the module's own fs is this one).
  fs.writeSync = ((...args: Parameters<typeof fs.writeSync>) => (writes++, (writeSync as (...a: unknown[]) => number)(...args))) as typeof fs.writeSync;
  fs.fstatSync = ((...args: Parameters<typeof fs.fstatSync>) => (fstats++, (fstatSync as (...a: unknown[]) => fs.Stats)(...args))) as typeof fs.fstatSync;
  const cpu = process.cpuUsage();
  const started = performance.now();
  try {
    let previous: string[] = [];
    for (let n = 0; n < REQUESTS; ) {
      const asked: Array<Promise<unknown>> = [];
      const ids: string[] = [];
      for (let i = 0; i < concurrency && n < REQUESTS; i++, n++) {
        const requestId = `req_${n}`;
        ids.push(requestId);
        asked.push(ledger.reserve({ developer: 'dev', requestId, capTokens: 1e15, minimum: 20, tokens: 4_116, ttlMs: 600_000 }));
      }
      // The previous turn's requests finish while these wait: their records share the turn.
      for (const requestId of previous) {
        asked.push(Promise.resolve(ledger.record({ ts: Date.now(), developer: 'dev', inputTokens: 20, outputTokens: 30, requests: 1, requestId, model: 'svc.intelligent-pro', backend: 'openai', upstreamModel: 'gpt-4.1' })));
      }
      await Promise.all(asked);
      previous = ids;
    }
    for (const requestId of previous) await ledger.record({ ts: Date.now(), developer: 'dev', inputTokens: 20, outputTokens: 30, requests: 1, requestId });
  } finally {
    fs.writeSync = writeSync;
    fs.fstatSync = fstatSync;
  }
  const used = process.cpuUsage(cpu);
  const wall = performance.now() - started;
  await ledger.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return { cpuMicroseconds: (used.user + used.system) / REQUESTS, wallMicroseconds: (wall * 1000) / REQUESTS, writes: writes / REQUESTS, fstats: fstats / REQUESTS };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

console.log(`file ledger${leases ? ' with leases' : ''}, ${REQUESTS} reservations + records per round, median of ${ROUNDS} rounds (${path.relative(process.cwd(), source) || '.'})`);
console.log('concurrency  cpu µs/req  wall µs/req  writes/req  fstats/req');
for (const concurrency of [1, 4, 16, 64]) {
  const rounds: Round[] = [];
  for (let r = 0; r < ROUNDS; r++) rounds.push(await round(concurrency));
  const cell = (pick: (round: Round) => number, digits: number) => median(rounds.map(pick)).toFixed(digits).padStart(11);
  console.log(`${String(concurrency).padStart(11)} ${cell((r) => r.cpuMicroseconds, 2)} ${cell((r) => r.wallMicroseconds, 2)} ${cell((r) => r.writes, 3)} ${cell((r) => r.fstats, 3)}`);
}
