/** One completed request's tokens, as recorded. */
export interface UsageRecord {
  /** Milliseconds since the epoch. */
  ts: number;
  developer: string;
  inputTokens: number;
  outputTokens: number;
  /** How many requests this record stands for (1, or more once records are compacted). */
  requests: number;
  requestId?: string;
  model?: string;
  backend?: string;
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
}

export interface Ledger {
  /** Records one request's usage; never throws (a store that is down queues it). */
  record(entry: UsageRecord): void;
  summary(developer: string, now?: number): Promise<UsageSummary>;
  /** Writes whatever is still queued, then releases the store. */
  close(): Promise<void>;
}

export const WINDOW_DAYS = 30;
export const DAY_MS = 86_400_000;
