import type { Redis } from 'ioredis';
import { closeRedisClient, createRedisClient } from '../core/redis-client.js';
import { deadlines, type Deadline } from '../core/timer-wheel.js';
import { MemoryState } from './memory-state.js';
import { SESSION_IDLE_MS, type Pins } from './session-pins.js';
import { windowIndex, windowVerdict, type SharedState, type WindowVerdict } from './shared-state.js';
import type { Spend, SpendAsk, SpendCaps, SpendVerdict } from './spend.js';

const PREFIX = 'svc-router';
/** How long a decision waits for Redis before this router decides alone (a healthy Redis takes a millisecond). */
const TIMEOUT_MS = 500;
/** How long a router answers a session from its memory before asking Redis again, in the background: a move another router made reaches it within this. */
export const SESSION_RECHECK_MS = 10_000;

/**
 * Adds the cost to the current window only if the weighted count stays within the limit, in one
 * step for every router. KEYS: previous window, current window; ARGV: cost, limit, overlap of the
 * previous window (0..1), key ttl ms. Returns { taken (0/1), previous, current }.
 */
const TAKE = `
local previous = tonumber(redis.call('GET', KEYS[1]) or '0')
local current = tonumber(redis.call('GET', KEYS[2]) or '0')
local cost = tonumber(ARGV[1])
if previous * tonumber(ARGV[3]) + current + cost > tonumber(ARGV[2]) + 1e-9 then return {0, previous, current} end
current = redis.call('INCRBY', KEYS[2], cost)
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return {1, previous, current}
`;

/**
 * spend.ts's decideSpend in one step for every router. KEYS: the scope's hash (fields `tokens` and
 * `nano`: settled use; `h:<request id>`: "tokens nano lapse-ms" each request in flight holds).
 * ARGV: now, request id, then per limit (tokens, nano) cap (-1 for none), minimum, wanted; then
 * the hold's lapse time and the scope's idle ttl. Lapsed holds are dropped on the way. Returns
 * { granted (0/1), refused-by (0 none, 1 tokens, 2 nano), used tokens, used nano, held tokens,
 * held nano, took tokens, took nano }. Amounts are whole numbers, exact in Lua's doubles below 2^53.
 */
const RESERVE_SPEND = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local fields = redis.call('HGETALL', key)
local used = {0, 0}
local held = {0, 0}
for i = 1, #fields, 2 do
  local name = fields[i]
  if name == 'tokens' then used[1] = tonumber(fields[i + 1])
  elseif name == 'nano' then used[2] = tonumber(fields[i + 1])
  elseif string.sub(name, 1, 2) == 'h:' then
    local t, n, u = string.match(fields[i + 1], '^(%d+) (%d+) (%d+)$')
    if t == nil or tonumber(u) <= now or name == 'h:' .. ARGV[2] then redis.call('HDEL', key, name)
    else held[1] = held[1] + tonumber(t); held[2] = held[2] + tonumber(n) end
  end
end
local took = {0, 0}
for limit = 1, 2 do
  local cap = tonumber(ARGV[3 * limit])
  local minimum = tonumber(ARGV[3 * limit + 1])
  local wanted = math.max(tonumber(ARGV[3 * limit + 2]), minimum)
  if cap < 0 then took[limit] = wanted
  else
    local left = cap - used[limit] - held[limit]
    if left <= 0 or minimum > left then return {0, limit, used[1], used[2], held[1], held[2], 0, 0} end
    took[limit] = math.min(wanted, left)
  end
end
redis.call('HSET', key, 'h:' .. ARGV[2], string.format('%.0f %.0f %s', took[1], took[2], ARGV[9]))
redis.call('PEXPIRE', key, ARGV[10])
return {1, 0, used[1], used[2], held[1], held[2], took[1], took[2]}
`;

type Scripted = Redis & {
  takeWindow(...args: Array<string | number>): Promise<[number, number, number]>;
  reserveSpend(...args: Array<string | number>): Promise<number[]>;
};

/**
 * Shared state in Redis, so every router sharing the usage store counts one window per key and
 * rests one pooled key. With Redis away, each router keeps deciding from its own memory (limits
 * then hold per router) rather than refusing or hanging.
 */
export class RedisState implements SharedState {
  private readonly redis: Redis;
  private readonly local = new MemoryState();
  /** Until the first connection, decisions wait for it: a router just started must not decide alone. */
  private readonly firstReady: Promise<void>;
  private everReady = false;

  constructor(url: string) {
    this.redis = createRedisClient(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: (times) => Math.min(times * 200, 2_000) }, 'A Redis usage store');
    this.redis.defineCommand('takeWindow', { numberOfKeys: 2, lua: TAKE });
    this.redis.defineCommand('reserveSpend', { numberOfKeys: 1, lua: RESERVE_SPEND });
    // The ledger says when Redis is away; this connection only falls back quietly.
    this.redis.on('error', () => undefined);
    this.firstReady = new Promise((resolve) => this.redis.once('ready', () => resolve()));
    void this.firstReady.then(() => (this.everReady = true));
  }

  async take(key: string, cost: number, limit: number, windowMs: number, now = Date.now()): Promise<WindowVerdict> {
    const index = windowIndex(now, windowMs);
    const overlap = 1 - (now % windowMs) / windowMs;
    const answer = await this.ask(() =>
      (this.redis as Scripted).takeWindow(windowKey(key, index - 1), windowKey(key, index), cost, limit, overlap, 2 * windowMs),
    );
    if (!answer) return this.local.takeNow(key, cost, limit, windowMs, now);
    const [taken, previous, current] = answer;
    return windowVerdict(previous, current, now, windowMs, cost, limit, taken === 1);
  }

  add(key: string, amount: number, windowMs: number, now = Date.now()): void {
    this.local.add(key, amount, windowMs, now);
    if (this.redis.status !== 'ready' || amount === 0) return;
    const current = windowKey(key, windowIndex(now, windowMs));
    this.redis.multi().incrby(current, amount).pexpire(current, 2 * windowMs).exec().catch(() => undefined);
  }

  coolDown(key: string, untilMs: number): void {
    this.local.coolDown(key, untilMs);
    if (this.redis.status !== 'ready') return;
    const ttl = Math.max(1, Math.ceil(untilMs - Date.now()));
    // Two routers resting one key at once: the later write wins, and both rests are the upstream's word.
    this.redis.set(restKey(key), String(untilMs), 'PX', ttl).catch(() => undefined);
  }

  async restingUntil(keys: readonly string[], now = Date.now()): Promise<number[]> {
    const local = this.local.restingNow(keys, now);
    if (keys.length === 0) return local;
    const shared = await this.ask(() => this.redis.mget(...keys.map(restKey)));
    if (!shared) return local;
    return local.map((until, i) => {
      const there = Number(shared[i] ?? 0);
      return Math.max(until, there > now ? there : 0);
    });
  }

  /**
   * Consistency: a session's pins are written through to Redis when made or moved, and read from
   * it when this router first sees the session (that request waits, at most TIMEOUT_MS) and then at
   * most every SESSION_RECHECK_MS in the background. So every router agrees on a session from the
   * turn after its first, and a move one router makes reaches the others within the recheck (at
   * once, if they see the same failure). With Redis away, each router pins on its own.
   */
  async sessionPins(session: string, now = Date.now()): Promise<Pins | undefined> {
    const known = this.local.sessions.lookup(session, now);
    if (known) {
      if (now - known.checkedAt >= SESSION_RECHECK_MS && this.redis.status === 'ready' && !this.rechecking.has(session)) void this.recheck(session, known.version, now);
      return known.pins;
    }
    const shared = await this.ask(() => this.redis.hgetall(sessionKey(session)));
    return shared ? this.local.sessions.adopt(session, shared, now, 0) : undefined;
  }

  pinSession(session: string, field: string, choice: string, now = Date.now()): void {
    this.local.pinSession(session, field, choice, now);
    if (this.redis.status !== 'ready') return;
    const key = sessionKey(session);
    this.redis.multi().hset(key, field, choice).pexpire(key, SESSION_IDLE_MS).exec().catch(() => undefined);
  }

  /**
   * Decided by Redis for every router at once; with Redis away, by this router alone from what it
   * counted itself (settlements are counted here too), so the cap then holds per router.
   */
  async reserveSpend(scope: string, ask: SpendAsk, now = Date.now()): Promise<SpendVerdict> {
    const limits = (limit: keyof SpendCaps & keyof Spend) => [ask.caps[limit] ?? -1, Math.round(ask.minimum[limit]), Math.round(ask.wanted[limit])];
    const answer = await this.ask(() =>
      (this.redis as Scripted).reserveSpend(spendKey(scope), now, ask.requestId, ...limits('tokens'), ...limits('nanoUsd'), now + ask.holdTtlMs, Math.max(SESSION_IDLE_MS, ask.holdTtlMs)),
    );
    if (!answer) return this.local.reserveSpend(scope, ask, now);
    const [granted, refusedBy, usedTokens, usedNano, heldTokens, heldNano, tookTokens, tookNano] = answer.map(Number) as [number, number, number, number, number, number, number, number];
    return {
      granted: granted === 1,
      ...(refusedBy === 1 ? { refusedBy: 'tokens' as const } : refusedBy === 2 ? { refusedBy: 'nanoUsd' as const } : {}),
      used: { tokens: usedTokens, nanoUsd: usedNano },
      held: { tokens: heldTokens, nanoUsd: heldNano },
      took: { tokens: tookTokens, nanoUsd: tookNano },
    };
  }

  settleSpend(scope: string, requestId: string, spent: Spend, now = Date.now()): void {
    this.local.settleSpend(scope, requestId, spent, now);
    if (this.redis.status !== 'ready') return;
    const key = spendKey(scope);
    // Commands on one connection run in order: the next reservation this router sends sees this settlement.
    this.redis
      .multi()
      .hdel(key, `h:${requestId}`)
      .hincrby(key, 'tokens', Math.round(spent.tokens))
      .hincrby(key, 'nano', Math.round(spent.nanoUsd))
      .pexpire(key, SESSION_IDLE_MS)
      .exec()
      .catch(() => undefined);
  }

  releaseSpend(scope: string, requestId: string): void {
    this.local.releaseSpend(scope, requestId);
    if (this.redis.status !== 'ready') return;
    this.redis.hdel(spendKey(scope), `h:${requestId}`).catch(() => undefined);
  }

  /** SET NX with the period as its lifetime: exactly one router's SET succeeds. With Redis away, this router decides alone. */
  async claimOnce(name: string, ttlMs: number, now = Date.now()): Promise<boolean> {
    const answer = await this.ask(() => this.redis.set(claimKey(name), String(now), 'PX', ttlMs, 'NX'));
    if (answer === undefined) return this.local.claimOnce(name, ttlMs, now);
    return answer === 'OK';
  }

  /** Sessions asked about in the background right now (one question each at a time). */
  private readonly rechecking = new Set<string>();

  /** Asks Redis what a known session is pinned to (another router may have moved it), and keeps it from expiring there. */
  private async recheck(session: string, version: number, now: number): Promise<void> {
    this.rechecking.add(session);
    try {
      const key = sessionKey(session);
      const answer = await this.ask(() => this.redis.multi().hgetall(key).pexpire(key, SESSION_IDLE_MS).exec());
      const shared = answer?.[0]?.[1] as Record<string, string> | undefined;
      if (shared && !answer![0]![0]) this.local.sessions.adopt(session, shared, now, version);
    } finally {
      this.rechecking.delete(session);
    }
  }

  async close(): Promise<void> {
    closeRedisClient(this.redis);
  }

  /** Redis's answer, or undefined when it is away or slow. */
  private async ask<T>(question: () => Promise<T>): Promise<T | undefined> {
    let timer: Deadline | undefined;
    const late = new Promise<undefined>((resolve) => (timer = deadlines.after(TIMEOUT_MS, () => resolve(undefined))));
    try {
      if (this.redis.status !== 'ready') {
        if (this.everReady) return undefined;
        await Promise.race([this.firstReady, late]);
        // Narrowed above, but the connection may have come up meanwhile.
        if ((this.redis.status as string) !== 'ready') return undefined;
      }
      return await Promise.race([question(), late]);
    } catch {
      return undefined;
    } finally {
      timer?.cancel();
    }
  }
}

const windowKey = (key: string, index: number): string => `${PREFIX}:window:${key}:${index}`;
const restKey = (key: string): string => `${PREFIX}:resting:${key}`;
const sessionKey = (session: string): string => `${PREFIX}:session:${session}`;
const spendKey = (scope: string): string => `${PREFIX}:spend:${scope}`;
const claimKey = (name: string): string => `${PREFIX}:once:${name}`;
