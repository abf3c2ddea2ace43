import { usageError } from './cli-error.js';
import { SLUG_PATTERN } from '../core/router-keys.js';

export function parsePositiveInteger(value: string, name: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw usageError(`${name} must be a positive whole number, got '${value}'`);
  }
  return Number(value);
}

export function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65_535) throw usageError(`--port must be a number from 0 to 65535, got '${value}'`);
  return Number(value);
}

export function parseSlug(value: string): string {
  if (!SLUG_PATTERN.test(value)) {
    throw usageError(`developer slug '${value}' is not valid: use lower-case letters, digits and hyphens (up to 40), e.g. 'alice' or 'bob-smith'`);
  }
  return value;
}

export function parseHttpUrl(value: string, name: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usageError(`${name} is not a valid URL: '${value}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`${name} must be an http:// or https:// URL, got '${value}'`);
  return value.replace(/\/+$/, '');
}

/** A developer slug derived from the login name, for `init` without --developer. */
export function defaultSlug(login: string): string {
  const slug = login.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40);
  return SLUG_PATTERN.test(slug) ? slug : 'local';
}
