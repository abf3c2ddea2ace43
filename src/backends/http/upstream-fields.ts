import { RouterError } from '../../core/errors.js';

/**
 * Small readers for what an upstream sends: each checks one field and returns it typed, or throws
 * a FieldFault naming the field by its path from the top of the body. A backend's `api.ts` reads
 * exactly the fields its decoders use with these, and `checkedUpstream` turns a fault into the 502
 * a client sees. Fields nobody reads are not looked at, so additions to an upstream's API pass.
 *
 * Every check is a typeof or Array.isArray on a value already parsed, and paths are constants
 * until something is wrong (`items` and `nested` add their part of the path to a fault on its way
 * out), so checking a streamed chunk costs tens of nanoseconds.
 */
export type Json = Record<string, unknown>;

/** A field at fault: its path (`choices[0].delta.content`) and what is wrong with it. */
export class FieldFault {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {}
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export function object(value: unknown, path: string): Json {
  if (isObject(value)) return value;
  throw fault(value, path, 'an object');
}

/** Absent and null both read as absent: the providers send null for "none" in many places. */
export function optionalObject(value: unknown, path: string): Json | undefined {
  if (value === undefined || value === null) return undefined;
  if (isObject(value)) return value;
  throw fault(value, path, 'an object');
}

export function optionalArray(value: unknown, path: string): unknown[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value;
  throw fault(value, path, 'an array');
}

export function string(value: unknown, path: string): string {
  if (typeof value === 'string') return value;
  throw fault(value, path, 'a string');
}

/** A name or an id: a string with something in it, since an empty one would be passed on as if real. */
export function name(value: unknown, path: string): string {
  if (typeof value === 'string' && value !== '') return value;
  if (value === '') throw new FieldFault(path, 'is empty');
  throw fault(value, path, 'a string');
}

export function optionalString(value: unknown, path: string): void {
  if (value !== undefined && value !== null && typeof value !== 'string') throw fault(value, path, 'a string');
}

/** Absent, or a string: for fields the providers leave out rather than send as null. */
export function absentOrString(value: unknown, path: string): void {
  if (value !== undefined && typeof value !== 'string') throw fault(value, path, 'a string');
}

export function optionalNumber(value: unknown, path: string): void {
  if (value !== undefined && value !== null && (typeof value !== 'number' || !Number.isFinite(value))) throw fault(value, path, 'a number');
}

export function optionalIndex(value: unknown, path: string): void {
  if (value !== undefined && value !== null && (typeof value !== 'number' || !Number.isInteger(value) || value < 0)) throw fault(value, path, 'a whole number');
}

/** Checks each item of a list with `check`, which names fields relative to the item. */
export function items(list: unknown[], path: string, check: (item: Json) => void): void {
  for (let i = 0; i < list.length; i++) {
    try {
      check(object(list[i], ''));
    } catch (error) {
      throw error instanceof FieldFault ? new FieldFault(error.path === '' ? `${path}[${i}]` : `${path}[${i}].${error.path}`, error.problem) : error;
    }
  }
}

/** Checks a value with `check`, which names fields relative to it (one check serving several places). */
export function nested(value: unknown, path: string, check: (value: unknown) => void): void {
  try {
    check(value);
  } catch (error) {
    throw error instanceof FieldFault ? new FieldFault(error.path === '' ? path : `${path}.${error.path}`, error.problem) : error;
  }
}

function fault(value: unknown, path: string, expected: string): FieldFault {
  return new FieldFault(path, value === undefined ? 'is missing' : value === null ? 'is null' : `is not ${expected}`);
}

/**
 * Runs a backend's check over a parsed body. `what` says what was being read ("reply", "stream
 * chunk", "stream event"); a fault becomes a 502 whose message names the backend and the field.
 */
export function checkedUpstream<T>(backend: string, what: string, raw: unknown, check: (raw: unknown) => T): T {
  try {
    return check(raw);
  } catch (error) {
    if (!(error instanceof FieldFault)) throw error;
    const message = error.path === '' ? `Backend '${backend}' sent a ${what} that is not a JSON object.` : `Backend '${backend}' sent a ${what} whose ${error.path} ${error.problem}.`;
    throw new RouterError(502, 'upstream', message);
  }
}
