import { RouterError, toRouterError } from '../core/errors.js';
import { RequestPhases } from '../core/request-phases.js';
import type { RequiredHeader } from '../formats/client-format.js';
import { DEFAULT_FORMAT } from '../formats/registry.js';
import { newId } from '../formats/shared/ids.js';
import { authenticate, presentedKey } from '../identity/authenticate.js';
import type { ApiRequest, ApiResponse } from '../handlers/api.js';
import type { App } from '../handlers/app.js';
import { corsOf, isPreflight, preflightResponse, withCors } from './cors.js';
import { ENDPOINTS, findEndpoint, likelyEndpoint } from './endpoints.js';
import { errorHeaders } from './error-headers.js';
import { notFound } from './not-found.js';
import { isGuardedPath } from './host-guard.js';

// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

const defaultErrorBody = (error: RouterError, requestId: string): unknown => DEFAULT_FORMAT.errorBody(error, requestId);

const withoutTrailingSlash = (path: string): string => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path);

/**
 * Routes one request to its handler: path, method, key, version header, then the handler; every
 * failure is rendered in the error shape of the format the client speaks. A browser page of an
 * origin `server.cors` lists gets the CORS headers it needs to read the answer (src/server/cors.ts).
 */
export async function dispatch(app: App, request: ApiRequest): Promise<ApiResponse> {
  const origin = request.headers.origin;
  if (origin === undefined || isGuardedPath(request.path)) return route(app, request);
  const cors = corsOf(app.config.read().server.cors, origin);
  if (cors === undefined) return route(app, request);
  if (cors.origin !== undefined && isPreflight(request.method, request.headers)) {
    const requestId = newId('req_');
    const path = withoutTrailingSlash(request.path);
    if (request.trace) Object.assign(request.trace, { requestId, endpoint: findEndpoint(path)?.key ?? path });
    return preflightResponse({ ...cors, origin: cors.origin }, methodsOf(path), request.headers, requestId);
  }
  return withCors(await route(app, request), cors);
}

/** The methods a path answers, for a preflight; a path that answers none asks for its 404 to be readable. */
function methodsOf(path: string): string {
  if (path === '/' || path === '/health' || path === '/api/hello') return 'GET, HEAD';
  const endpoint = findEndpoint(path)?.endpoint;
  if (!endpoint) return 'GET, HEAD, POST';
  return endpoint.method === 'GET' ? 'GET, HEAD' : endpoint.method;
}

async function route(app: App, request: ApiRequest): Promise<ApiResponse> {
  // The server's clock for the request, when it has one: one reading of the arrival for both.
  const phases = request.phases ?? new RequestPhases();
  const startedAt = phases.start;
  const requestId = newId('req_');
  const path = withoutTrailingSlash(request.path);
  const trace = request.trace;
  if (trace) trace.requestId = requestId;

  if (CONTROL_CHARACTERS.test(request.path)) {
    const error = new RouterError(400, 'invalid_request', 'The request path contains control characters.');
    return { status: 400, headers: errorHeaders(error, requestId), json: defaultErrorBody(error, requestId) };
  }
  // `/api/hello` is the reachability probe Claude Code sends (HEAD) before its first request.
  if (path === '/' || path === '/health' || path === '/api/hello') {
    if (trace) trace.endpoint = path;
    return publicEndpoint(request, path, requestId);
  }
  const found = findEndpoint(path);
  const endpoint = found?.endpoint;
  if (trace && found) Object.assign(trace, { endpoint: found.key, format: found.endpoint.name });
  const errorBody = endpoint?.answeredIn?.(request.headers, request.query).errorBody ?? (endpoint ?? likelyEndpoint(path))?.errorBody ?? defaultErrorBody;
  try {
    if (!endpoint) throw notFound(request.method, path, request.origin?.());
    if (request.method !== endpoint.method && !(request.method === 'HEAD' && endpoint.method === 'GET')) {
      throw new RouterError(405, 'method_not_allowed', `Method ${request.method} is not allowed on ${path}; use ${endpoint.method}.`);
    }
    const settings = app.config.read();
    const identity = authenticate(settings, presentedKey(request.headers, endpoint.keySources, request.query), endpoint.keySources);
    if (trace) trace.caller = identity.developer;
    for (const header of endpoint.requiredHeaders) checkHeader(request.headers, header);
    const response = await endpoint.handle({ app, request, identity, settings, requestId, startedAt, phases, params: found.params });
    return withRequestId(response, requestId);
  } catch (error) {
    // The error's answer, in the client's format, is this request's encoding.
    phases.begin('encode');
    const routerError = toRouterError(error);
    if (trace) Object.assign(trace, { error: routerError.message, ...(routerError.cause !== undefined ? { cause: routerError.cause } : {}) });
    const body = errorBody(routerError, requestId);
    const headers = errorHeaders(routerError, requestId);
    if (routerError.status === 405 && endpoint) headers.allow = endpoint.method === 'GET' ? 'GET, HEAD' : endpoint.method;
    return { status: routerError.status, headers, json: body };
  }
}

function publicEndpoint(request: ApiRequest, path: string, requestId: string): ApiResponse {
  const headers = { 'x-request-id': requestId };
  if (request.method === 'HEAD') return { status: 200, headers, empty: true };
  if (request.method !== 'GET') {
    const error = new RouterError(405, 'method_not_allowed', `Method ${request.method} is not allowed on ${path}; use GET.`);
    return { status: 405, headers: { ...errorHeaders(error, requestId), allow: 'GET, HEAD' }, json: defaultErrorBody(error, requestId) };
  }
  if (path === '/api/hello') return { status: 200, headers, json: { name: 'svc-router', status: 'ok' } };
  return path === '/health'
    ? { status: 200, headers, json: { status: 'ok' } }
    : { status: 200, headers, json: { name: 'svc-router', endpoints: ['/whoami', ...Object.keys(ENDPOINTS).filter((p) => p !== '/whoami'), '/health'] } };
}

/** A header the endpoint's format requires (anthropic-version on messages), under its name or an alias. */
function checkHeader(headers: ApiRequest['headers'], header: RequiredHeader): void {
  let value = headers[header.name];
  for (const alias of header.aliases ?? []) value ??= headers[alias];
  const { name } = header;
  if (value === undefined || value === '') {
    throw new RouterError(400, 'invalid_request', `${name}: header is required (for example "${name}: ${header.example}").`, name);
  }
  if (!header.valid(value)) throw new RouterError(400, 'invalid_request', `${name}: expected ${header.expected}, got "${value.slice(0, 40)}".`, name);
}

const withRequestId = (response: ApiResponse, requestId: string): ApiResponse => ({
  ...response,
  headers: { 'x-request-id': requestId, ...response.headers },
});
