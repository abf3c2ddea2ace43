import { RouterError } from '../../core/errors.js';
import { findEndpoint } from '../endpoints.js';

/** The one path a WebSocket opens on (the HTTP endpoint's own, as OpenAI's WebSocket mode has it). */
export const SOCKET_PATH = '/v1/responses';

/** What this router serves over plain HTTP beyond its API endpoints, and whether its socket is on: the refusal says which. */
export interface ServedHere {
  metrics: boolean;
  ui: boolean;
  websockets: boolean;
}

/**
 * The refusal of a WebSocket upgrade to any other path: 404, saying what that path is rather than
 * the HTTP 404's hint, which is about HTTP (an upgrade to /metrics with metrics on was told
 * "Metrics are off"). A path the router serves over HTTP is named as such; a base URL that would
 * reach the socket once fixed (no /v1, /v1 twice) is named as that mistake; and every refusal says
 * where the socket is, or that it is off. `origin` is the router's address as the client reached it
 * (src/server/router-address.ts), so a base-URL mistake is answered with the URL to use.
 */
export function noSocketAt(path: string, served: ServedHere, origin?: string): RouterError {
  const at = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const socket = served.websockets
    ? `This router's only WebSocket is GET ${SOCKET_PATH} (Responses over WebSocket).`
    : `This router's WebSocket (GET ${SOCKET_PATH}) is off (config key server.websockets).`;
  return new RouterError(404, 'not_found', `No WebSocket at ${at.slice(0, 200)}. ${whatIsThere(at, served, origin)}${socket}`, undefined, 'not_found');
}

function whatIsThere(path: string, served: ServedHere, origin?: string): string {
  if (`/v1${path}` === SOCKET_PATH) return `Include /v1 in the base URL${origin ? ` (${origin}/v1)` : ''}, so the socket opens on ${SOCKET_PATH}. `;
  if (path.startsWith('/v1/v1/') && path.slice(3) === SOCKET_PATH) return `The base URL has /v1 twice; remove one${origin ? ` (${origin}/v1)` : ''}. `;
  if (path === '/metrics') {
    return served.metrics
      ? 'Metrics are served over HTTP: scrape GET /metrics without upgrading. '
      : 'Metrics are served over HTTP, and they are off: start the router with svc-router serve --metrics (or svc-router config set server.metrics true), then GET /metrics. ';
  }
  if (path === '/ui' || path.startsWith('/ui/')) {
    return served.ui ? 'The dashboard is served over HTTP: open /ui in a browser. ' : 'The dashboard is served over HTTP, and it is off: start the router with svc-router serve --ui, then open /ui in a browser. ';
  }
  if (path === '/' || path === '/health' || path === '/api/hello') return `GET ${path} is served over HTTP, without upgrading. `;
  const endpoint = findEndpoint(path)?.endpoint;
  if (endpoint) return `${endpoint.method} ${path} is served over HTTP, without upgrading. `;
  return '';
}
