/**
 * A declarative file in force: read when the settings are first read, and again whenever it changes
 * on disk, so every router reading one file follows its edits without a restart. A change that is
 * not valid is reported and the previous version stays in force: a typo never empties the routes.
 */

import fs from 'node:fs';
import path from 'node:path';
import { hashKey } from '../../core/router-keys.js';
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
  private inForce: { stamp: string; config: DeclarativeConfig } | undefined;
  private reported = '';

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
  }

  stamp(): string {
    try {
      const stat = fs.statSync(this.path);
      return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
    } catch {
      return 'missing';
    }
  }

  apply(stored: Settings): Settings {
    const stamp = this.stamp();
    if (!this.inForce || this.inForce.stamp !== stamp) this.load(stamp, Object.keys(stored.backends));
    return applyDeclarative(stored, this.inForce!.config);
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
    const given = (this.inForce?.config ?? {}) as Record<string, Record<string, unknown> | undefined>;
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
    const config = this.inForce?.config;
    if (!config) return [];
    const backends = Object.values(config.backends ?? {}).flatMap((backend) => [backend.apiKeyEnv, ...(backend.keyPool?.keys ?? []).map((key) => key.apiKeyEnv)]);
    return [config.sealingSecretEnv, ...backends].filter((name): name is string => typeof name === 'string');
  }

  private load(stamp: string, storedBackends: string[]): void {
    let text: string;
    try {
      text = fs.readFileSync(this.path, 'utf8');
    } catch (error) {
      return this.refuse(stamp, `cannot read ${this.path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    const { config, problems, warnings } = validateText(text, { storedBackends });
    if (!config) return this.refuse(stamp, `${this.path} is not valid:\n${formatProblems(problems)}`);
    const first = !this.inForce;
    if (this.options.warnUnsetEnv && warnings.length && !first) this.report(`warning: in ${this.path}:\n${formatProblems(warnings)}`);
    this.inForce = { stamp, config };
    if (!first) this.report(`reloaded ${this.path} (${count(config.backends, 'backend')}, ${count(config.routes, 'route')})`);
  }

  private refuse(stamp: string, reason: string): void {
    if (!this.inForce) throw new DeclarativeFileError(reason);
    // Said once per version of the file, not on every request that reads the settings.
    if (this.reported !== stamp) this.report(`${reason}\n  the previous version stays in force until the file is fixed`);
    this.reported = stamp;
  }
}

const count = (table: object | undefined, noun: string): string => (table ? `${Object.keys(table).length} ${noun}(s)` : `${noun}s from config.json`);
