import { expect } from 'vitest';
import type { Ledger, UsageRecord } from '../../src/usage/ledger.js';
import { sliceUsage } from '../../src/usage/slice.js';

/** The records every ledger's cost test writes, and what each ledger must then say (file and Redis alike). */

export const now = Date.now();
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
export const RECORDS: UsageRecord[] = [
  record('r1', 'alice', 'claude-sonnet-4-5', 4_455_000),
  record('r2', 'alice', 'claude-sonnet-4-5', 4_455_000),
  record('r3', 'bob', 'gpt-4.1-mini', 250_000),
  record('r4', 'bob', 'house-model', undefined),
];

/** What every ledger must say after RECORDS, however it stored them. */
export async function expectCarried(ledger: Ledger): Promise<void> {
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
