import { createHash } from 'node:crypto';
import { DEFAULT_PAYMENT_COOLDOWN_MS, DEFAULT_RATE_LIMIT_COOLDOWN_MS, type KeyPoolSettings, type PooledKey } from '../config/settings.js';
import { RouterError } from '../core/errors.js';
import type { SharedState } from '../shared-state/shared-state.js';

/** One key of a pool, ready to send: its value, its place in the pool, and the id its rest is shared under (never the key). */
export interface PickedKey {
  value: string;
  index: number;
  id: string;
  /** The place of the key asked for (`preferred`) when another was picked: it rests, or left the pool (-1). */
  instead?: number;
}

/** The shortest rest: a `retry-after: 0` must not send the same key straight back into a refusal. */
const MIN_REST_MS = 1_000;

/** Upstream answers that mean "this key, not the request": a rate limit, or an account out of credit. */
export function restFor(error: unknown, pool: KeyPoolSettings): number | undefined {
  if (!(error instanceof RouterError)) return undefined;
  if (error.code === 'upstream_rate_limited') return Math.max(MIN_REST_MS, error.retryAfterMs ?? pool.rateLimitCooldownMs ?? DEFAULT_RATE_LIMIT_COOLDOWN_MS);
  if (error.code === 'upstream_payment_required') return Math.max(MIN_REST_MS, error.retryAfterMs ?? pool.paymentCooldownMs ?? DEFAULT_PAYMENT_COOLDOWN_MS);
  return undefined;
}

/** A pooled key's value: stored, or read from its environment variable now (undefined when unset). */
function pooledKeyValue(key: PooledKey): string | undefined {
  if ('apiKey' in key && typeof key.apiKey === 'string') return key.apiKey;
  if ('apiKeyEnv' in key && typeof key.apiKeyEnv === 'string') return process.env[key.apiKeyEnv] || undefined;
  return undefined;
}

/** Rests are shared by a hash of the key, so Redis never holds one. */
const restId = (value: string): string => `key:${createHash('sha256').update(value).digest('hex').slice(0, 24)}`;

/**
 * Picks the key each upstream call uses: round-robin (each call the next key) or fill-first (the
 * first key until it rests), skipping keys that rest after a 429 or 402. Rests are shared through
 * the shared state, so every router skips a key one of them saw refused. A call of a session asks
 * for its session's key (`preferred`, the key's id): it gets that key while it does not rest, and
 * round-robin takes its turn only for calls that ask for none.
 */
export class KeyPools {
  /** Round-robin position per backend, in this router. */
  private readonly turns = new Map<string, number>();

  constructor(private readonly state: SharedState) {}

  async pick(backend: string, pool: KeyPoolSettings, preferred?: string, now = Date.now()): Promise<PickedKey> {
    const keys = pool.keys.map((key, index) => ({ key, index, value: pooledKeyValue(key) }));
    const usable = keys.filter((key): key is typeof key & { value: string } => key.value !== undefined);
    if (usable.length === 0) {
      const unset = keys.flatMap(({ key }) => ('apiKeyEnv' in key ? [`$${key.apiKeyEnv}`] : []));
      throw new RouterError(502, 'configuration', `Backend '${backend}' has no usable key in its pool${unset.length ? ` (${unset.join(', ')} not set where svc-router runs)` : ''}.`, undefined, 'upstream_no_key');
    }
    const ids = usable.map(({ value }) => restId(value));
    const resting = await this.state.restingUntil(ids, now);
    const asked = preferred === undefined ? -1 : ids.indexOf(preferred);
    if (asked !== -1 && resting[asked]! <= now) return { value: usable[asked]!.value, index: usable[asked]!.index, id: preferred! };
    const instead = preferred === undefined ? {} : { instead: asked === -1 ? -1 : usable[asked]!.index };
    const start = pool.strategy === 'round-robin' ? this.nextTurn(backend, usable.length) : 0;
    for (let step = 0; step < usable.length; step++) {
      const at = (start + step) % usable.length;
      if (resting[at]! <= now) return { value: usable[at]!.value, index: usable[at]!.index, id: ids[at]!, ...instead };
    }
    const soonest = Math.min(...resting) - now;
    return Promise.reject(
      new RouterError(
        429,
        'rate_limit',
        `Every key of backend '${backend}' is resting after a rate limit or an exhausted balance; the first is usable again in ${Math.ceil(soonest / 1000)} s.`,
        undefined,
        'upstream_rate_limited',
        soonest,
      ),
    );
  }

  /** Rests a key for what the upstream asked (or the pool's default). */
  rest(picked: PickedKey, ms: number, now = Date.now()): void {
    this.state.coolDown(picked.id, now + ms);
  }

  private nextTurn(backend: string, size: number): number {
    const turn = this.turns.get(backend) ?? 0;
    this.turns.set(backend, (turn + 1) % size);
    return turn % size;
  }
}
