import { BrokenFileError } from '../files/broken-file.js';
import { positionOfPath, readJsonText } from '../files/json-text.js';
import type { FileReading } from '../files/last-good-file.js';
import { withDefaults, type Settings } from './settings.js';
import { settingsShapeProblems } from './settings-shape.js';

/**
 * config.json's text as settings, or why it cannot be used: not JSON (where the first syntax
 * error is), or a value of the wrong type (where each is). Either way the error names the file,
 * line and column and quotes nothing of the text, which holds keys.
 */
export function parseStoredSettings(file: string, text: string): FileReading<Settings> {
  const reading = readJsonText(text);
  if (!reading.ok) return { error: new BrokenFileError(file, [reading.problem]) };
  const [first, ...rest] = settingsShapeProblems(reading.value).map((problem) => ({ ...positionOfPath(text, problem.path), message: problem.message }));
  if (first) return { error: new BrokenFileError(file, [first, ...rest]) };
  return { value: ownTables(withDefaults((reading.value ?? {}) as Partial<Settings>)) };
}

/** The settings as config.json holds them: tab-indented JSON, as it has always been written. */
export const serializeSettings = (settings: Settings): string => JSON.stringify(settings, undefined, '\t');

/**
 * The settings' name-keyed tables (keys by developer slug, backends, routes and prices by name) as objects
 * without a prototype: a name such as `constructor` or `__proto__` is then an entry like any other,
 * found only when it was stored, and storing `__proto__` stores an entry instead of replacing the
 * table's prototype.
 */
export function ownTables(settings: Settings): Settings {
  settings.keys = Object.assign(Object.create(null) as Settings['keys'], settings.keys);
  settings.backends = Object.assign(Object.create(null) as Settings['backends'], settings.backends);
  settings.routes = Object.assign(Object.create(null) as Settings['routes'], settings.routes);
  settings.routePolicies = Object.assign(Object.create(null) as Settings['routePolicies'], settings.routePolicies);
  settings.prices = Object.assign(Object.create(null) as Settings['prices'], settings.prices);
  return settings;
}
