import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The router's own keys, `svc_<developer>_<secret>`: their shape, how one is made, and the hash the
 * config stores in its place. identity/ checks a presented key with these; config validation and
 * the CLI read the same shape.
 */

/** Developer slugs are lower-case words joined by hyphens, so a key's slug part never holds `_`. */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;
const KEY_PATTERN = /^svc_([a-z0-9-]+)_[A-Za-z0-9_-]{32,}$/;

export function generateKey(developer: string): string {
  return `svc_${developer}_${randomBytes(24).toString('base64url')}`;
}

export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/** The developer slug a well-formed key names, or undefined. */
export function slugOfKey(key: string): string | undefined {
  return KEY_PATTERN.exec(key)?.[1];
}

/** Compares a presented key with a stored hash in time independent of where they differ. */
export function keyMatchesHash(key: string, hash: string): boolean {
  const expected = Buffer.from(hash, 'hex');
  const actual = createHash('sha256').update(key).digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** What a listing may show of a key: its slug part and four characters, never enough to use it. */
export function keyHint(key: string): string {
  const slug = slugOfKey(key) ?? '';
  return `${key.slice(0, `svc_${slug}_`.length + 4)}…`;
}
