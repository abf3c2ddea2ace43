import type { Redis, RedisOptions } from 'ioredis';
import { requireOptional } from './optional-dependency.js';
import { parseRedisStore } from './redis-store.js';

/**
 * A connection to the Redis a usage store names: one server, or the primary its sentinels point
 * at. Through sentinels, ioredis asks them for the primary on every (re)connection and checks its
 * ROLE (the Sentinel client spec), so after a failover it reconnects to the promoted replica.
 * Two more things make that quick and safe:
 *
 * - `failoverDetector`: ioredis listens on the sentinels' `+switch-master` channel and drops the
 *   connection at once, rather than when the old primary's socket finally fails (a partition);
 * - a `READONLY` answer (the old primary came back as a replica while this connection stayed on
 *   it) reconnects, so the write goes to the new primary instead of failing until the next error.
 *
 * `options` are the caller's (offline queue, retries); the store's addresses and password go last.
 * Close it with `closeRedisClient`: any other end is one ioredis would not recover from (the
 * failover detector cutting a reconnection short ends the client for good), so it connects again.
 */
export function createRedisClient(store: string, options: RedisOptions, feature: string): Redis {
  const { Redis: RedisClient } = requireOptional<typeof import('ioredis')>('ioredis', feature);
  const parsed = parseRedisStore(store);
  if (parsed.kind === 'single') return new RedisClient(parsed.url, options);
  const client = new RedisClient({
    ...options,
    sentinels: parsed.sentinels,
    name: parsed.name,
    db: parsed.db,
    ...(parsed.username ? { username: parsed.username } : {}),
    ...(parsed.password ? { password: parsed.password } : {}),
    role: 'master',
    failoverDetector: true,
    reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 2 : false),
  });
  client.on('end', () => {
    if (closed.has(client)) return;
    setTimeout(() => {
      if (!closed.has(client) && client.status === 'end') client.connect().catch(() => undefined);
    }, RECONNECT_AFTER_END_MS).unref();
  });
  return client;
}

/** How long after an unasked-for end the client connects again (the retry strategy's first step). */
const RECONNECT_AFTER_END_MS = 200;
const closed = new WeakSet<Redis>();

/** Disconnects for good: the client does not connect again. */
export function closeRedisClient(client: Redis): void {
  closed.add(client);
  client.disconnect();
}

/** Whether a client reaches its primary through sentinels (its writes can then be lost in a failover unless a replica has them). */
export const throughSentinels = (client: Redis): boolean => Array.isArray(client.options.sentinels) && client.options.sentinels.length > 0;
