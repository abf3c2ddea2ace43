import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DailyBuckets } from '../../src/usage/daily-buckets.js';
import { DAY_MS, dayLabel, type UsageRecord } from '../../src/usage/ledger.js';

const NOW = Date.UTC(2026, 10, 24, 12);
/** Few values per dimension, so runs of one row, alternations and repeats all come up; names may hold any character. */
const name = fc.constantFrom('', 'a', 'b', 'a|b', '["a","b"]', 'ü', '\u0000');
const record = fc.record({
  ts: fc.integer({ min: NOW - 3 * DAY_MS, max: NOW }),
  developer: fc.constantFrom('dev', 'other'),
  inputTokens: fc.nat({ max: 1_000 }),
  outputTokens: fc.nat({ max: 1_000 }),
  requests: fc.constant(1),
  model: fc.option(name, { nil: undefined }),
  backend: fc.option(name, { nil: undefined }),
  upstreamModel: fc.option(name, { nil: undefined }),
  costNanoUsd: fc.option(fc.nat({ max: 10_000 }), { nil: undefined }),
});

describe('DailyBuckets', () => {
  it('sums every record into the row of its own day, developer, model, backend and upstream model', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 40 }), (records: UsageRecord[]) => {
        const buckets = new DailyBuckets();
        for (const entry of records) buckets.add(entry);
        // The same sums, grouped the plain way.
        const expected = new Map<string, { inputTokens: number; outputTokens: number; requests: number; costNanoUsd: number; unpricedRequests: number }>();
        for (const entry of records) {
          const key = JSON.stringify([dayLabel(Math.floor(entry.ts / DAY_MS)), entry.developer, entry.model ?? '', entry.backend ?? '', entry.upstreamModel ?? '']);
          const row = expected.get(key) ?? { inputTokens: 0, outputTokens: 0, requests: 0, costNanoUsd: 0, unpricedRequests: 0 };
          row.inputTokens += entry.inputTokens;
          row.outputTokens += entry.outputTokens;
          row.requests += entry.requests;
          if (entry.costNanoUsd === undefined) row.unpricedRequests += entry.requests;
          else row.costNanoUsd += entry.costNanoUsd;
          expected.set(key, row);
        }
        const rows = buckets.breakdown(NOW);
        expect(rows).toHaveLength(expected.size);
        for (const row of rows) {
          const { day, developer, sku, backend, upstreamModel, ...sums } = row;
          expect(sums).toEqual(expected.get(JSON.stringify([day, developer, sku, backend, upstreamModel])));
        }
      }),
      { numRuns: 500 },
    );
  });
});
