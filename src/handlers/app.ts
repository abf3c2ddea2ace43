import type { Backend } from '../backends/backend.js';
import { BackendRegistry } from '../backends/backend-registry.js';
import type { ScriptedTurn } from '../backends/offline/script.js';
import { configuredSecrets } from '../config/secrets.js';
import { ConfigStore } from '../config/store.js';
import { addSecretSource } from '../core/redact.js';
import type { Policy } from '../policies/policy.js';
import { KeyPools } from '../routing/key-pool.js';
import { SessionBook } from '../sessions/session-book.js';
import { openSharedState } from '../shared-state/open-shared-state.js';
import type { SharedState } from '../shared-state/shared-state.js';
import type { Ledger } from '../usage/ledger.js';
import { openLedger } from '../usage/open-ledger.js';
import { UsageWebhook, type UsageWebhookOptions } from '../usage/usage-webhook.js';

/** Everything a handler needs, created once per process (server or in-process CLI call). */
export interface App {
  config: ConfigStore;
  ledger: Ledger;
  backends: BackendRegistry;
  /** Rate-limit windows and key rests, shared through Redis when the usage store is Redis. */
  shared: SharedState;
  keyPools: KeyPools;
  /**
   * The per-request policies every completion passes, in order, when they replace the registry's;
   * undefined: the registry's (src/policies/registry.ts), which handlers read through policiesOf
   * (app-policies.ts), so that building an app for a quick check loads no policy.
   */
  policies?: readonly Policy[];
  /** Sends the usage notices `notify.webhook` asks for, off the request path. */
  notices: UsageWebhook;
  /** The sessions this process served, for `svc-router sessions` and the dashboard (src/sessions/). */
  sessions: SessionBook;
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
  /** Hears of lines of the usage ledger that cannot be read, each once (default: standard error). */
  report?: (message: string) => void;
  /** Replaces the registry's policies (tests that need a policy of their own). */
  policies?: readonly Policy[];
  /** How the notice webhook retries, and where an undelivered notice is told (default: standard error). */
  notify?: UsageWebhookOptions;
  /** Replaces the sessions view (tests that bound it tighter). */
  sessions?: SessionBook;
}

export function createApp(options: AppOptions = {}): App {
  const config = options.config ?? new ConfigStore();
  // The app reads its settings on every request: learn of changes from the file system, not a stat each.
  config.watch();
  const store = options.usageStore ?? config.read().usage.store;
  const ledger = openLedger(store, config.dir, options.report);
  const shared = openSharedState(store, config.dir, options.report);
  const notices = new UsageWebhook(shared, options.notify);
  // Logs and upstream errors are scrubbed of every key the settings hold, sent yet or not.
  const forgetSecrets = addSecretSource(() => {
    try {
      return configuredSecrets(config.read());
    } catch {
      return [];
    }
  });
  return {
    config,
    ledger,
    backends: new BackendRegistry({ offlineScript: options.offlineScript, ...(options.wrapBackend ? { wrap: options.wrapBackend } : {}) }),
    shared,
    keyPools: new KeyPools(shared),
    ...(options.policies ? { policies: options.policies } : {}),
    notices,
    sessions: options.sessions ?? new SessionBook(),
    close: async () => {
      config.unwatch();
      // Before the shared state closes: a notice not yet claimed claims through it.
      await notices.close();
      forgetSecrets();
      await Promise.all([ledger.close(), shared.close()]);
    },
  };
}
