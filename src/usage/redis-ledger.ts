import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { Redis } from 'ioredis';
import { closeRedisClient, createRedisClient, throughSentinels } from '../core/redis-client.js';
import { DailyBuckets, rowKey } from './daily-buckets.js';
import { DAY_MS, dayLabel, decideReservation, firstWindowDay, WINDOW_DAYS, type Ledger, type Reservation, type ReserveRequest, type UsageRecord, type UsageRow, type UsageSummary } from './ledger.js';
import { Outbox, type OutboxOptions } from './outbox.js';
import { ReplicaConfirmations } from './replica-confirmations.js';

/** Records kept in memory while Redis is unreachable; past this the oldest are dropped, and said so. */
const MAX_QUEUED = 100_000;
/** A day's bucket outlives the 30-day window by a day, then Redis drops it. */
const BUCKET_TTL_SECONDS = (WINDOW_DAYS + 1) * 86_400;
const KEY_PREFIX = 'svc-router:usage';
/** One hash per UTC day: the day's sums by developer, model and upstream (what `usage` slices). */
const ROWS_PREFIX = 'svc-router:usage-rows';
/** Marks a request id as counted, for as long as its bucket can still be in the window. */
const APPLIED_PREFIX = 'svc-router:applied';
/** Records written per Redis call. */
const BATCH = 500;
/** How long a summary waits for Redis before answering from memory (a healthy Redis takes a few ms). */
export const READ_TIMEOUT_MS = 1_000;
/** How long closing waits for queued usage to be written. */
const CLOSE_TIMEOUT_MS = 2_000;
/**
 * How often a router sweeps the outbox directory, off the request path: it touches its own file,
 * takes over the files of stopped routers and writes whatever it still queues. A router killed
 * on this host has its usage in Redis within about this long; one sweep is a directory listing
 * and a few stat calls.
 */
const SWEEP_MS = 2_000;

/** A developer's reservations in flight: request id → tokens held, and request id → when it lapses. */
const RESERVED_PREFIX = 'svc-router:reserved';

const bucketKey = (developer: string, day: number): string => `${KEY_PREFIX}:${developer}:${day}`;
const rowsKey = (day: number): string => `${ROWS_PREFIX}:${day}`;
/** The fields of a bucket, and the suffixes of a row's fields in the day's rows hash. */
const SUMS = ['in', 'out', 'n', 'cost', 'unpriced'] as const;
export const appliedKey = (requestId: string): string => `${APPLIED_PREFIX}:${requestId}`;
const reservedKey = (developer: string): string => `${RESERVED_PREFIX}:${developer}`;
const reservedUntilKey = (developer: string): string => `${RESERVED_PREFIX}-until:${developer}`;

/**
 * Applies a batch of records, each at most once: a record's increments happen only if its request
 * id is not yet marked, and the mark is set in the same atomic step. A write whose reply was lost
 * (Redis killed after applying it, a connection reset) can therefore be sent again safely. The
 * record settles its request's reservation in the same step, so no reader sees both or neither.
 * KEYS: mark, bucket, day's rows, reserved, reserved-until per record; ARGV: ttl, then in, out, n,
 * cost (nano-dollars), unpriced, row field, request id per record. Returns how many applied.
 */
const APPLY_ONCE = `
local ttl = ARGV[1]
local applied = 0
local names = {'in', 'out', 'n', 'cost', 'unpriced'}
for i = 1, #KEYS, 5 do
  local at = 2 + (i - 1) / 5 * 7
  if redis.call('SET', KEYS[i], '1', 'NX', 'EX', ttl) then
    local bucket = KEYS[i + 1]
    local rows = KEYS[i + 2]
    local row = ARGV[at + 5]
    for k = 1, 5 do
      redis.call('HINCRBY', bucket, names[k], ARGV[at + k - 1])
      redis.call('HINCRBY', rows, row .. '|' .. names[k], ARGV[at + k - 1])
    end
    redis.call('EXPIRE', bucket, ttl)
    redis.call('EXPIRE', rows, ttl)
    applied = applied + 1
  end
  redis.call('HDEL', KEYS[i + 3], ARGV[at + 6])
  redis.call('ZREM', KEYS[i + 4], ARGV[at + 6])
end
return applied
`;

/**
 * Reserves part of a developer's cap for one request, against every router's usage and live
 * reservations, in one atomic step; lapsed reservations (a router died) are dropped first.
 * KEYS: reserved, reserved-until, then the window's day buckets; ARGV: now, cap, minimum, tokens,
 * request id, lapse time, key ttl ms. Returns { granted (0/1), tokens, used, reserved }.
 */
const RESERVE = `
local now = tonumber(ARGV[1])
local lapsed = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
for _, id in ipairs(lapsed) do redis.call('HDEL', KEYS[1], id) end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local used = 0
for i = 3, #KEYS do
  local v = redis.call('HMGET', KEYS[i], 'in', 'out')
  used = used + (tonumber(v[1]) or 0) + (tonumber(v[2]) or 0)
end
local reserved = 0
for _, v in ipairs(redis.call('HVALS', KEYS[1])) do reserved = reserved + (tonumber(v) or 0) end
local left = tonumber(ARGV[2]) - used - reserved
local minimum = tonumber(ARGV[3])
if left <= 0 or minimum > left then return {0, 0, used, reserved} end
local grant = math.min(math.max(tonumber(ARGV[4]), minimum), left)
redis.call('HSET', KEYS[1], ARGV[5], grant)
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
return {1, grant, used, reserved}
`;

interface AskedHere {
  request: ReserveRequest;
  now: number;
  resolve(reservation: Reservation): void;
}

type ApplyOnce = Redis & {
  applyUsageOnce(...args: Array<string | number>): Promise<number>;
  reserveCap(...args: Array<string | number>): Promise<[number, number, number, number]>;
};

export interface RedisLedgerOptions {
  /**
   * Directory of outbox files: records are written there as they are queued and replayed after a
   * crash. Without it, queued records live only in memory.
   */
  outboxDir?: string;
  /** Options of the outbox (tests shorten how long another host's file must stay silent). */
  outbox?: OutboxOptions;
  log?: (message: string) => void;
}

/**
 * The shared ledger: per-developer, per-UTC-day token buckets in Redis, updated atomically and at
 * most once per request id, so several routers report one usage and enforce one cap. When Redis is
 * down the router keeps serving: records queue in memory (bounded) and in an outbox file, summaries
 * fall back to what this process last saw plus its queue, and the queue is written as soon as
 * Redis is back. If this router is killed first, a running router sharing the outbox directory
 * takes its outbox over at its next sweep (or the next router to start does) and writes it.
 */
export class RedisLedger implements Ledger {
  private readonly redis: Redis;
  private readonly queue: UsageRecord[] = [];
  /** What this process knows without Redis: last summaries read, plus records not yet written. */
  private readonly lastSeen = new Map<string, UsageSummary>();
  private flushing: Promise<void> | undefined;
  private readonly reads = new Map<string, Promise<UsageSummary | undefined>>();
  private warned = false;
  /** Shared by every read that arrives while the first connection is still being made. */
  private connecting: Promise<void> | undefined;
  private readonly outbox: Outbox | undefined;
  /** Records a primary applied that no replica has confirmed yet (through sentinels only). */
  private readonly confirmations: ReplicaConfirmations;
  private readonly log: (message: string) => void;
  /** Reservations decided here while Redis was unreachable. */
  private readonly heldHere = new Map<string, { developer: string; tokens: number; until: number }>();
  private readonly sweeper: NodeJS.Timeout;
  /** This turn's records, waiting for its one outbox write, and what their callers wait on. */
  private waitingOutbox: UsageRecord[] = [];
  private turn: { promise: Promise<void>; resolve(): void } | undefined;
  /** Reservations asked for in this turn, sent to Redis together. */
  private asked: AskedHere[] = [];

  constructor(url: string, options: RedisLedgerOptions = {}) {
    this.log = options.log ?? ((message) => process.stderr.write(`svc-router: ${message}\n`));
    if (options.outboxDir) {
      try {
        this.outbox = new Outbox(options.outboxDir, options.outbox);
      } catch (error) {
        this.log(`cannot keep queued usage in ${options.outboxDir} (${(error as Error).message}); it is kept in memory only.`);
      }
      this.takeOverOrphans();
    }
    // Loaded only when Redis is configured: the file ledger's routers and CLI calls start faster without it.
    this.redis = createRedisClient(
      url,
      { lazyConnect: false, enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: (times) => Math.min(times * 200, 2_000) },
      'A Redis usage store',
    );
    this.confirmations = new ReplicaConfirmations(this.redis, throughSentinels(this.redis), this.log);
    this.redis.defineCommand('applyUsageOnce', { lua: APPLY_ONCE });
    this.redis.defineCommand('reserveCap', { lua: RESERVE });
    this.redis.on('error', () => this.warnOnce());
    this.redis.on('ready', () => {
      if (this.warned) this.log('usage store is reachable again; writing queued usage.');
      this.warned = false;
      this.confirmations.reconnected();
      this.takeOverOrphans();
      void this.flush();
    });
    // A timer, not a check per request: the request path pays nothing for noticing a stopped router.
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS).unref();
  }

  /** Resolves once the connection to Redis is up (at once if it is); false if it is not within `ms`. */
  async ready(ms = READ_TIMEOUT_MS): Promise<boolean> {
    if (this.redis.status === 'ready') return true;
    const ready = new Promise<true>((resolve) => this.redis.once('ready', () => resolve(true)));
    return (await withTimeout(ready, ms)) ?? false;
  }

  /**
   * Queued at once (summaries and reservations count it), and written with the turn's other
   * records: to the outbox in one write(2) at the end of the turn, which the promise waits for,
   * then to Redis in one call.
   */
  record(entry: UsageRecord): Promise<void> {
    if (entry.requestId) this.heldHere.delete(entry.requestId);
    // Redis counts each request id once; a record without one gets one, so its retries are safe too.
    if (!entry.requestId) entry = { ...entry, requestId: `rec_${randomUUID()}` };
    this.queue.push(entry);
    if (this.queue.length > MAX_QUEUED) {
      this.queue.shift();
      this.log('usage queue is full while Redis is unreachable; the oldest record was dropped.');
    }
    this.waitingOutbox.push(entry);
    if (!this.turn) {
      let resolve!: () => void;
      const promise = new Promise<void>((yes) => (resolve = yes));
      this.turn = { promise, resolve };
      setImmediate(this.endTurn);
    }
    return this.turn.promise;
  }

  /** The turn's records go to the outbox in one write, then to Redis in one call. */
  private readonly endTurn = (): void => {
    const turn = this.turn;
    this.turn = undefined;
    const entries = this.waitingOutbox;
    this.waitingOutbox = [];
    try {
      this.outbox?.append(entries);
    } catch {
      // A full or read-only disk costs crash safety, not the records: they still queue in memory.
    }
    turn?.resolve();
    void this.flush();
  };

  async summary(developer: string, now = Date.now()): Promise<UsageSummary> {
    // A Redis that accepts commands but never answers must not hold requests (the cap check waits
    // on this): past the bound, answer from what this process knows. One read per developer stays
    // in flight, so a stalled Redis does not collect a read per request.
    let read = this.reads.get(developer);
    if (!read) {
      read = this.readSummary(developer, now).finally(() => this.reads.delete(developer));
      this.reads.set(developer, read);
    }
    const fresh = await withTimeout(read, READ_TIMEOUT_MS);
    if (fresh) return this.withQueued(fresh, developer);
    this.warnOnce();
    const known = this.lastSeen.get(developer) ?? new DailyBuckets().summary(developer, now);
    return this.withQueued(known, developer);
  }

  /**
   * Decided by Redis for every router at once. The reservations asked for in one turn of the event
   * loop go in one pipeline (one round trip), each its own atomic script, after the records still
   * queued here are written, so Redis counts them. With Redis unreachable, this router decides
   * alone from what it knows (its last summary, its queue and its own reservations): the cap then
   * holds per router, not overall.
   */
  reserve(request: ReserveRequest): Promise<Reservation> {
    return new Promise((resolve) => {
      this.asked.push({ request, now: request.now ?? Date.now(), resolve });
      if (this.asked.length === 1) setImmediate(this.reserveTurn);
    });
  }

  private readonly reserveTurn = (): void => {
    const batch = this.asked;
    this.asked = [];
    void withTimeout(this.reserveInRedis(batch).catch(() => undefined), READ_TIMEOUT_MS).then((decided) => {
      batch.forEach((asked, index) => {
        const reservation = decided?.[index];
        if (reservation) asked.resolve(reservation);
        else void this.reserveHere(asked.request, asked.now).then(asked.resolve);
      });
    });
  };

  /** The batch's decisions by Redis, in order; undefined for one it could not decide. */
  private async reserveInRedis(batch: AskedHere[]): Promise<Array<Reservation | undefined>> {
    // A router just started decides with Redis, not alone: wait for the first connection (bounded above).
    await this.connected();
    await this.flush();
    const pipeline = this.redis.pipeline() as unknown as { reserveCap(...args: Array<string | number>): void; exec(): Promise<Array<[Error | null, unknown]> | null> };
    const sent: number[] = [];
    batch.forEach(({ request, now }, index) => {
      // Records of this developer still queued (Redis failed them): Redis would not count them.
      if (this.queue.some((entry) => entry.developer === request.developer)) return;
      const today = Math.floor(now / DAY_MS);
      const days = Array.from({ length: WINDOW_DAYS }, (_, i) => bucketKey(request.developer, today - i));
      pipeline.reserveCap(
        2 + days.length,
        reservedKey(request.developer),
        reservedUntilKey(request.developer),
        ...days,
        now,
        request.capTokens,
        request.minimum,
        request.tokens,
        request.requestId,
        now + request.ttlMs,
        request.ttlMs + DAY_MS,
      );
      sent.push(index);
    });
    const decided: Array<Reservation | undefined> = new Array(batch.length);
    if (!sent.length) return decided;
    const results = (await pipeline.exec()) ?? [];
    sent.forEach((index, n) => {
      const [error, value] = results[n] ?? [new Error('no answer')];
      if (error) return;
      const [granted, tokens, used, reserved] = value as [number, number, number, number];
      decided[index] = { granted: granted === 1, tokens, used, reserved };
    });
    return decided;
  }

  /** This router's own decision, with Redis out of reach. */
  private async reserveHere(request: ReserveRequest, now: number): Promise<Reservation> {
    this.warnOnce();
    const used = (await this.summary(request.developer, now)).totalTokens;
    let reserved = 0;
    for (const [id, held] of this.heldHere) {
      if (held.until <= now) this.heldHere.delete(id);
      else if (held.developer === request.developer) reserved += held.tokens;
    }
    const reservation = decideReservation(request, used, reserved);
    if (reservation.granted) this.heldHere.set(request.requestId, { developer: request.developer, tokens: reservation.tokens, until: now + request.ttlMs });
    return reservation;
  }

  async release(developer: string, requestId: string): Promise<void> {
    this.heldHere.delete(requestId);
    if (this.redis.status !== 'ready') return;
    // Unsent, the reservation lapses at its time-to-live.
    await this.redis
      .multi()
      .hdel(reservedKey(developer), requestId)
      .zrem(reservedUntilKey(developer), requestId)
      .exec()
      .catch(() => undefined);
  }

  private connected(): Promise<void> {
    if (this.redis.status !== 'connecting' && this.redis.status !== 'connect') return Promise.resolve();
    this.connecting ??= new Promise<void>((resolve) => {
      const done = () => {
        this.redis.off('ready', done);
        this.redis.off('end', done);
        this.connecting = undefined;
        resolve();
      };
      this.redis.on('ready', done);
      this.redis.on('end', done);
    });
    return this.connecting;
  }

  /** Writes the queue, then reads the developer's window from Redis; undefined when Redis could not answer. */
  private async readSummary(developer: string, now: number): Promise<UsageSummary | undefined> {
    const today = Math.floor(now / DAY_MS);
    const days = Array.from({ length: WINDOW_DAYS }, (_, i) => today - i);
    try {
      // A fresh process (an in-process CLI check) reads before its first connection is up; with
      // the offline queue off, that read would fail at once. summary() still bounds the wait.
      await this.connected();
      await this.flush();
      const pipeline = this.redis.pipeline();
      for (const day of days) pipeline.hmget(bucketKey(developer, day), ...SUMS);
      const results = (await pipeline.exec()) ?? [];
      const buckets = new DailyBuckets();
      results.forEach(([error, values], index) => {
        if (error) throw error;
        const [inputTokens, outputTokens, requests, costNanoUsd, unpricedRequests] = (values as Array<string | null>).map((value) => Number(value ?? 0));
        if (requests || inputTokens || outputTokens) {
          buckets.addSums(developer, days[index]!, { inputTokens: inputTokens!, outputTokens: outputTokens!, requests: requests!, costNanoUsd: costNanoUsd!, unpricedRequests: unpricedRequests! });
        }
      });
      const summary = buckets.summary(developer, now);
      this.lastSeen.set(developer, summary);
      return summary;
    } catch {
      return undefined;
    }
  }

  async breakdown(now = Date.now()): Promise<UsageRow[]> {
    const today = Math.floor(now / DAY_MS);
    const days = Array.from({ length: WINDOW_DAYS }, (_, i) => today - i);
    // A ledger opened for this one read (the CLI) is still connecting: give it the read's time.
    if (this.redis.status !== 'ready') await withTimeout(once(this.redis, 'ready').catch(() => undefined), READ_TIMEOUT_MS);
    await withTimeout(this.flush().catch(() => undefined), READ_TIMEOUT_MS);
    const read = async () => {
      const pipeline = this.redis.pipeline();
      for (const day of days) pipeline.hgetall(rowsKey(day));
      return pipeline.exec();
    };
    const results = await withTimeout(read().catch(() => null), READ_TIMEOUT_MS);
    if (!results) throw new Error('the usage store (Redis) did not answer; try again once it is reachable.');
    const rows: UsageRow[] = [];
    results.forEach(([error, hash], index) => {
      if (error) throw error;
      const byRow = new Map<string, Record<string, number>>();
      for (const [field, value] of Object.entries(hash as Record<string, string>)) {
        const bar = field.lastIndexOf('|');
        const sums = byRow.get(field.slice(0, bar)) ?? {};
        sums[field.slice(bar + 1)] = Number(value);
        byRow.set(field.slice(0, bar), sums);
      }
      for (const [key, sums] of byRow) {
        const [developer, sku, backend, upstreamModel] = JSON.parse(key) as [string, string, string, string];
        rows.push({
          day: dayLabel(days[index]!),
          developer,
          sku,
          backend,
          upstreamModel,
          inputTokens: sums.in ?? 0,
          outputTokens: sums.out ?? 0,
          requests: sums.n ?? 0,
          costNanoUsd: sums.cost ?? 0,
          unpricedRequests: sums.unpriced ?? 0,
        });
      }
    });
    // What Redis has not taken yet is usage too: counted here, once.
    const queued = new DailyBuckets();
    for (const entry of uniqueIds(this.queue)) if (Math.floor(entry.ts / DAY_MS) >= firstWindowDay(now)) queued.add(entry);
    return [...rows, ...queued.breakdown(now)].sort((a, b) => a.day.localeCompare(b.day));
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    if (this.turn) this.endTurn();
    // Bounded too: a stalled Redis must not keep the process from shutting down.
    await withTimeout(
      this.flush().catch(() => undefined),
      CLOSE_TIMEOUT_MS,
    );
    // What Redis has not taken stays in the outbox for the next router to start.
    this.outbox?.close(this.queue.length === 0 && this.confirmations.empty);
    closeRedisClient(this.redis);
  }

  /**
   * Shows this router alive to the others, takes over stopped routers' outboxes, and writes what
   * is queued (a write that failed with Redis still connected is otherwise retried only by the
   * next record).
   */
  private sweep(): void {
    if (this.outbox) {
      try {
        if (this.outbox.keepAlive([...this.confirmations.pending, ...this.queue])) {
          this.log(`another router judged this one stopped and took over its usage outbox; its ${this.queue.length} queued record(s) are kept in a new one.`);
        }
      } catch {
        // An unwritable outbox directory costs crash safety, not usage: the queue is still in memory.
      }
      this.takeOverOrphans();
    }
    if ((this.queue.length || !this.confirmations.empty) && this.redis.status === 'ready') void this.flush();
  }

  /** Queues the records of stopped routers' outboxes for writing. */
  private takeOverOrphans(): void {
    try {
      const taken = (this.outbox?.claimOrphans() ?? []).map((entry) => (entry.requestId ? entry : { ...entry, requestId: `rec_${randomUUID()}` }));
      if (taken.length) {
        this.queue.push(...taken);
        this.log(`replaying ${taken.length} usage record(s) left queued by a router that stopped.`);
      }
    } catch {
      // An unreadable outbox directory leaves those records where they are.
    }
  }

  /** Writes the queue in order; one flush at a time, and records stay queued until Redis took them. */
  private flush(): Promise<void> {
    this.flushing ??= this.writeQueue().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async writeQueue(): Promise<void> {
    // Written again first: what an earlier primary applied but no replica confirmed (a failover may have lost it).
    const resend = this.confirmations.takeResend();
    for (let at = 0; at < resend.length; at += BATCH) {
      const batch = resend.slice(at, at + BATCH);
      if (this.redis.status !== 'ready' || !(await this.apply(batch))) {
        this.confirmations.unsent(resend.slice(at));
        this.warnOnce();
        return;
      }
      await this.confirmations.written(batch);
    }
    while (this.queue.length && this.redis.status === 'ready') {
      const batch = this.queue.slice(0, BATCH);
      if (!(await this.apply(batch))) {
        this.warnOnce();
        return;
      }
      this.queue.splice(0, batch.length);
      await this.confirmations.written(batch);
    }
    // Nothing new to write, but records still wait for a replica (it was away): ask again.
    if (this.queue.length === 0 && !this.confirmations.empty && this.redis.status === 'ready') await this.confirmations.written([]);
    if (this.queue.length === 0 && this.confirmations.empty) this.clearOutbox();
    if (this.queue.length && this.redis.status !== 'ready') this.warnOnce();
  }

  /** One atomic script call applying each record of `batch` at most once; false when Redis did not answer. */
  private async apply(batch: readonly UsageRecord[]): Promise<boolean> {
    const keys: string[] = [];
    const args: Array<string | number> = [BUCKET_TTL_SECONDS];
    for (const entry of batch) {
      const day = Math.floor(entry.ts / DAY_MS);
      keys.push(appliedKey(entry.requestId!), bucketKey(entry.developer, day), rowsKey(day), reservedKey(entry.developer), reservedUntilKey(entry.developer));
      const priced = entry.costNanoUsd !== undefined;
      args.push(entry.inputTokens, entry.outputTokens, entry.requests, priced ? entry.costNanoUsd! : 0, priced ? 0 : entry.requests);
      args.push(rowKey(entry.developer, entry.model ?? '', entry.backend ?? '', entry.upstreamModel ?? ''), entry.requestId!);
    }
    try {
      await (this.redis as ApplyOnce).applyUsageOnce(keys.length, ...keys, ...args);
      return true;
    } catch {
      return false;
    }
  }

  private clearOutbox(): void {
    try {
      this.outbox?.clear();
    } catch {
      // Left as it is, its records are replayed once more and Redis ignores them.
    }
  }

  private withQueued(summary: UsageSummary, developer: string): UsageSummary {
    const result = { ...summary };
    for (const entry of uniqueIds(this.queue)) {
      if (entry.developer !== developer || entry.ts < summary.windowStart.getTime()) continue;
      result.inputTokens += entry.inputTokens;
      result.outputTokens += entry.outputTokens;
      result.requests += entry.requests;
      if (entry.costNanoUsd === undefined) result.unpricedRequests += entry.requests;
      else result.costNanoUsd += entry.costNanoUsd;
    }
    result.totalTokens = result.inputTokens + result.outputTokens;
    return result;
  }

  private warnOnce(): void {
    if (this.warned) return;
    this.warned = true;
    this.log('usage store (Redis) is unreachable; serving on and queueing usage in memory until it is back.');
  }
}

/** The queue with each request id once: a replayed record waits beside the original until Redis drops it. */
function* uniqueIds(queue: UsageRecord[]): Generator<UsageRecord> {
  const seen = new Set<string>();
  for (const entry of queue) {
    if (seen.has(entry.requestId!)) continue;
    seen.add(entry.requestId!);
    yield entry;
  }
}

/** The promise's value, or undefined once `ms` have passed first; the timer never outlives the wait. */
async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(resolve, ms, undefined)))]);
  } finally {
    clearTimeout(timer);
  }
}
