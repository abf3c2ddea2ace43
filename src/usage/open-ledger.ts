import path from 'node:path';
import { FileLedger } from './file-ledger.js';
import type { Ledger } from './ledger.js';
import { RedisLedger } from './redis-ledger.js';

const LEDGER_FILE = 'usage.jsonl';
/** Where a Redis ledger keeps usage Redis has not yet confirmed, one file per router process. */
export const OUTBOX_DIR = 'usage-outbox';

/**
 * The ledger a `usage.store` setting names: `file` (under the config directory) or a `redis://` URL.
 * `report` hears of ledger lines that cannot be read (default: standard error).
 */
export function openLedger(store: string, configDir: string, report?: (message: string) => void): Ledger {
  if (/^rediss?:\/\//.test(store)) return new RedisLedger(store, { outboxDir: path.join(configDir, OUTBOX_DIR) });
  return new FileLedger(path.join(configDir, LEDGER_FILE), report);
}

export const isUsageStore = (value: string): boolean => value === 'file' || /^rediss?:\/\/[^\s]+$/.test(value);
