import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../files/atomic-write.js';
import { configFilePath, prepareConfigDirectory } from './config-location.js';
import { LastGoodFile } from '../files/last-good-file.js';
import { reportOnStderr } from '../files/report-on-stderr.js';
import { withDefaults, type Settings } from './settings.js';
import { ownTables, parseStoredSettings, serializeSettings, unknownStoredFields, type UnknownField } from './stored-settings.js';

/**
 * Settings that take precedence over the stored ones: a declarative file (config/declarative/),
 * loaded only when one is in use so that other commands never load its parser.
 */
export interface SettingsOverlay {
  readonly path: string;
  /** Changes whenever what `apply` returns may change. */
  stamp(): string;
  apply(stored: Settings): Settings;
  /**
   * Told what a change to config.json changed (`routes`, `server.port`: a field, or one entry or
   * field inside it), so that a change the overlay hides is not lost unsaid.
   */
  changedUnder?(paths: ReadonlyArray<readonly [string, string?]>, settings: Settings): void;
  /** The environment variables it reads secrets from, by name. */
  variables?(): string[];
  /** Of these fields (or table entries) of config.json, the ones it sets: config.json's are not in force there. */
  hides?(paths: ReadonlyArray<readonly [string, string?]>, settings: Settings): string[];
}

/** `SVC_ROUTER_CONFIG` names a declarative file every command and `serve` read. */
const fileFromEnvironment = process.env.SVC_ROUTER_CONFIG || undefined;
const environmentModule = fileFromEnvironment ? await import('./declarative/file-source.js') : undefined;

/**
 * The stored settings, with the declarative file's over them when one is in use. Reads are served
 * from a snapshot that is refreshed whenever the file on disk changes, so a running server sees
 * what the CLI writes without a restart. A version of config.json that cannot be used (not JSON,
 * a value of the wrong type, half-written by an editor) leaves the last good one in force and is
 * reported once, with its line and column; a first read of such a file throws BrokenFileError.
 */
export class ConfigStore {
  /** config.json: in `SVC_ROUTER_HOME`, else the platform's config directory (config-location.ts). */
  readonly path: string;
  private readonly file: LastGoodFile<Settings>;
  private snapshot: Settings | undefined;
  /** What the snapshot was built from: the stored version and the overlay's stamp. */
  private builtFrom: { stored: Settings; overlay: string } | undefined;
  private watcher: fs.FSWatcher | undefined;
  /** Set by the watcher (or a write in this process): the next read compares the file's stamp. */
  private changed = true;

  /** Over the stored settings: `--config FILE` on serve, else SVC_ROUTER_CONFIG. */
  readonly overlay: SettingsOverlay | undefined;

  /**
   * `dir` overrides SVC_ROUTER_HOME (tests use their own); `report` hears of versions refused
   * (default: standard error). `reportUnknownFields`: each version taken (the first, and each
   * reload) that holds fields the settings do not know has them named through `report`, once.
   */
  constructor(dir?: string, options: { overlay?: SettingsOverlay; report?: (message: string) => void; reportUnknownFields?: boolean } = {}) {
    const file = configFilePath(dir);
    prepareConfigDirectory(file);
    this.path = file;
    const report = options.report ?? reportOnStderr;
    // The unknown fields of the version parsed last, told when that very version is taken; each
    // field once, when it appears (a reload that keeps it says nothing again).
    let parsed: { settings: Settings; unknown: UnknownField[] } | undefined;
    let told = new Set<string>();
    this.file = new LastGoodFile(file, {
      parse: (text) => {
        const reading = parseStoredSettings(file, text);
        if (options.reportUnknownFields && 'value' in reading) parsed = { settings: reading.value, unknown: unknownStoredFields(file, text) };
        return reading;
      },
      absent: () => ownTables(withDefaults({})),
      report,
      taken: (settings, how) => {
        if (how.recovered) report(`${file} is valid again; it is in force`);
        const unknown = parsed?.settings === settings ? parsed.unknown : [];
        const fresh = unknown.filter((field) => !told.has(field.message));
        told = new Set(unknown.map((field) => field.message));
        parsed = undefined;
        if (fresh.length) report(`${fresh.map((field) => field.at).join('\n')}\n  ${fresh.length === 1 ? 'this field is' : 'these fields are'} ignored: fix the name, or remove it`);
      },
    });
    this.overlay = options.overlay ?? (environmentModule && fileFromEnvironment ? new environmentModule.DeclarativeFile(fileFromEnvironment) : undefined);
  }

  get dir(): string {
    return path.dirname(this.path);
  }

  /**
   * The settings in force. Without `watch()`, every read compares the file's stamp (a stat). With
   * it, only a read after the directory reported a change does: a server reads on every request,
   * and a system call each time was a measurable share of its work.
   */
  read(): Settings {
    // A declarative file over the stored settings is not watched: with one, every read checks both stamps.
    if (this.snapshot && this.watcher && !this.changed && !this.overlay) return this.snapshot;
    // Watched, a read gets here only after an event: the file is read even if its stamp looks unchanged.
    const stored = this.file.read(this.watcher !== undefined && this.changed);
    this.changed = false;
    const overlay = this.overlay ? this.overlay.stamp() : '';
    if (!this.snapshot || this.builtFrom?.stored !== stored || this.builtFrom.overlay !== overlay) {
      this.snapshot = this.overlay ? ownTables(this.overlay.apply(stored)) : stored;
      this.builtFrom = { stored, overlay };
    }
    return this.snapshot;
  }

  /**
   * The stored settings alone, as config.json holds them now (what `update` changes). A file that
   * cannot be used throws BrokenFileError, even while an earlier version is in force for `read`.
   */
  readStored(): Settings {
    return this.file.readCurrent();
  }

  /**
   * Applies a change to a fresh copy of the file and writes it back atomically (0600: it holds
   * keys). A file that cannot be used is not overwritten: BrokenFileError says where to fix it,
   * since writing over it would lose what it holds.
   */
  update(change: (settings: Settings) => void): Settings {
    const before = this.file.readCurrent();
    const settings = ownTables(structuredClone(before));
    change(settings);
    writeFileAtomic(this.path, serializeSettings(settings), { mode: 0o600 });
    // Other stores of this process on the same file see it on their next read, not after the event.
    for (const store of WATCHED) if (store.path === this.path) store.changed = true;
    this.changed = true;
    if (this.overlay?.changedUnder) {
      const changed = changedPaths(before as unknown as Record<string, unknown>, settings as unknown as Record<string, unknown>);
      if (changed.length) this.overlay.changedUnder(changed, settings);
    }
    return this.read();
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
    const name = path.basename(this.path);
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
}

/** The stores of this process that watch their file. */
const WATCHED = new Set<ConfigStore>();

/** The fields that differ, and within an object field the entries or fields that differ. */
export function changedPaths(before: Record<string, unknown>, after: Record<string, unknown>): Array<readonly [string, string?]> {
  const differ = (a: unknown, b: unknown) => JSON.stringify(a) !== JSON.stringify(b);
  const paths: Array<readonly [string, string?]> = [];
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = before[field];
    const now = after[field];
    if (!differ(was, now)) continue;
    if (isPlainObject(was) && isPlainObject(now)) {
      for (const name of new Set([...Object.keys(was), ...Object.keys(now)])) if (differ(was[name], now[name])) paths.push([field, name]);
    } else paths.push([field]);
  }
  return paths;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
