import path from 'node:path';
import { displayRedisStore, isRedisStoreUrl, parseRedisStore } from '../core/redis-store.js';
import { FileLedger } from './file-ledger.js';
import type { Ledger } from './ledger.js';
import { RedisLedger } from './redis-ledger.js';

const LEDGER_FILE = 'usage.jsonl';
/** Where a Redis ledger keeps usage Redis has not yet confirmed, one file per router process. */
export const OUTBOX_DIR = 'usage-outbox';

/**
 * The ledger a `usage.store` setting names: `file` (under the config directory) or a Redis URL
 * (`redis://`, `rediss://`, or `redis-sentinel://` for a primary found through its sentinels).
 * `report` hears of ledger lines that cannot be read (default: standard error).
 */
export function openLedger(store: string, configDir: string, report?: (message: string) => void): Ledger {
  if (isRedisStoreUrl(store)) return new RedisLedger(store, { outboxDir: path.join(configDir, OUTBOX_DIR) });
  return new FileLedger(path.join(configDir, LEDGER_FILE), report);
}

/** Why a value is not a usage store (its password hidden), or undefined when it is one. */
export function usageStoreProblem(value: string): string | undefined {
  if (value === 'file') return undefined;
  if (!isRedisStoreUrl(value)) return `expected 'file', redis://HOST:PORT or redis-sentinel://HOST:PORT[,HOST:PORT…]/MASTER, got '${displayRedisStore(value)}'`;
  try {
    parseRedisStore(value);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
