/**
 * A declarative file in force: read when the settings are first read, and again whenever it changes
 * on disk, so every router reading one file follows its edits without a restart. A change that is
 * not valid is reported and the previous version stays in force: a typo never empties the routes.
 */

import fs from 'node:fs';
import path from 'node:path';
import type { Settings } from '../settings.js';
import type { SettingsOverlay } from '../store.js';
import { applyDeclarative } from './overlay.js';
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

export class DeclarativeFile implements SettingsOverlay {
  readonly path: string;
  private inForce: { stamp: string; config: DeclarativeConfig } | undefined;
  private reported = '';

  /** `report` hears of changes: a reload, or a change refused. */
  constructor(
    file: string,
    private readonly report: (message: string) => void = (message) => process.stderr.write(`svc-router: ${message}\n`),
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

  private load(stamp: string, storedBackends: string[]): void {
    let text: string;
    try {
      text = fs.readFileSync(this.path, 'utf8');
    } catch (error) {
      return this.refuse(stamp, `cannot read ${this.path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    const { config, problems } = validateText(text, { storedBackends });
    if (!config) return this.refuse(stamp, `${this.path} is not valid:\n${formatProblems(problems)}`);
    const first = !this.inForce;
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
