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

/** A request asking to hold part of its developer's cap before it is forwarded. */
export interface ReserveRequest {
  developer: string;
  requestId: string;
  capTokens: number;
  /** Must fit in what is left of the cap, or nothing is reserved: the request's estimated input. */
  minimum: number;
  /** What is reserved when it fits: estimated input plus max output. When less is left, what is left is reserved. */
  tokens: number;
  /** How long the reservation outlives a router that dies before settling it. */
  ttlMs: number;
  now?: number;
}

/** What a reservation found and took, decided in one atomic step against every router's usage and reservations. */
export interface Reservation {
  granted: boolean;
  /** Tokens now held for the request (0 when refused). */
  tokens: number;
  /** Tokens used in the window when it was decided. */
  used: number;
  /** Tokens held by other requests in flight when it was decided. */
  reserved: number;
}

export interface Ledger {
  /**
   * Records one request's usage. A record with a request id settles that request's reservation in
   * the same step, so the cap never sees both or neither. Records are written in batches, one per
   * turn of the event loop: a promise, when one is returned, resolves once this one is on disk
   * (the file ledger's file, the Redis ledger's outbox), and a reply must wait for it before it is
   * finished. It rejects only when the file ledger cannot write its file (a store that is down
   * queues the record instead).
   */
  record(entry: UsageRecord): void | Promise<void>;
  /** Holds part of the cap for a request in flight, atomically with every other router's reservations. */
  reserve(request: ReserveRequest): Promise<Reservation>;
  /** Gives back a reservation that no record will settle (the request failed before any usage). Never rejects; nothing need wait for it. */
  release(developer: string, requestId: string): Promise<void>;
  /**
   * The developer's usage over the window. `fresh`: everything any process has recorded so far
   * (/whoami, which a client reads right after its replies); without it a ledger may answer from a
   * view a few milliseconds old (the file ledger looks for other processes' lines every 25 ms).
   */
  summary(developer: string, now?: number, fresh?: boolean): Promise<UsageSummary>;
  /** Every developer's usage over the window, by day, model and upstream. */
  breakdown(now?: number): Promise<UsageRow[]>;
  /** Writes whatever is still queued, then releases the store. */
  close(): Promise<void>;
}

export const WINDOW_DAYS = 30;
export const DAY_MS = 86_400_000;

/** The reservation decision both ledgers make: refuse when the input does not fit, else hold what fits of the whole. */
export function decideReservation(request: ReserveRequest, used: number, reserved: number): Reservation {
  const left = request.capTokens - used - reserved;
  if (left <= 0 || request.minimum > left) return { granted: false, tokens: 0, used, reserved };
  return { granted: true, tokens: Math.min(Math.max(request.tokens, request.minimum), left), used, reserved };
}

/** The first UTC day (days since the epoch) of the window that ends today. */
export const firstWindowDay = (now: number): number => Math.floor(now / DAY_MS) - (WINDOW_DAYS - 1);

export const dayLabel = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);
