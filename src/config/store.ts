import fs from 'node:fs';
import path from 'node:path';
import Conf from 'conf';
import { withDefaults, type Settings } from './settings.js';

/**
 * The settings' name-keyed tables (keys by developer slug, backends, routes and prices by name) as objects
 * without a prototype: a name such as `constructor` or `__proto__` is then an entry like any other,
 * found only when it was stored, and storing `__proto__` stores an entry instead of replacing the
 * table's prototype.
 */
function ownTables(settings: Settings): Settings {
  settings.keys = Object.assign(Object.create(null) as Settings['keys'], settings.keys);
  settings.backends = Object.assign(Object.create(null) as Settings['backends'], settings.backends);
  settings.routes = Object.assign(Object.create(null) as Settings['routes'], settings.routes);
  settings.prices = Object.assign(Object.create(null) as Settings['prices'], settings.prices);
  return settings;
}

/** Where svc-router keeps its config and ledger: `SVC_ROUTER_HOME`, else the platform's config dir. */
function confOptions(dir: string | undefined): ConstructorParameters<typeof Conf<Partial<Settings>>>[0] {
  const home = dir ?? process.env.SVC_ROUTER_HOME;
  return {
    projectName: 'svc-router',
    projectSuffix: '',
    configName: 'config',
    configFileMode: 0o600,
    ...(home ? { cwd: path.resolve(home) } : {}),
  };
}

/**
 * The stored settings. Reads are served from a snapshot that is refreshed whenever the file on
 * disk changes, so a running server sees what the CLI writes without a restart.
 */
export class ConfigStore {
  private readonly conf: Conf<Partial<Settings>>;
  private snapshot: Settings | undefined;
  private stamp = '';
  private watcher: fs.FSWatcher | undefined;
  /** Set by the watcher (or a write in this process): the next read compares the file's stamp. */
  private changed = true;

  /** `dir` overrides SVC_ROUTER_HOME (tests use their own). */
  constructor(dir?: string) {
    this.conf = new Conf<Partial<Settings>>(confOptions(dir));
  }

  get path(): string {
    return this.conf.path;
  }

  get dir(): string {
    return path.dirname(this.conf.path);
  }

  /**
   * The settings in force. Without `watch()`, every read compares the file's stamp (a stat). With
   * it, only a read after the directory reported a change does: a server reads on every request,
   * and a system call each time was a measurable share of its work.
   */
  read(): Settings {
    if (this.snapshot && this.watcher && !this.changed) return this.snapshot;
    this.changed = false;
    const stamp = fileStamp(this.conf.path);
    if (!this.snapshot || stamp !== this.stamp) {
      this.snapshot = ownTables(withDefaults(this.conf.store));
      this.stamp = stamp;
    }
    return this.snapshot;
  }

  /**
   * Learns of changes to the file from the file system instead of a stat per read. The directory is
   * watched, not the file: the file is replaced by a rename on every write, which a watch on the
   * old file would not see. Writes through any store of this process are seen at once; another
   * process's (the CLI's) when its event arrives, which is before that process has exited. Where
   * watching is not possible, or fails later, reads go back to a stat each.
   */
  watch(): void {
    if (this.watcher) return;
    const name = path.basename(this.conf.path);
    try {
      this.watcher = fs.watch(this.dir, { persistent: false }, (_event, file) => {
        if (file === null || file === name) this.changed = true;
      });
    } catch {
      return;
    }
    this.watcher.on('error', () => this.unwatch());
    this.changed = true;
    WATCHED.add(this);
  }

  unwatch(): void {
    this.watcher?.close();
    this.watcher = undefined;
    WATCHED.delete(this);
  }

  /** Applies a change to a fresh copy of the file and writes it back atomically. */
  update(change: (settings: Settings) => void): Settings {
    const settings = ownTables(structuredClone(withDefaults(this.conf.store)));
    change(settings);
    this.conf.store = settings;
    // Other stores of this process on the same file see it on their next read, not after the event.
    for (const store of WATCHED) if (store.path === this.path) store.changed = true;
    return this.read();
  }
}

/** The stores of this process that watch their file. */
const WATCHED = new Set<ConfigStore>();

function fileStamp(file: string): string {
  try {
    const stat = fs.statSync(file);
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return 'missing';
  }
}
