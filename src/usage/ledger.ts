/** One completed request's tokens and cost, as recorded. */
export interface UsageRecord {
  /** Milliseconds since the epoch. */
  ts: number;
  developer: string;
  inputTokens: number;
  outputTokens: number;
  /** How many requests this record stands for (1, or more once records are compacted). */
  requests: number;
  requestId?: string;
  /** The model the client asked for (the SKU or a routed name such as `claude-sonnet-4-5`). */
  model?: string;
  backend?: string;
  /** The model name the upstream was asked for. */
  upstreamModel?: string;
  /** Input tokens read from, and written to, the upstream's prompt cache (part of inputTokens). */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** What the request cost in whole nano-dollars (1e-9 USD); absent when its price is not known. */
  costNanoUsd?: number;
}

/** A developer's usage over the rolling window. */
export interface UsageSummary {
  windowDays: number;
  /** Start of the window: midnight UTC, windowDays - 1 days before today. */
  windowStart: Date;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  requests: number;
  /** Cost of the requests whose price was known, in nano-dollars. */
  costNanoUsd: number;
  /** Requests with no known price: their cost is in no total. */
  unpricedRequests: number;
}

/** Usage of one developer, model and upstream on one UTC day: the rows `usage` slices and sums. */
export interface UsageRow {
  /** The UTC day, YYYY-MM-DD. */
  day: string;
  developer: string;
  /** The model the client asked for. */
  sku: string;
  backend: string;
  upstreamModel: string;
  inputTokens: number;
  outputTokens: number;
  requests: number;
  costNanoUsd: number;
  unpricedRequests: number;
}

export interface Ledger {
  /** Records one request's usage; never throws (a store that is down queues it). */
  record(entry: UsageRecord): void;
  summary(developer: string, now?: number): Promise<UsageSummary>;
  /** Every developer's usage over the window, by day, model and upstream. */
  breakdown(now?: number): Promise<UsageRow[]>;
  /** Writes whatever is still queued, then releases the store. */
  close(): Promise<void>;
}

export const WINDOW_DAYS = 30;
export const DAY_MS = 86_400_000;

/** The first UTC day (days since the epoch) of the window that ends today. */
export const firstWindowDay = (now: number): number => Math.floor(now / DAY_MS) - (WINDOW_DAYS - 1);

export const dayLabel = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);
