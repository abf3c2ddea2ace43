import { parseOrigin } from '../core/host-names.js';
import type { ApiResponse } from '../handlers/api.js';

/**
 * CORS for browser clients of the model endpoints, opt-in: only the origins listed in
 * `server.cors` get the headers that let their pages read an answer (Fetch standard, "CORS
 * protocol"). No list, no headers, and a preflight is a 405 as before. The dashboard, /admin and
 * /metrics never take part (src/server/host-guard.ts).
 *
 * A key travels in a request header (`Authorization`, `x-api-key`), never in a cookie, so no
 * answer allows credentials, and `*` in Expose-Headers then means every header.
 */

/** The configured origins, each in the spelling browsers send; a cache keyed by the list's identity. */
let cachedFrom: readonly unknown[] | undefined;
let cached: ReadonlySet<string> = new Set();

function allowedOrigins(configured: readonly unknown[] | undefined): ReadonlySet<string> {
  if (configured !== cachedFrom) {
    cachedFrom = configured;
    cached = new Set(
      (Array.isArray(configured) ? configured : []).flatMap((entry) => {
        const origin = typeof entry === 'string' ? parseOrigin(entry.trim()) : undefined;
        return origin === undefined ? [] : [origin];
      }),
    );
  }
  return cached;
}

/** A preflight's `Access-Control-Request-Headers`: a list of header names (tokens), bounded. */
const HEADER_LIST = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:\s*,\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$/;
const PREFLIGHT_MAX_AGE_SECONDS = '600';

export interface Cors {
  /** The request's origin when `server.cors` lists it. */
  origin?: string;
  /** Whether any origin is configured (answers then vary by Origin, which caches must know). */
  configured: boolean;
}

/** What CORS makes of a request: undefined when it has no Origin or none is configured (the common case, one lookup). */
export function corsOf(configured: readonly unknown[] | undefined, origin: string | undefined): Cors | undefined {
  if (origin === undefined || !Array.isArray(configured) || configured.length === 0) return undefined;
  const allowed = allowedOrigins(configured);
  const normalised = parseOrigin(origin);
  return normalised !== undefined && allowed.has(normalised) ? { origin: normalised, configured: true } : { configured: true };
}

/** Whether a request is a CORS preflight: OPTIONS that names the method it asks about. */
export const isPreflight = (method: string, headers: Readonly<Record<string, string | undefined>>): boolean =>
  method === 'OPTIONS' && headers.origin !== undefined && headers['access-control-request-method'] !== undefined;

/** The answer to a preflight from a listed origin: the methods the path takes and the headers asked for. */
export function preflightResponse(cors: Cors & { origin: string }, methods: string, headers: Readonly<Record<string, string | undefined>>, requestId: string): ApiResponse {
  const asked = headers['access-control-request-headers']?.trim();
  return {
    status: 204,
    headers: {
      'x-request-id': requestId,
      'access-control-allow-origin': cors.origin,
      'access-control-allow-methods': methods,
      ...(asked && asked.length <= 2_000 && HEADER_LIST.test(asked) ? { 'access-control-allow-headers': asked } : {}),
      'access-control-max-age': PREFLIGHT_MAX_AGE_SECONDS,
      vary: 'origin, access-control-request-method, access-control-request-headers',
    },
    empty: true,
  };
}

/** An answer with the CORS headers its origin gets: read access for a listed one, `Vary: Origin` either way. */
export function withCors(response: ApiResponse, cors: Cors): ApiResponse {
  const added: Record<string, string> = cors.origin === undefined ? { vary: 'origin' } : { 'access-control-allow-origin': cors.origin, 'access-control-expose-headers': '*', vary: 'origin' };
  return { ...response, headers: { ...response.headers, ...added } };
}
