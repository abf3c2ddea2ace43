import type { DeclarativeFile } from '../config/declarative/file-source.js';
import type { Settings } from '../config/settings.js';
import { changedPaths, ConfigStore } from '../config/store.js';
import { failedError } from './cli-error.js';
import { note } from './output.js';
import { runningServe, type ServerState } from './server-state.js';

/** The settings a command works on, and where they come from. */
export interface ConfigInForce {
  store: ConfigStore;
  /** The declarative file over config.json, when one is in force. */
  file?: string;
  /** `environment`: SVC_ROUTER_CONFIG names the file; `serve`: the running serve's; `stored`: config.json alone. */
  source: 'environment' | 'serve' | 'stored';
  /** The running serve of this config directory, if any. */
  serve?: ServerState;
}

let opened: Promise<ConfigInForce> | undefined;

/**
 * The config every command reads: the one in force on the running serve (its state file names the
 * declarative file it read, with --config or SVC_ROUTER_CONFIG), unless SVC_ROUTER_CONFIG names a
 * file here; config.json alone when neither does. Whenever a declarative file is involved, or this
 * command reads other settings than the running serve, one `note:` line on stderr says which.
 * Writes still go to config.json: the store warns when the file in force hides what was written.
 */
export function configInForce(): Promise<ConfigInForce> {
  opened ??= open();
  return opened;
}

/** The store of `configInForce()`, its settings read once: a file that cannot be read is a usage error here. */
export async function openConfig(): Promise<ConfigStore> {
  const config = await configInForce();
  readInForce(config);
  return config.store;
}

async function open(): Promise<ConfigInForce> {
  const serve = runningServe();
  const given = process.env.SVC_ROUTER_CONFIG || undefined;
  if (!given && !serve?.config) return { store: new ConfigStore(), source: 'stored', ...(serve ? { serve } : {}) };
  const { DeclarativeFile } = await import('../config/declarative/file-source.js');
  const overlay = new DeclarativeFile((given ?? serve!.config)!);
  const where = serve && given === undefined ? `the running serve (pid ${serve.pid})` : undefined;
  const store = new GuardedStore(overlay, where);
  if (given) {
    const differs = serve && serve.config !== overlay.path ? `; the running serve (pid ${serve.pid}) reads ${serve.config ? `${serve.config} over config.json` : 'config.json alone'}` : '';
    note(`config: ${overlay.path} over ${store.path} (SVC_ROUTER_CONFIG)${differs}`);
    return { store, file: overlay.path, source: 'environment', ...(serve ? { serve } : {}) };
  }
  note(`config: ${overlay.path} over ${store.path}, as the running serve (pid ${serve!.pid}) reads it (SVC_ROUTER_CONFIG=FILE reads another)`);
  return { store, file: overlay.path, source: 'serve', serve: serve! };
}

/**
 * config.json under a declarative file: a change the file would hide (it sets that table or
 * field, so the change would have no effect) is refused before anything is written, naming the
 * file to edit instead.
 */
class GuardedStore extends ConfigStore {
  constructor(
    private readonly declarative: DeclarativeFile,
    private readonly readBy: string | undefined,
  ) {
    super(undefined, { overlay: declarative });
  }

  override update(change: (settings: Settings) => void): Settings {
    const before = this.readStored();
    const draft = this.readStored();
    change(draft);
    const paths = changedPaths(before as unknown as Record<string, unknown>, draft as unknown as Record<string, unknown>);
    // The file is loaded by a read: what it sets is known only then.
    this.read();
    const hidden = paths.length ? this.declarative.hides(paths, draft) : [];
    if (hidden.length) {
      throw failedError(
        `not saved: ${this.declarative.path} sets ${hidden.join(', ')} and is in force${this.readBy ? ` on ${this.readBy}` : ''}, so this change to config.json would have no effect; edit that file instead`,
      );
    }
    return super.update(change);
  }
}

/**
 * The entry of a table that a command changes must be config.json's own: one only the declarative
 * file in force has is changed in that file.
 */
export function requireStored(config: ConfigStore, table: 'keys' | 'backends' | 'routes' | 'routePolicies' | 'prices' | 'contextWindows', name: string, missing: string): void {
  if (Object.hasOwn(config.readStored()[table], name)) return;
  if (config.overlay && Object.hasOwn(config.read()[table], name)) throw failedError(`'${name}' comes from ${config.overlay.path}, which is in force over config.json: change it in that file`);
  throw failedError(missing);
}

/**
 * The settings in force, read once: a declarative file that is missing or not valid now is a
 * failure naming it (a running serve keeps the last valid version meanwhile).
 */
function readInForce(config: ConfigInForce): ReturnType<ConfigStore['read']> {
  try {
    return config.store.read();
  } catch (error) {
    if ((error as Error).name !== 'DeclarativeFileError') throw error;
    const kept = config.source === 'serve' ? `\n  the running serve (pid ${config.serve!.pid}) keeps the last valid version until the file is fixed` : '';
    throw failedError(`${(error as Error).message}${kept}`);
  }
}

