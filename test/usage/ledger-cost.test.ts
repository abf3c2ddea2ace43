import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileLedger } from '../../src/usage/file-ledger.js';
import { tempHome } from '../helpers/router.js';
import { expectCarried, RECORDS } from './ledger-cost-records.js';

describe('the file ledger carries cost', () => {
  it('writes it with the tokens, reads it back in a new process, and keeps "no price" apart from $0', async () => {
    const home = tempHome();
    const file = path.join(home, 'usage.jsonl');
    try {
      const writer = new FileLedger(file);
      for (const entry of RECORDS) writer.record(entry);
      await expectCarried(writer);
      await writer.close();
      const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
      expect(lines[0]).toMatchObject({ costNanoUsd: 4_455_000, upstreamModel: 'claude-sonnet-4-5', cacheReadTokens: 10 });
      expect(lines[3]).not.toHaveProperty('costNanoUsd');
      // A reader that starts afresh (another router, the CLI) sees the same.
      const reader = new FileLedger(file);
      await expectCarried(reader);
      await reader.close();
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
