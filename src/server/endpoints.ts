import type { RouterError } from '../core/errors.js';
import type { ClientFormat, FormatRoute, RequiredHeader } from '../formats/client-format.js';
import { DEFAULT_FORMAT, FORMATS } from '../formats/registry.js';
import type { ApiResponse } from '../handlers/api.js';
import type { RequestContext } from '../handlers/context.js';
import { handleModel, handleModels } from '../handlers/models.js';
import { handleSessions } from '../handlers/sessions.js';
import { handleUsage } from '../handlers/usage.js';
import { handleWhoami } from '../handlers/whoami.js';
import type { KeySource } from '../identity/authenticate.js';

export interface Endpoint {
  /** A short name for logs and metrics: the client format for the model endpoints. */
  name: string;
  method: 'GET' | 'POST';
  handle(context: RequestContext): Promise<ApiResponse>;
  /** The format whose error body, key sources and required headers the endpoint uses. */
  format: ClientFormat;
  keySources: readonly KeySource[];
  requiredHeaders: readonly RequiredHeader[];
  errorBody(error: RouterError, requestId: string): unknown;
}

/** The endpoints no one format owns: they answer in the default format's errors, and take its key sources. */
const SHARED_ROUTES: readonly { path: string; name: string; method: 'GET'; handle: Endpoint['handle'] }[] = [
  { path: '/whoami', name: 'whoami', method: 'GET', handle: handleWhoami },
  { path: '/v1/models', name: 'models', method: 'GET', handle: handleModels },
  // `client.models.retrieve(id)` in both SDKs.
  { path: '/v1/models/{id}', name: 'models', method: 'GET', handle: handleModel },
  // Everyone's usage: admin keys only (src/identity/admin.ts).
  { path: '/admin/usage', name: 'usage', method: 'GET', handle: handleUsage },
  // Each session's turns and cache drops, from this router's memory: admin keys only.
  { path: '/admin/sessions', name: 'sessions', method: 'GET', handle: handleSessions },
];

/**
 * A format's route, its handler loaded on the first request: the completion path (backends,
 * policies, translators) is most of the router's code, and a quick check such as `whoami` never
 * takes it. A server loads them all before it listens (loadEndpointHandlers).
 */
function formatRoute(format: ClientFormat, route: FormatRoute): Endpoint['handle'] {
  let handle: Endpoint['handle'] | undefined;
  const load = async () => (handle ??= (await loadFormatRoutes()).formatRouteHandler(format, route));
  LOADERS.push(load);
  return (context) => (handle ? handle(context) : load().then((loaded) => loaded(context)));
}

const loadFormatRoutes = () => import('../handlers/format-routes.js');
const LOADERS: Array<() => Promise<unknown>> = [];

/** Loads every handler the table loads on first use, so that a server's first request does not wait for it. */
export async function loadEndpointHandlers(): Promise<void> {
  await Promise.all(LOADERS.map((load) => load()));
}

const endpointOf = (format: ClientFormat, route: Omit<FormatRoute, 'path'>, handle: Endpoint['handle']): Endpoint => ({
  name: route.name ?? format.name,
  method: route.method,
  handle,
  format,
  keySources: format.keySources,
  requiredHeaders: format.requiredHeaders ?? [],
  errorBody: (error, requestId) => format.errorBody(error, requestId),
});

/** A path with `{name}` segments, matched after the exact paths. */
interface PatternEndpoint {
  key: string;
  regExp: RegExp;
  names: string[];
  endpoint: Endpoint;
}

function buildTable(): { exact: Record<string, Endpoint>; patterns: PatternEndpoint[]; all: [string, Endpoint][] } {
  // No prototype: a path is client input, and `constructor` or `__proto__` must not find anything.
  const exact: Record<string, Endpoint> = Object.create(null) as Record<string, Endpoint>;
  const patterns: PatternEndpoint[] = [];
  const all: [string, Endpoint][] = [];
  const add = (path: string, endpoint: Endpoint) => {
    if (all.some(([known]) => known === path)) throw new Error(`Two endpoints claim ${path}.`);
    all.push([path, endpoint]);
    if (!path.includes('{')) {
      exact[path] = endpoint;
      return;
    }
    const names: string[] = [];
    const source = path
      .split(/(\{[A-Za-z_]\w*\})/)
      .map((piece) => {
        if (!/^\{\w+\}$/.test(piece)) return piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(piece.slice(1, -1));
        return '([^/]+?)';
      })
      .join('');
    patterns.push({ key: path, regExp: new RegExp(`^${source}$`), names, endpoint });
  };
  for (const route of SHARED_ROUTES) add(route.path, endpointOf(DEFAULT_FORMAT, route, route.handle));
  for (const format of FORMATS as readonly ClientFormat[]) for (const route of format.routes) add(route.path, endpointOf(format, route, formatRoute(format, route)));
  return { exact, patterns, all };
}

const TABLE = buildTable();

/** Every endpoint by its path (patterns as written, `/v1/models/{id}`), in the order they were added. */
export const ENDPOINTS: Readonly<Record<string, Endpoint>> = Object.freeze(Object.fromEntries(TABLE.all));

export interface FoundEndpoint {
  /** The table key: the path, or the pattern it matched (a fixed string, fit for logs and metrics). */
  key: string;
  endpoint: Endpoint;
  /** The values of the pattern's `{name}` segments. */
  params: Record<string, string>;
}

const NO_PARAMS: Record<string, string> = Object.freeze(Object.create(null) as Record<string, string>);

/**
 * The endpoint serving a path: an exact path is one lookup in a table without a prototype, then the
 * patterns in order. A path is client input, so it is never looked up through a prototype.
 */
export function findEndpoint(path: string): FoundEndpoint | undefined {
  if (Object.hasOwn(TABLE.exact, path)) return { key: path, endpoint: TABLE.exact[path]!, params: NO_PARAMS };
  for (const pattern of TABLE.patterns) {
    const match = pattern.regExp.exec(path);
    if (!match) continue;
    const params: Record<string, string> = Object.create(null) as Record<string, string>;
    pattern.names.forEach((name, index) => (params[name] = match[index + 1]!));
    return { key: pattern.key, endpoint: pattern.endpoint, params };
  }
  return undefined;
}

/**
 * The base URL mistake an unmatched path shows, with the endpoint it was meant for: `/v1` left out
 * (`/chat/completions`), or something in front of an endpoint's whole path (`/v1/v1/messages`
 * from a base URL ending in /v1 whose client adds /v1 itself; `/api/v1/messages`).
 */
export function baseUrlMistake(path: string): { found: FoundEndpoint; extra?: string } | undefined {
  const missing = findEndpoint(`/v1${path}`);
  if (missing) return { found: missing };
  for (let at = path.indexOf('/v1/', 1); at !== -1; at = path.indexOf('/v1/', at + 1)) {
    const found = findEndpoint(path.slice(at));
    if (found) return { found, extra: path.slice(0, at) };
  }
  return undefined;
}

/**
 * The endpoint an unmatched path was probably meant for, so its 404 comes in the right format: the
 * one a base URL mistake hides, else a route the path extends or whose last segment it names
 * (`/messages` → messages).
 */
export function likelyEndpoint(path: string): Endpoint | undefined {
  const near = baseUrlMistake(path)?.found;
  if (near) return near.endpoint;
  for (const [key, endpoint] of Object.entries(ENDPOINTS)) {
    if (key.includes('{')) continue;
    const last = key.slice(key.lastIndexOf('/') + 1);
    if (path.startsWith(`${key}/`) || path.includes(last)) return endpoint;
  }
  return undefined;
}
