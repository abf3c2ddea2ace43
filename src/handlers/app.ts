import path from 'node:path';
import { BackendRegistry } from '../backends/registry.js';
import type { ScriptedTurn } from '../backends/offline/script.js';
import { ConfigStore } from '../config/store.js';
import { FileLedger } from '../usage/file-ledger.js';
import type { Ledger } from '../usage/ledger.js';

/** Everything a handler needs, created once per process (server or in-process CLI call). */
export interface App {
  config: ConfigStore;
  ledger: Ledger;
  backends: BackendRegistry;
  close(): Promise<void>;
}

export const LEDGER_FILE = 'usage.jsonl';

export function createApp(options: { config?: ConfigStore; offlineScript?: ScriptedTurn[] } = {}): App {
  const config = options.config ?? new ConfigStore();
  const ledger = new FileLedger(path.join(config.dir, LEDGER_FILE));
  return {
    config,
    ledger,
    backends: new BackendRegistry({ offlineScript: options.offlineScript }),
    close: () => ledger.close(),
  };
}
