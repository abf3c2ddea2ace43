import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { worstTotal } from '../helpers/ledger-file-order.js';
import { tempHome } from '../helpers/router.js';

const RACER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'file-ledger-racer.ts');
const PROCESSES = 4;
const ATTEMPTS = 400;
const CAP = 12_000;

const homes: string[] = [];
afterAll(() => {
  for (const home of homes) fs.rmSync(home, { recursive: true, force: true });
});

interface Racer {
  ready: Promise<void>;
  start(): void;
  result: Promise<{ granted: number; refused: number }>;
}

function racer(file: string, developer: string, seed: number): Racer {
  const child = spawn(process.execPath, ['--import', 'tsx', RACER, file, developer, String(CAP), String(ATTEMPTS), String(seed)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let onReady: () => void;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    if (out.startsWith('READY\n')) onReady();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const result = new Promise<{ granted: number; refused: number }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const done = /^DONE (.*)$/m.exec(out)?.[1];
      if (code === 0 && done) resolve(JSON.parse(done));
      else reject(new Error(`racer exited ${code}: ${err}`));
    });
  });
  return { ready: Promise.race([ready, result.then(() => undefined)]), start: () => void child.stdin.end('go'), result };
}

describe('the file ledger under processes racing for one cap', () => {
  it('never lets what is used and held pass the cap, in the order the file gives every process', async () => {
    const home = tempHome();
    homes.push(home);
    const file = path.join(home, 'usage.jsonl');
    fs.writeFileSync(file, '', { mode: 0o600 });
    const racers = Array.from({ length: PROCESSES }, (_, n) => racer(file, 'racing-dev', 1 + n));
    await Promise.all(racers.map((one) => one.ready));
    for (const one of racers) one.start();
    const results = await Promise.all(racers.map((one) => one.result));
    const { worst, reservations } = worstTotal(file);
    expect(results.reduce((sum, result) => sum + result.granted, 0)).toBeGreaterThan(0);
    expect(results.reduce((sum, result) => sum + result.refused, 0), 'the cap was reached').toBeGreaterThan(0);
    expect(reservations).toBeGreaterThanOrEqual(results.reduce((sum, result) => sum + result.granted, 0));
    expect(worst).toBeLessThanOrEqual(CAP);
    // Refusals come only near the cap: the cap ends nearly full.
    expect(worst).toBeGreaterThan(CAP - 50 * PROCESSES);
  }, 60_000);
});
