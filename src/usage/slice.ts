import { DAY_MS, dayLabel, firstWindowDay, WINDOW_DAYS, type UsageRow } from './ledger.js';
import { usdOf } from './prices.js';

/** Usage summed over some slice of the window. */
export interface UsageTotals {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  requests: number;
  /** Dollars for the requests whose price was known; null when none of them had one. */
  cost_usd: number | null;
  /** Requests with no known price (in no cost). */
  unpriced_requests: number;
}

export interface UsageSlice extends UsageTotals {
  name: string;
}

/** What `GET /admin/usage` answers and `svc-router usage` prints. */
export interface UsageReport {
  object: 'usage';
  window_days: number;
  window_start: string;
  totals: UsageTotals;
  by_key: UsageSlice[];
  by_sku: UsageSlice[];
  by_upstream_model: UsageSlice[];
  /** Every day of the window, oldest first, empty days included. */
  by_day: UsageSlice[];
}

interface Sums {
  inputTokens: number;
  outputTokens: number;
  requests: number;
  costNanoUsd: number;
  unpricedRequests: number;
}

const zero = (): Sums => ({ inputTokens: 0, outputTokens: 0, requests: 0, costNanoUsd: 0, unpricedRequests: 0 });

function add(into: Sums, row: Sums): void {
  into.inputTokens += row.inputTokens;
  into.outputTokens += row.outputTokens;
  into.requests += row.requests;
  into.costNanoUsd += row.costNanoUsd;
  into.unpricedRequests += row.unpricedRequests;
}

function totals(sums: Sums): UsageTotals {
  return {
    input_tokens: sums.inputTokens,
    output_tokens: sums.outputTokens,
    total_tokens: sums.inputTokens + sums.outputTokens,
    requests: sums.requests,
    // Summed in whole nano-dollars, converted once: the total is the exact sum of the requests' costs.
    cost_usd: sums.requests > 0 && sums.unpricedRequests === sums.requests ? null : usdOf(sums.costNanoUsd),
    unpriced_requests: sums.unpricedRequests,
  };
}

/** Sums the rows by one dimension, largest first (by cost, then tokens). */
function by(rows: UsageRow[], name: (row: UsageRow) => string): UsageSlice[] {
  const groups = new Map<string, Sums>();
  for (const row of rows) {
    const key = name(row);
    const sums = groups.get(key) ?? zero();
    groups.set(key, sums);
    add(sums, row);
  }
  return [...groups]
    .map(([key, sums]) => ({ name: key, ...totals(sums) }))
    .sort((a, b) => (b.cost_usd ?? 0) - (a.cost_usd ?? 0) || b.total_tokens - a.total_tokens || a.name.localeCompare(b.name));
}

/** The window's usage by key (developer), SKU, upstream model (`BACKEND:MODEL`) and day. */
export function sliceUsage(rows: UsageRow[], now = Date.now()): UsageReport {
  const first = firstWindowDay(now);
  const inWindow = rows.filter((row) => row.day >= dayLabel(first));
  const all = zero();
  for (const row of inWindow) add(all, row);
  const days = new Map(by(inWindow, (row) => row.day).map((slice) => [slice.name, slice]));
  const byDay = Array.from({ length: WINDOW_DAYS }, (_, i) => {
    const label = dayLabel(first + i);
    return days.get(label) ?? { name: label, ...totals(zero()) };
  });
  return {
    object: 'usage',
    window_days: WINDOW_DAYS,
    window_start: new Date(first * DAY_MS).toISOString(),
    totals: totals(all),
    by_key: by(inWindow, (row) => row.developer),
    by_sku: by(inWindow, (row) => row.sku),
    by_upstream_model: by(inWindow, (row) => (row.upstreamModel ? `${row.backend}:${row.upstreamModel}` : row.backend)),
    by_day: byDay,
  };
}
