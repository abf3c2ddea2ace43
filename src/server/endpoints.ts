import type { RouterError } from '../core/errors.js';
import type { ClientFormat, FormatRoute, RequiredHeader } from '../formats/client-format.js';
import { DEFAULT_FORMAT, FORMATS, modelsFormatOf } from '../formats/registry.js';
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
  /** For an endpoint every format's clients call (the models list): the format a request's errors are answered in, from its headers and query string. */
  answeredIn?(headers: Readonly<Record<string, string | undefined>>, query: string | undefined): ClientFormat;
}

/**
 * The endpoints no one format owns: they take a key wherever any format's clients send one, and
 * answer in the default format's errors, or (the models list) in those of the format whose client asks.
 */
const SHARED_ROUTES: readonly { path: string; name: string; method: 'GET'; handle: Endpoint['handle']; claimed?: true }[] = [
  { path: '/whoami', name: 'whoami', method: 'GET', handle: handleWhoami },
  { path: '/v1/models', name: 'models', method: 'GET', handle: (context) => handleModels(context), claimed: true },
  // `client.models.retrieve(id)` in both SDKs.
  { path: '/v1/models/{id}', name: 'models', method: 'GET', handle: (context) => handleModel(context), claimed: true },
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

/** Every format's key sources, each once, in registry order: where a shared endpoint reads a key. */
const EVERY_KEY_SOURCE: readonly KeySource[] = (FORMATS as readonly ClientFormat[])
  .flatMap((format) => format.keySources)
  .filter((source, index, all) => all.findIndex((other) => JSON.stringify(other) === JSON.stringify(source)) === index);

/** A path with `{name}` segments, matched after the exact paths. */
interface PatternEndpoint {
  key: string;
  regExp: RegExp;
  names: string[];
  /** Characters of the pattern outside its `{name}` segments: the more, the more specific. */
  literal: number;
  endpoint: Endpoint;
}

/** A route table: exact paths by path, patterns most specific first, and every path in the order it was added. */
export interface RouteTable {
  exact: Record<string, Endpoint>;
  patterns: PatternEndpoint[];
  all: [string, Endpoint][];
}

/**
 * The table for a list of paths. Patterns are tried most specific first (the most characters
 * outside their `{name}` segments; ties in the order added), so a path that two patterns match
 * goes to the narrower one whatever order they were listed in: `/v1/models/x:countTokens` to
 * `/v1/models/{model}:countTokens`, not to `/v1/models/{id}`, whose segment would swallow the `:`.
 */
export function buildRouteTable(routes: Iterable<readonly [string, Endpoint]>): RouteTable {
  // No prototype: a path is client input, and `constructor` or `__proto__` must not find anything.
  const exact: Record<string, Endpoint> = Object.create(null) as Record<string, Endpoint>;
  const patterns: PatternEndpoint[] = [];
  const all: [string, Endpoint][] = [];
  for (const [path, endpoint] of routes) {
    if (all.some(([known]) => known === path)) throw new Error(`Two endpoints claim ${path}.`);
    all.push([path, endpoint]);
    if (!path.includes('{')) {
      exact[path] = endpoint;
      continue;
    }
    const names: string[] = [];
    let literal = 0;
    const source = path
      .split(/(\{[A-Za-z_]\w*\})/)
      .map((piece) => {
        if (!/^\{\w+\}$/.test(piece)) {
          literal += piece.length;
          return piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        }
        names.push(piece.slice(1, -1));
        return '([^/]+?)';
      })
      .join('');
    patterns.push({ key: path, regExp: new RegExp(`^${source}$`), names, literal, endpoint });
  }
  // Array.prototype.sort is stable: equally specific patterns keep the order they were added in.
  patterns.sort((a, b) => b.literal - a.literal);
  return { exact, patterns, all };
}

function buildTable(): RouteTable {
  const routes: [string, Endpoint][] = [];
  for (const route of SHARED_ROUTES) {
    const endpoint = { ...endpointOf(DEFAULT_FORMAT, route, route.handle), keySources: EVERY_KEY_SOURCE };
    routes.push([route.path, route.claimed ? { ...endpoint, answeredIn: modelsFormatOf } : endpoint]);
  }
  for (const format of FORMATS as readonly ClientFormat[]) for (const route of format.routes) routes.push([route.path, endpointOf(format, route, formatRoute(format, route))]);
  return buildRouteTable(routes);
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
 * patterns, most specific first. A path is client input, so it is never looked up through a prototype.
 */
export function findEndpoint(path: string, table: RouteTable = TABLE): FoundEndpoint | undefined {
  if (Object.hasOwn(table.exact, path)) return { key: path, endpoint: table.exact[path]!, params: NO_PARAMS };
  for (const pattern of table.patterns) {
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
