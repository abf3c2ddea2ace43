import type { Backend } from '../backends/backend.js';
import { BackendRegistry } from '../backends/backend-registry.js';
import type { ScriptedTurn } from '../backends/offline/script.js';
import { ConfigStore } from '../config/store.js';
import type { Ledger } from '../usage/ledger.js';
import { openLedger } from '../usage/open-ledger.js';

/** Everything a handler needs, created once per process (server or in-process CLI call). */
export interface App {
  config: ConfigStore;
  ledger: Ledger;
  backends: BackendRegistry;
  close(): Promise<void>;
}

export interface AppOptions {
  config?: ConfigStore;
  offlineScript?: ScriptedTurn[];
  /** Overrides the `usage.store` setting (`file` or `redis://HOST:PORT`). */
  usageStore?: string;
  /**
   * Given each backend once, as the registry builds it; what it returns is what every request
   * calls (metrics pass `RouterMetrics.wrapBackend`, to count upstream failures).
   */
  wrapBackend?: (backend: Backend) => Backend;
}

export function createApp(options: AppOptions = {}): App {
  const config = options.config ?? new ConfigStore();
  // The app reads its settings on every request: learn of changes from the file system, not a stat each.
  config.watch();
  const ledger = openLedger(options.usageStore ?? config.read().usage.store, config.dir);
  return {
    config,
    ledger,
    backends: new BackendRegistry({ offlineScript: options.offlineScript, ...(options.wrapBackend ? { wrap: options.wrapBackend } : {}) }),
    close: () => {
      config.unwatch();
      return ledger.close();
    },
  };
}
