import { RouterError } from '../core/errors.js';
import type { Settings } from '../config/settings.js';
import type { Identity } from './identity.js';
import { keyMatchesHash, slugOfKey } from '../core/router-keys.js';
import { readingsWithoutWhitespace, type KeyWhitespace } from './key-whitespace.js';
import { providerKeyOf } from './provider-keys.js';

const NO_MATCH_HASH = '0'.repeat(64);

/**
 * Checks a presented key exactly as given: never trimmed or normalised. A missing key's error
 * names where the endpoint reads one (`sources`), so each format's client is told its own way.
 */
export function authenticate(settings: Settings, presented: string | undefined, sources: readonly KeySource[] = DEFAULT_KEY_SOURCES): Identity {
  if (presented === undefined || presented === '') {
    const [first, ...others] = sources.map(sourceExample);
    throw unauthorized(`Missing API key. Send it as ${first ?? '"Authorization: Bearer <key>"'}${others.length ? ` (or ${others.join(', or ')})` : ''}.`);
  }
  const identity = lookup(settings, presented);
  if (identity) return identity;
  const whitespace = whitespaceHidingAKey(settings, presented);
  if (whitespace === 'raw') {
    throw unauthorized('Invalid API key: it contains whitespace (a trailing space or newline?). Fix the key; no trailing whitespace.');
  }
  if (whitespace === 'escaped') {
    throw unauthorized('Invalid API key: it contains whitespace written out as an escape ("\\n", "%20" or the like). Fix the key; no trailing whitespace.');
  }
  const provider = providerKeyOf(presented.trim());
  if (provider) {
    throw unauthorized(
      `Invalid API key: this is a provider's key (${provider.provider}, ${provider.shown}), not one this router issued. Send the svc_… key this router gave you: \`svc-router env\` prints it.`,
    );
  }
  throw unauthorized('Invalid API key. Check the key you were issued (svc-router whoami shows who a key belongs to).');
}

/** Whether the key, without its white space (raw, or written out as an escape), is a valid one. */
function whitespaceHidingAKey(settings: Settings, presented: string): KeyWhitespace | undefined {
  for (const reading of readingsWithoutWhitespace(presented)) {
    if (lookup(settings, reading.key)) return reading.escaped ? 'escaped' : 'raw';
  }
  return undefined;
}

/**
 * Keys already accepted under a settings snapshot. A snapshot is replaced whenever the config file
 * changes, so a revoked key is hashed and checked afresh; only successes are remembered, so an
 * unknown key always pays for the hash and learns nothing from timing.
 */
const accepted = new WeakMap<Settings, Map<string, Identity>>();
/** Enough for every key a team uses; a flood of distinct valid keys just stops being remembered. */
const MAX_REMEMBERED = 1_000;

function lookup(settings: Settings, key: string): Identity | undefined {
  const known = accepted.get(settings)?.get(key);
  if (known) return known;
  const identity = verify(settings, key);
  if (identity) {
    let remembered = accepted.get(settings);
    if (!remembered) accepted.set(settings, (remembered = new Map()));
    if (remembered.size < MAX_REMEMBERED) remembered.set(key, identity);
  }
  return identity;
}

function verify(settings: Settings, key: string): Identity | undefined {
  const slug = slugOfKey(key);
  // Only a record the config holds: a slug such as `constructor` must not reach Object.prototype.
  const record = slug !== undefined && Object.hasOwn(settings.keys, slug) ? settings.keys[slug] : undefined;
  // Hash and compare even when no record matches, so timing does not reveal which slugs exist.
  const matches = keyMatchesHash(key, record?.hash ?? NO_MATCH_HASH);
  if (!record || !matches) return undefined;
  return {
    developer: record.developer,
    organisation: record.organisation,
    tier: record.tier,
    capTokens: record.capTokens,
    ...(record.rateLimit ? { rateLimit: record.rateLimit } : {}),
  };
}

const unauthorized = (message: string): RouterError =>
  new RouterError(401, 'authentication', message, undefined, 'invalid_api_key');

/**
 * Where a client format sends its key: a header (with a scheme, the value's `<scheme> ` prefix is
 * dropped when present), or a query parameter (Google's `?key=`), which the request log never
 * records, as it records paths without their query.
 */
export type KeySource = { readonly header: string; readonly scheme?: string } | { readonly query: string };

/** Where a request that speaks no particular format (whoami, models) may send its key: `x-api-key`, else `Authorization: Bearer`. */
export const DEFAULT_KEY_SOURCES: readonly KeySource[] = [{ header: 'x-api-key' }, { header: 'authorization', scheme: 'bearer' }];

/** How a source is written in an error that asks for a key: `"x-api-key: <key>"`, `"?key=<key>"`. */
function sourceExample(source: KeySource): string {
  if ('query' in source) return `"?${source.query}=<key>" in the URL`;
  const name = source.header === 'authorization' ? 'Authorization' : source.header;
  return `"${name}: ${source.scheme ? `${source.scheme[0]!.toUpperCase()}${source.scheme.slice(1)} ` : ''}<key>"`;
}

/**
 * The key a request presents: the first of `sources` it carries. `query` is the request's query
 * string (without its `?`), read only when a source names a parameter.
 */
export function presentedKey(headers: Readonly<Record<string, string | undefined>>, sources: readonly KeySource[] = DEFAULT_KEY_SOURCES, query?: string): string | undefined {
  let parsed: URLSearchParams | undefined;
  for (const source of sources) {
    if ('query' in source) {
      if (!query) continue;
      parsed ??= new URLSearchParams(query);
      const value = parsed.get(source.query);
      if (value !== null) return value;
      continue;
    }
    const { header, scheme } = source;
    const value = headers[header];
    if (value === undefined) continue;
    if (scheme === undefined) return value;
    // Keep everything after the scheme's single space: a doubled space is part of what was sent.
    const prefix = value.slice(0, scheme.length + 1);
    return prefix.length === scheme.length + 1 && prefix.endsWith(' ') && prefix.slice(0, -1).toLowerCase() === scheme.toLowerCase() ? value.slice(scheme.length + 1) : value;
  }
  return undefined;
}
