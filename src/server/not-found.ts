import { RouterError } from '../core/errors.js';
import { OPENAI_STYLE_BASE_URL } from '../formats/shared/base-url.js';
import { baseUrlMistake, ENDPOINTS } from './endpoints.js';

/** `METHOD PATH` of every endpoint whose path starts with the prefix, the completion endpoints first. */
function endpointsUnder(prefix: string): string[] {
  return Object.entries(ENDPOINTS)
    .filter(([path]) => path.startsWith(prefix))
    .sort(([, a], [, b]) => (a.method === b.method ? 0 : a.method === 'POST' ? -1 : 1))
    .map(([path, endpoint]) => `${endpoint.method} ${path}`);
}

/** What to do about the pages the router serves only when turned on at start: the server hands them over first when they are on. */
function switchedOff(path: string): string | undefined {
  if (path === '/metrics') return 'Metrics are off: start the router with svc-router serve --metrics (or svc-router config set server.metrics true, then svc-router restart).';
  if (path === '/ui' || path.startsWith('/ui/')) return 'The dashboard is off: start the router with svc-router serve --ui (or svc-router config set server.ui true, then svc-router restart).';
  return undefined;
}

/**
 * The answer to a path no endpoint serves, saying what to do: the base URL mistake the path shows
 * (no `/v1`, `/v1` twice, something else in front), with the base URL to use at the router's real
 * address (`origin`, as the client reached it) and in the status the format's clients show; a
 * switched-off page by its switch; otherwise the endpoints that do exist, so a client asking for
 * one the router does not have (`/v1/embeddings`) learns that it is not there rather than to
 * change its base URL.
 */
export function notFound(method: string, path: string, origin?: string): RouterError {
  const at = `No endpoint at ${method} ${path}.`;
  const mistake = baseUrlMistake(path);
  if (mistake) {
    const advice = mistake.found.endpoint.format.baseUrl ?? OPENAI_STYLE_BASE_URL;
    const hint =
      mistake.extra === undefined
        ? `Include /v1 in the base URL${origin ? ` (${origin}/v1)` : ''}, so requests go to /v1${path}.`
        : `The base URL has ${mistake.extra === '/v1' ? '/v1 twice; remove one' : `${mistake.extra} in front of /v1; remove it`}${origin ? `: ${advice.take(origin)}` : ''}.`;
    const status = advice.status ?? 404;
    return new RouterError(status, status === 404 ? 'not_found' : 'invalid_request', `${at} ${hint}`, undefined, 'not_found');
  }
  const hint =
    switchedOff(path) ??
    (path === '/v1' || path.startsWith('/v1/')
      ? `The endpoints under /v1 are ${endpointsUnder('/v1/').join(', ')}.`
      : `Model endpoints live under /v1: include /v1 in the base URL for chat-format and responses-format clients. The endpoints are ${[...endpointsUnder('/'), 'GET /health'].join(', ')}.`);
  return new RouterError(404, 'not_found', `${at} ${hint}`, undefined, 'not_found');
}
