import { invalidRequest } from '../../core/errors.js';

/**
 * Small readers for untrusted JSON: each returns the typed value or throws a 400 that names the
 * field by its path, so a client sees exactly what to fix.
 */
export type Json = Record<string, unknown>;

export function asObject(value: unknown, path: string): Json {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw wrongType(path, 'an object');
  return value as Json;
}

export function asArray(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) throw wrongType(path, 'an array');
  return value;
}

export function requiredString(object: Json, key: string, path = key): string {
  const value = object[key];
  if (value === undefined || value === null) throw missing(path);
  if (typeof value !== 'string') throw wrongType(path, 'a string');
  return value;
}

export function optionalString(object: Json, key: string, path = key): string | undefined {
  const value = object[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw wrongType(path, 'a string');
  return value;
}

export function optionalNumber(object: Json, key: string, path = key, range: { min?: number; max?: number } = {}): number | undefined {
  const value = object[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw wrongType(path, 'a number');
  if (range.min !== undefined && value < range.min) throw invalidRequest(`${path}: must be at least ${range.min}.`, path);
  if (range.max !== undefined && value > range.max) throw invalidRequest(`${path}: must be at most ${range.max}.`, path);
  return value;
}

export function optionalInteger(object: Json, key: string, path = key, min = 1): number | undefined {
  const value = object[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw wrongType(path, 'an integer');
  if (value < min) throw invalidRequest(`${path}: must be at least ${min}.`, path);
  return value;
}

export function optionalBoolean(object: Json, key: string, path = key): boolean | undefined {
  const value = object[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw wrongType(path, 'a boolean');
  return value;
}

/** `stop`-style fields: a string or a list of strings. */
export function optionalStringList(object: Json, key: string, path = key): string[] | undefined {
  const value = object[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
  throw wrongType(path, 'a string or an array of strings');
}

/** Request metadata: string values only, as both OpenAI and Anthropic define it. */
export function optionalMetadata(object: Json, key: string): Record<string, string> | undefined {
  const value = object[key];
  if (value === undefined || value === null) return undefined;
  const record = asObject(value, key);
  // fromEntries defines own properties, so a key named `__proto__` is kept, not turned into a prototype.
  return Object.fromEntries(Object.entries(record).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

export const missing = (path: string) => invalidRequest(`${path}: this field is required.`, path, 'missing_required_parameter');

export const wrongType = (path: string, expected: string) =>
  invalidRequest(`${path}: expected ${expected}.`, path, 'invalid_type');
