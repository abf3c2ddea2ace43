import { BrokenFileError, describeAt } from '../files/broken-file.js';
import { positionOfPath, readJsonText } from '../files/json-text.js';
import type { FileReading } from '../files/last-good-file.js';
import { withDefaults, type Settings } from './settings.js';
import { settingsShapeProblems, unknownSettingsFields } from './settings-shape.js';

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

/** A field of config.json the settings do not know: what it is, and where. */
export interface UnknownField {
  /** `guardrails: unknown field "secret" (did you mean "secrets"?) (known: secrets)`. */
  message: string;
  /** The message after the file, line and column (`FILE line 7, column 15: …`). */
  at: string;
}

/** The fields of config.json's text that the settings do not know: the router ignores them. None for a text that is not JSON (parseStoredSettings says where). */
export function unknownStoredFields(file: string, text: string): UnknownField[] {
  const reading = readJsonText(text);
  if (!reading.ok) return [];
  return unknownSettingsFields(reading.value).map((problem) => ({ message: problem.message, at: describeAt(file, { ...positionOfPath(text, problem.path), message: problem.message }) }));
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
