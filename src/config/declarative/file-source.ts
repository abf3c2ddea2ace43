/**
 * A declarative file in force: read when the settings are first read, and again whenever it changes
 * on disk, so every router reading one file follows its edits without a restart. A change that is
 * not valid is reported and the previous version stays in force: a typo never empties the routes.
 */

import path from 'node:path';
import { hashKey } from '../../core/router-keys.js';
import { fileStamp, LastGoodFile, type FileReading } from '../../files/last-good-file.js';
import type { Settings } from '../settings.js';
import { applyDeclarative } from './overlay.js';
import { SETTINGS_PLACEMENT, type Placement } from './placement.js';
import { formatProblems } from './report.js';
import type { DeclarativeConfig } from './schema.js';
import { validateText } from './validate.js';

/** The first read of a file that is missing or not valid: nothing may start on it. */
export class DeclarativeFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeclarativeFileError';
  }
}

/** A SettingsOverlay (src/config/store.ts, which loads this module and checks the shape where it takes one). */
export class DeclarativeFile {
  readonly path: string;
  private readonly file: LastGoodFile<DeclarativeConfig>;
  /** The stored backends routes may name when the file has none of its own, as of the last apply. */
  private storedBackends: string[] = [];
  /** What the version last parsed warns of (variables not set here), told when it is taken after the first. */
  private warnings = '';

  /**
   * `report` hears of changes: a reload, or a change refused; with `warnUnsetEnv` (serve), also of
   * each variable a reloaded file names that is not set here, since the router runs on without it
   * (serve itself says so at start, for the file's variables and config.json's alike).
   */
  constructor(
    file: string,
    private readonly report: (message: string) => void = (message) => process.stderr.write(`svc-router: ${message}\n`),
    private readonly options: { warnUnsetEnv?: boolean } = {},
  ) {
    this.path = path.resolve(file);
    this.file = new LastGoodFile(this.path, {
      parse: (text) => this.parse(text),
      report,
      taken: (config, { first }) => {
        if (first) return;
        if (this.warnings) report(this.warnings);
        report(`reloaded ${this.path} (${count(config.backends, 'backend')}, ${count(config.routes, 'route')})`);
      },
      // Nothing may start on a file that is missing or not valid.
      unreadable: (message) => new DeclarativeFileError(message),
    });
  }

  stamp(): string {
    return fileStamp(this.path);
  }

  apply(stored: Settings): Settings {
    this.storedBackends = Object.keys(stored.backends);
    return applyDeclarative(stored, this.file.read());
  }

  /**
   * A change to config.json that the file hides has no effect while the file is in force: say so.
   * The local key's own record is the exception: it stays in force beside the file's keys.
   */
  changedUnder(paths: ReadonlyArray<readonly [string, string?]>, settings: Settings): void {
    const names = this.hides(paths, settings);
    if (names.length) this.report(`warning: saved in config.json, but ${this.path} sets ${names.join(', ')} while it is in force, so the change has no effect; edit that file instead`);
  }

  /** Of these changes to config.json, the fields (or table entries) this file sets, where they would have no effect. */
  hides(paths: ReadonlyArray<readonly [string, string?]>, settings: Settings): string[] {
    const given = (this.file.inForce ?? {}) as Record<string, Record<string, unknown> | undefined>;
    const localSlug = settings.localKey ? Object.entries(settings.keys).find(([, record]) => record.hash === hashKey(settings.localKey!))?.[0] : undefined;
    const hidden = paths.filter(([field, name]) => {
      const placement = (SETTINGS_PLACEMENT as Record<string, Placement>)[field];
      if (given[field] === undefined || placement === undefined || placement === 'local' || typeof placement === 'object') return false;
      if (field === 'keys' && name !== undefined && name === localSlug) return false;
      return placement !== 'group' || name === undefined || Object.hasOwn(given[field]!, name);
    });
    return [...new Set(hidden.map(([field, name]) => (SETTINGS_PLACEMENT as Record<string, Placement>)[field] === 'group' && name ? `${field}.${name}` : field))];
  }

  /** The environment variables the file in force reads keys and the sealing secret from, by name (never their values). */
  variables(): string[] {
    const config = this.file.inForce;
    if (!config) return [];
    const backends = Object.values(config.backends ?? {}).flatMap((backend) => [backend.apiKeyEnv, ...(backend.keyPool?.keys ?? []).map((key) => key.apiKeyEnv)]);
    return [config.sealingSecretEnv, ...backends].filter((name): name is string => typeof name === 'string');
  }

  private parse(text: string): FileReading<DeclarativeConfig> {
    const { config, problems, warnings } = validateText(text, { storedBackends: this.storedBackends });
    if (!config) return { error: new DeclarativeFileError(`${this.path} is not valid:\n${formatProblems(problems)}`) };
    this.warnings = this.options.warnUnsetEnv && warnings.length ? `warning: in ${this.path}:\n${formatProblems(warnings)}` : '';
    return { value: config };
  }
}

const count = (table: object | undefined, noun: string): string => (table ? `${Object.keys(table).length} ${noun}(s)` : `${noun}s from config.json`);
