import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { MemoryState } from './memory-state.js';
import { windowIndex, windowVerdict, type SharedState, type WindowVerdict } from './shared-state.js';

const PREFIX = 'svc-router';
/** How long a decision waits for Redis before this router decides alone (a healthy Redis takes a millisecond). */
const TIMEOUT_MS = 500;

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

type Scripted = Redis & { takeWindow(...args: Array<string | number>): Promise<[number, number, number]> };

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
    const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
    this.redis = new RedisClient(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: (times) => Math.min(times * 200, 2_000) });
    this.redis.defineCommand('takeWindow', { numberOfKeys: 2, lua: TAKE });
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

  async close(): Promise<void> {
    this.redis.disconnect();
  }

  /** Redis's answer, or undefined when it is away or slow. */
  private async ask<T>(question: () => Promise<T>): Promise<T | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, TIMEOUT_MS, undefined)));
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
      clearTimeout(timer);
    }
  }
}

const windowKey = (key: string, index: number): string => `${PREFIX}:window:${key}:${index}`;
const restKey = (key: string): string => `${PREFIX}:resting:${key}`;
