import { expect } from 'vitest';
import { RouterError } from '../../../src/core/errors.js';
import type { CanonicalRequest } from '../../../src/core/request.js';

/** What a 400 for bad input must say: the field at fault, the exact message and, when set, the code. */
export interface InvalidCase {
  param: string;
  message: string;
  code?: string;
}

/** Runs `run`, which must throw; returns the RouterError it threw. */
export function thrownBy(run: () => unknown): RouterError {
  try {
    run();
  } catch (error) {
    if (error instanceof RouterError) return error;
    throw new Error(`expected a RouterError, got ${String(error)}`);
  }
  throw new Error('expected a RouterError, but nothing was thrown');
}

/** Asserts a 400 invalid_request naming `param`, with exactly `message` (and `code` when given). */
export function expectInvalid(run: () => unknown, expected: InvalidCase): void {
  const error = thrownBy(run);
  expect({ status: error.status, kind: error.kind, param: error.param, message: error.message }).toEqual({
    status: 400,
    kind: 'invalid_request',
    param: expected.param,
    message: expected.message,
  });
  if (expected.code !== undefined) expect(error.code).toBe(expected.code);
}

/** The messages a field reader's errors use, so tables name them once. */
export const required = (path: string): InvalidCase => ({ param: path, message: `${path}: this field is required.`, code: 'missing_required_parameter' });
export const expected = (path: string, what: string): InvalidCase => ({ param: path, message: `${path}: expected ${what}.`, code: 'invalid_type' });
export const atLeast = (path: string, min: number): InvalidCase => ({ param: path, message: `${path}: must be at least ${min}.` });
export const atMost = (path: string, max: number): InvalidCase => ({ param: path, message: `${path}: must be at most ${max}.` });

/** A canonical text part, and the one user turn every minimal body holds. */
export const text = (value: string) => ({ type: 'text' as const, text: value });
export const userHi = { role: 'user' as const, content: [text('hi')] };

/** Only the canonical fields a row names are compared; a field named as undefined must be absent. */
export function pick(request: CanonicalRequest, want: Partial<CanonicalRequest>): Partial<CanonicalRequest> {
  return Object.fromEntries(Object.keys(want).map((key) => [key, request[key as keyof CanonicalRequest]]));
}
