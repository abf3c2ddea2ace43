import path from 'node:path';
import { isRedisStoreUrl } from '../core/redis-store.js';
import { reportOnStderr } from '../files/report-on-stderr.js';
import { MemoryState } from './memory-state.js';
import { FileClaims } from './once-claims.js';
import { RedisState } from './redis-state.js';
import type { SharedState } from './shared-state.js';

/** Where, in the config home, the routers sharing the file ledger claim who sends a notice. */
export const CLAIMS_DIR = 'notice-claims';

/**
 * Shared through Redis when the usage store is Redis (the routers that share usage share limits
 * too); else this router's own, its claims kept beside the file ledger when a home is given.
 */
export function openSharedState(usageStore: string, configDir?: string, report: (message: string) => void = reportOnStderr): SharedState {
  if (isRedisStoreUrl(usageStore)) return new RedisState(usageStore);
  return new MemoryState(configDir === undefined ? undefined : new FileClaims(path.join(configDir, CLAIMS_DIR), report));
}
