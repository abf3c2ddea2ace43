import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileLedger } from '../../src/usage/file-ledger.js';
import type { Ledger, UsageRecord } from '../../src/usage/ledger.js';
import { RedisLedger } from '../../src/usage/redis-ledger.js';
import { sliceUsage } from '../../src/usage/slice.js';
import { tempHome } from '../helpers/router.js';
import { unusedPort } from '../helpers/unused-port.js';
import { redisAvailable, startRedis, type RedisServer } from '../reliability/redis-process.js';
import { eventually } from '../reliability/support.js';

/** Once the ledger has reached Redis (a fresh connection answers from memory until then). */
const connected = (ledger: Ledger) => eventually(async () => ((await ledger.summary('alice', now)).requests === 2 ? true : undefined), 5_000, 'Redis to answer');

const now = Date.now();
const record = (id: string, developer: string, upstreamModel: string, costNanoUsd: number | undefined, tokens = 100): UsageRecord => ({
  ts: now,
  developer,
  inputTokens: tokens,
  outputTokens: tokens / 2,
  requests: 1,
  requestId: id,
  model: 'svc.intelligent-pro',
  backend: 'anth',
  upstreamModel,
  cacheReadTokens: 10,
  ...(costNanoUsd !== undefined ? { costNanoUsd } : {}),
});

/** Three priced requests and one without a price, from two developers. */
const RECORDS: UsageRecord[] = [
  record('r1', 'alice', 'claude-sonnet-4-5', 4_455_000),
  record('r2', 'alice', 'claude-sonnet-4-5', 4_455_000),
  record('r3', 'bob', 'gpt-4.1-mini', 250_000),
  record('r4', 'bob', 'house-model', undefined),
];

/** What every ledger must say after RECORDS, however it stored them. */
async function expectCarried(ledger: Ledger): Promise<void> {
  const alice = await ledger.summary('alice', now);
  expect(alice).toMatchObject({ requests: 2, costNanoUsd: 8_910_000, unpricedRequests: 0 });
  const bob = await ledger.summary('bob', now);
  expect(bob).toMatchObject({ requests: 2, costNanoUsd: 250_000, unpricedRequests: 1 });
  const report = sliceUsage(await ledger.breakdown(now), now);
  expect(report.totals).toMatchObject({ requests: 4, cost_usd: 0.00916, unpriced_requests: 1, total_tokens: 600 });
  expect(report.by_upstream_model.map((slice) => [slice.name, slice.cost_usd])).toEqual([
    ['anth:claude-sonnet-4-5', 0.00891],
    ['anth:gpt-4.1-mini', 0.00025],
    ['anth:house-model', null],
  ]);
}

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

describe.skipIf(!redisAvailable)('the Redis ledger carries cost', () => {
  let redis: RedisServer;
  let home: string;
  beforeAll(async () => {
    home = tempHome();
    redis = await startRedis(await unusedPort(), home);
  });
  afterAll(async () => {
    await redis?.kill();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('stores it with the tokens, once per request id, and a second router reads the same', async () => {
    const writer = new RedisLedger(redis.url, { outboxDir: path.join(home, 'outbox-a'), log: () => {} });
    for (const entry of RECORDS) writer.record(entry);
    // A replayed record (lost reply, outbox replay) is not counted twice.
    writer.record(RECORDS[0]!);
    await expectCarried(writer);
    await connected(writer);
    await expectCarried(writer);
    await writer.close();
    const reader = new RedisLedger(redis.url, { outboxDir: path.join(home, 'outbox-b'), log: () => {} });
    await connected(reader);
    await expectCarried(reader);
    await reader.close();
  });
});
