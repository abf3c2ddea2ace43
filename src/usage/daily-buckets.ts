import { DAY_MS, dayLabel, firstWindowDay, WINDOW_DAYS, type UsageRecord, type UsageRow, type UsageSummary } from './ledger.js';

export interface Bucket {
  inputTokens: number;
  outputTokens: number;
  requests: number;
  costNanoUsd: number;
  unpricedRequests: number;
}

const emptyBucket = (): Bucket => ({ inputTokens: 0, outputTokens: 0, requests: 0, costNanoUsd: 0, unpricedRequests: 0 });

function addTo(bucket: Bucket, entry: UsageRecord): void {
  bucket.inputTokens += entry.inputTokens;
  bucket.outputTokens += entry.outputTokens;
  bucket.requests += entry.requests;
  if (entry.costNanoUsd === undefined) bucket.unpricedRequests += entry.requests;
  else bucket.costNanoUsd += entry.costNanoUsd;
}

/** The dimensions a row is keyed by, as one string (JSON: a model name may hold any character). */
export const rowKey = (developer: string, sku: string, backend: string, upstreamModel: string): string => JSON.stringify([developer, sku, backend, upstreamModel]);

/**
 * Per-developer, per-UTC-day sums (what the 30-day window and the cap are computed from), and the
 * same sums by model and upstream (what `usage` slices).
 */
export class DailyBuckets {
  private readonly byDeveloper = new Map<string, Map<number, Bucket>>();
  /** day → row key → sums. */
  private readonly rows = new Map<number, Map<string, Bucket>>();
  /** The last row's dimensions and key: a router mostly serves the same few in a row, and this skips building the key. */
  private lastRow = { developer: '', sku: '', backend: '', upstreamModel: '', key: '' };

  add(entry: UsageRecord): void {
    let days = this.byDeveloper.get(entry.developer);
    if (!days) this.byDeveloper.set(entry.developer, (days = new Map()));
    const day = Math.floor(entry.ts / DAY_MS);
    let bucket = days.get(day);
    if (!bucket) days.set(day, (bucket = emptyBucket()));
    addTo(bucket, entry);
    let rows = this.rows.get(day);
    if (!rows) this.rows.set(day, (rows = new Map()));
    const key = this.rowKeyOf(entry.developer, entry.model ?? '', entry.backend ?? '', entry.upstreamModel ?? '');
    let row = rows.get(key);
    if (!row) rows.set(key, (row = emptyBucket()));
    addTo(row, entry);
  }

  private rowKeyOf(developer: string, sku: string, backend: string, upstreamModel: string): string {
    const last = this.lastRow;
    if (last.key !== '' && last.developer === developer && last.sku === sku && last.backend === backend && last.upstreamModel === upstreamModel) return last.key;
    const key = rowKey(developer, sku, backend, upstreamModel);
    this.lastRow = { developer, sku, backend, upstreamModel, key };
    return key;
  }

  /** A day's sums for a developer as a store already added them up (the Redis buckets). */
  addSums(developer: string, day: number, sums: Bucket): void {
    let days = this.byDeveloper.get(developer);
    if (!days) this.byDeveloper.set(developer, (days = new Map()));
    const bucket = days.get(day) ?? emptyBucket();
    days.set(day, bucket);
    for (const field of Object.keys(bucket) as Array<keyof Bucket>) bucket[field] += sums[field];
  }

  /** Input plus output tokens in the window: what the cap is checked against, on every request. */
  totalTokens(developer: string, now: number): number {
    const firstDay = firstWindowDay(now);
    let total = 0;
    for (const [day, bucket] of this.byDeveloper.get(developer) ?? []) if (day >= firstDay) total += bucket.inputTokens + bucket.outputTokens;
    return total;
  }

  summary(developer: string, now: number): UsageSummary {
    const firstDay = firstWindowDay(now);
    const summary: UsageSummary = {
      windowDays: WINDOW_DAYS,
      windowStart: new Date(firstDay * DAY_MS),
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
      requests: 0,
      costNanoUsd: 0,
      unpricedRequests: 0,
    };
    for (const [day, bucket] of this.byDeveloper.get(developer) ?? []) {
      if (day < firstDay) continue;
      summary.inputTokens += bucket.inputTokens;
      summary.outputTokens += bucket.outputTokens;
      summary.requests += bucket.requests;
      summary.costNanoUsd += bucket.costNanoUsd;
      summary.unpricedRequests += bucket.unpricedRequests;
    }
    summary.totalTokens = summary.inputTokens + summary.outputTokens;
    return summary;
  }

  breakdown(now: number): UsageRow[] {
    const firstDay = firstWindowDay(now);
    const result: UsageRow[] = [];
    for (const [day, rows] of this.rows) {
      if (day < firstDay) continue;
      for (const [key, sums] of rows) {
        const [developer, sku, backend, upstreamModel] = JSON.parse(key) as [string, string, string, string];
        result.push({ day: dayLabel(day), developer, sku, backend, upstreamModel, ...sums });
      }
    }
    return result.sort((a, b) => a.day.localeCompare(b.day));
  }
}
