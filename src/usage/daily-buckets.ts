import { DAY_MS, WINDOW_DAYS, type UsageRecord, type UsageSummary } from './ledger.js';

interface Bucket {
  inputTokens: number;
  outputTokens: number;
  requests: number;
}

/** Per-developer, per-UTC-day token sums: what the 30-day window is computed from. */
export class DailyBuckets {
  private readonly byDeveloper = new Map<string, Map<number, Bucket>>();

  add(entry: UsageRecord): void {
    let days = this.byDeveloper.get(entry.developer);
    if (!days) this.byDeveloper.set(entry.developer, (days = new Map()));
    const day = Math.floor(entry.ts / DAY_MS);
    let bucket = days.get(day);
    if (!bucket) days.set(day, (bucket = { inputTokens: 0, outputTokens: 0, requests: 0 }));
    bucket.inputTokens += entry.inputTokens;
    bucket.outputTokens += entry.outputTokens;
    bucket.requests += entry.requests;
  }

  summary(developer: string, now: number): UsageSummary {
    const firstDay = Math.floor(now / DAY_MS) - (WINDOW_DAYS - 1);
    const summary: UsageSummary = {
      windowDays: WINDOW_DAYS,
      windowStart: new Date(firstDay * DAY_MS),
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
      requests: 0,
    };
    for (const [day, bucket] of this.byDeveloper.get(developer) ?? []) {
      if (day < firstDay) continue;
      summary.inputTokens += bucket.inputTokens;
      summary.outputTokens += bucket.outputTokens;
      summary.requests += bucket.requests;
    }
    summary.totalTokens = summary.inputTokens + summary.outputTokens;
    return summary;
  }
}
