import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboard } from '../../src/server/dashboard/dashboard.js';
import { ENDPOINTS } from '../../src/server/endpoints.js';
import { RouterMetrics } from '../../src/server/metrics.js';
import { refusedUpgrade } from '../helpers/responses-socket.js';
import { startRouter, type TestRouter } from '../helpers/router.js';

/**
 * A WebSocket upgrade to any path but /v1/responses is refused with a message that tells the
 * truth about that path on this router: what it says is served over HTTP answers over HTTP, what
 * it says is off is not there, and it says where the socket is.
 */

let withExtras: TestRouter;
let plain: TestRouter;
beforeAll(async () => {
  const ui = createDashboard();
  withExtras = await startRouter({ http: { metrics: new RouterMetrics(), ui, requestLog: ui.feed } });
  plain = await startRouter();
});
afterAll(async () => {
  await withExtras?.close();
  await plain?.close();
});

/** Every path an upgrade could be sent to that is not the socket: each endpoint, the router's own pages, and the usual base-URL mistakes. */
const PATHS = [
  '/metrics',
  '/metrics/',
  // A model the router has and a method it serves, so that each endpoint answers over HTTP.
  ...Object.keys(ENDPOINTS).map((path) => path.replace(/\{(?:id|model)\}/, 'svc.intelligent-basic').replace('{method}', 'generateContent')),
  '/',
  '/health',
  '/api/hello',
  '/ui',
  '/ui/api/overview',
  '/responses',
  '/v1/v1/responses',
  '/v1/embeddings',
  '/nowhere',
].filter((path) => path !== '/v1/responses');

describe('a WebSocket upgrade to a path without a socket', () => {
  for (const [name, router] of [
    ['with metrics and the dashboard on', () => withExtras],
    ['with metrics and the dashboard off', () => plain],
  ] as const) {
    it(`says what each path is, truthfully, ${name}`, async () => {
      const live = router();
      const bearer = { authorization: `Bearer ${live.key}` };
      for (const path of PATHS) {
        const { status, body } = await refusedUpgrade(live, bearer, path);
        const message: string = body.error.message;
        expect(status, path).toBe(404);
        // What the refusal says is served over HTTP is (and is on); what it says is off, or does not name, is not there.
        const claimed = /\b(GET|POST|PUT|PATCH|DELETE) (\/\S*) is served over HTTP/.exec(message);
        const servedNow = /served over HTTP(:|, without)/.test(message);
        const method = claimed?.[1] ?? 'GET';
        const overHttp = await fetch(`${live.origin}${path}`, { method, headers: bearer, ...(method === 'GET' ? {} : { body: '{}' }) });
        await overHttp.arrayBuffer();
        if (servedNow) expect(overHttp.status, `${method} ${path} over HTTP: ${message}`).not.toBe(404);
        else expect(overHttp.status, `${method} ${path} over HTTP: ${message}`).toBe(404);
        expect(body.error.code, path).toBe('not_found');
        expect(message, path).toMatch(/^No WebSocket at \/\S*\. /);
        expect(message, path).toContain("This router's only WebSocket is GET /v1/responses");
        if (claimed) expect(claimed[2], path).toBe(path.length > 1 ? path.replace(/\/$/, '') : path);
        // The base-URL hints only where fixing the base URL reaches the socket.
        expect(message.includes('Include /v1'), path).toBe(path === '/responses');
        expect(message.includes('/v1 twice'), path).toBe(path === '/v1/v1/responses');
      }
    });
  }

  it('says the socket is off when server.websockets is', async () => {
    plain.config.update((settings) => void (settings.server.websockets = false));
    try {
      const { status, body } = await refusedUpgrade(plain, { authorization: `Bearer ${plain.key}` }, '/metrics');
      expect(status).toBe(404);
      expect(body.error.message).toContain('(GET /v1/responses) is off (config key server.websockets)');
      expect(body.error.message).not.toContain('only WebSocket is');
    } finally {
      plain.config.update((settings) => void (settings.server.websockets = true));
    }
  });
});
