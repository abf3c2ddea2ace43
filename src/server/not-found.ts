import { RouterError } from '../core/errors.js';
import { ENDPOINTS, findEndpoint } from './endpoints.js';

/** `METHOD PATH` of every endpoint whose path starts with the prefix, the completion endpoints first. */
function endpointsUnder(prefix: string): string[] {
  return Object.entries(ENDPOINTS)
    .filter(([path]) => path.startsWith(prefix))
    .sort(([, a], [, b]) => (a.method === b.method ? 0 : a.method === 'POST' ? -1 : 1))
    .map(([path, endpoint]) => `${endpoint.method} ${path}`);
}

/**
 * A 404 that says what to do: the usual base URL mistakes (no `/v1`, or `/v1` twice) by name, and
 * otherwise the endpoints that do exist, so a client asking for one the router does not have
 * (`/v1/embeddings`) learns that it is not there rather than to change its base URL.
 */
export function notFound(method: string, path: string): RouterError {
  let hint: string;
  if (findEndpoint(`/v1${path}`)) hint = `Include /v1 in the base URL (for example http://127.0.0.1:8787/v1), so requests go to /v1${path}.`;
  else if (path.startsWith('/v1/v1/') && findEndpoint(path.slice(3))) hint = 'The base URL has /v1 twice; remove one.';
  else if (path === '/metrics') hint = 'Metrics are off: start the router with svc-router serve --metrics (or svc-router config set server.metrics true).';
  else if (path === '/v1' || path.startsWith('/v1/')) hint = `The endpoints under /v1 are ${endpointsUnder('/v1/').join(', ')}.`;
  else hint = `Model endpoints live under /v1: include /v1 in the base URL for chat-format and responses-format clients. The endpoints are ${[...endpointsUnder('/'), 'GET /health'].join(', ')}.`;
  return new RouterError(404, 'not_found', `No endpoint at ${method} ${path}. ${hint}`, undefined, 'not_found');
}
