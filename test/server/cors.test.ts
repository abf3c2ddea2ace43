import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboard } from '../../src/server/dashboard/dashboard.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { send } from '../helpers/send.js';

const APP = 'https://app.example.com';
const OTHER = 'https://other.example.com';

/** A browser's preflight before a POST with a key and a JSON body. */
const preflight = (router: TestRouter, path: string, origin: string, method = 'POST') =>
  send(router, path, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type, x-stainless-os' } });

const chatBody = { model: 'svc.intelligent-lite', messages: [{ role: 'user', content: 'hi' }] };

describe('CORS for browser clients of the model endpoints', () => {
  let router: TestRouter;
  const authorised = (origin: string) => ({ origin, authorization: `Bearer ${router.key}`, 'content-type': 'application/json' });

  beforeAll(async () => {
    const ui = createDashboard();
    ui.requireAdminKey = false;
    router = await startRouter({ http: { ui, requestLog: ui.feed } });
  });
  afterAll(async () => router?.close());

  describe('with server.cors unset (the default)', () => {
    it('answers a preflight 405 as before, and no answer lets a page read it', async () => {
      const answer = await preflight(router, '/v1/chat/completions', APP);
      expect(answer.status).toBe(405);
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
      const chat = await send(router, '/v1/chat/completions', { headers: authorised(APP), body: chatBody });
      expect(chat.status).toBe(200);
      expect(chat.headers.get('access-control-allow-origin')).toBeNull();
      expect(chat.headers.get('vary')).toBeNull();
    });
  });

  describe('with server.cors listing an origin', () => {
    beforeAll(() => router.config.update((settings) => void (settings.server.cors = [APP, 'http://localhost:5173'])));
    afterAll(() => router.config.update((settings) => void (settings.server.cors = [])));

    it.each([
      ['/v1/chat/completions', 'POST'],
      ['/v1/responses', 'POST'],
      ['/v1/messages', 'POST'],
      ['/v1/models', 'GET, HEAD'],
      ['/whoami', 'GET, HEAD'],
    ])('answers the preflight of %s for that origin: its methods, the headers asked for, no credentials', async (path, methods) => {
      const answer = await preflight(router, path, APP);
      expect(answer.status).toBe(204);
      expect(answer.text).toBe('');
      expect(answer.headers.get('access-control-allow-origin')).toBe(APP);
      expect(answer.headers.get('access-control-allow-methods')).toBe(methods);
      expect(answer.headers.get('access-control-allow-headers')).toBe('authorization, content-type, x-stainless-os');
      expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
      expect(Number(answer.headers.get('access-control-max-age'))).toBeGreaterThan(0);
      expect(answer.headers.get('vary')).toContain('origin');
    });

    it('lets that origin read answers, errors and streams, headers included', async () => {
      const chat = await send(router, '/v1/chat/completions', { headers: authorised(APP), body: chatBody });
      expect(chat.status).toBe(200);
      expect(chat.headers.get('access-control-allow-origin')).toBe(APP);
      expect(chat.headers.get('access-control-expose-headers')).toBe('*');
      expect(chat.headers.get('vary')).toBe('origin');
      const stream = await send(router, '/v1/chat/completions', { headers: authorised(APP), body: { ...chatBody, stream: true } });
      expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(stream.headers.get('access-control-allow-origin')).toBe(APP);
      // An error is the client's to read too, or a browser reports a CORS failure instead of the cause.
      const refused = await send(router, '/v1/chat/completions', { headers: { origin: APP, 'content-type': 'application/json' }, body: chatBody });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('access-control-allow-origin')).toBe(APP);
      const lost = await send(router, '/chat/completions', { headers: authorised(APP), body: chatBody });
      expect(lost.status).toBe(404);
      expect(lost.headers.get('access-control-allow-origin')).toBe(APP);
    });

    it('matches an origin in any spelling of it, and no other origin', async () => {
      expect((await send(router, '/v1/models', { headers: authorised('HTTPS://App.Example.com:443') })).headers.get('access-control-allow-origin')).toBe(APP);
      for (const origin of [OTHER, 'https://app.example.com.evil.com', 'http://app.example.com', 'https://app.example.com:8443', 'null', 'http://localhost:5174', '__proto__', 'constructor']) {
        const answer = await preflight(router, '/v1/chat/completions', origin);
        expect(answer.headers.get('access-control-allow-origin'), origin).toBeNull();
        const models = await send(router, '/v1/models', { headers: authorised(origin) });
        expect(models.headers.get('access-control-allow-origin'), origin).toBeNull();
        expect(models.headers.get('vary'), origin).toBe('origin');
      }
    });

    it('never opens the dashboard, /admin or /metrics to it', async () => {
      for (const path of ['/ui/api/overview', '/admin/usage', '/metrics']) {
        const read = await send(router, path, { headers: authorised(APP) });
        expect(read.headers.get('access-control-allow-origin'), path).toBeNull();
        const answer = await preflight(router, path, APP, 'GET');
        expect(answer.status, path).toBe(403);
        expect(answer.headers.get('access-control-allow-origin'), path).toBeNull();
      }
    });
  });
});
