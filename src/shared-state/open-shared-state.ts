import { MemoryState } from './memory-state.js';
import { RedisState } from './redis-state.js';
import type { SharedState } from './shared-state.js';

/** Shared through Redis when the usage store is Redis (the routers that share usage share limits too); else this router's own. */
export function openSharedState(usageStore: string): SharedState {
  return /^rediss?:\/\//.test(usageStore) ? new RedisState(usageStore) : new MemoryState();
}
