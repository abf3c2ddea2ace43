import fc from 'fast-check';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboard } from '../../src/server/dashboard/dashboard.js';
import { ENDPOINTS, findEndpoint } from '../../src/server/endpoints.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { bearer, send } from './http-support.js';

/**
 * A 404 says what exists. A path under /v1 the router does not serve (`/v1/embeddings`) names the
 * endpoints under /v1, rather than telling the client to change a base URL that is right.
 */

let router: TestRouter;
beforeAll(async () => {
  router = await startRouter();
});
afterAll(() => router.close());

const V1_ENDPOINTS = Object.entries(ENDPOINTS)
  .filter(([path]) => path.startsWith('/v1/'))
  .map(([path, endpoint]) => `${endpoint.method} ${path}`);

const unknownV1Path = fc
  .array(fc.stringMatching(/^[a-z_]{1,12}$/), { minLength: 1, maxLength: 3 })
  .map((segments) => `/v1/${segments.join('/')}`)
  .filter((path) => !findEndpoint(path) && !path.startsWith('/v1/v1/') && !findEndpoint(path.slice(3)));

/** Every endpoint path, and the paths a wrong base URL turns it into: /v1 left out, /v1 twice, another prefix in front. */
const MISTAKEN = Object.entries(ENDPOINTS)
  .filter(([path]) => path.startsWith('/v1/') && !path.includes('{'))
  .flatMap(([path, endpoint]) => [path.slice(3), `/v1${path}`, `/api${path}`].map((mistaken) => ({ mistaken, path, endpoint })));

describe('a wrong base URL', () => {
  it("is answered in the status the format's clients show: 400 on the messages door, 404 elsewhere, saying the fix", async () => {
    for (const { mistaken, path, endpoint } of MISTAKEN) {
      const messages = endpoint.format.name === 'messages';
      const headers = messages ? { 'x-api-key': router.key, 'anthropic-version': '2023-06-01' } : bearer(router.key);
      const reply = await send(router, endpoint.method, mistaken, { headers, ...(endpoint.method === 'POST' ? { body: {} } : {}) });
      const where = `${endpoint.method} ${mistaken}: ${reply.text}`;
      // Claude Code shows any 404 on /v1/messages as "There's an issue with the selected model"; a 400's message it shows word for word.
      expect(reply.status, where).toBe(messages ? 400 : 404);
      expect(reply.headers.get('x-should-retry'), where).toBe('false');
      const message: string = reply.json.error.message;
      if (messages) expect(reply.json.error.type, where).toBe('invalid_request_error');
      if (mistaken === path.slice(3)) expect(message, where).toContain(`Include /v1 in the base URL (${router.origin}/v1), so requests go to ${path}.`);
      else if (mistaken.startsWith('/v1/v1/')) expect(message, where).toContain('The base URL has /v1 twice; remove one');
      else expect(message, where).toContain('The base URL has /api in front of /v1; remove it');
      if (mistaken !== path.slice(3)) expect(message, where).toContain(messages ? `take ${router.origin}, without /v1` : `take ${router.origin}/v1 as their base URL`);
    }
  });
});

describe('404 under /v1', () => {
  it('names every endpoint under /v1, and does not blame the base URL', async () => {
    await fc.assert(
      fc.asyncProperty(unknownV1Path, fc.constantFrom('GET', 'POST'), async (path, method) => {
        const reply = await send(router, method as 'GET' | 'POST', path, { headers: bearer(router.key), ...(method === 'POST' ? { body: {} } : {}) });
        expect(reply.status).toBe(404);
        const message: string = reply.json.error?.message ?? reply.json.error;
        expect(message).toContain(`No endpoint at ${method} ${path}.`);
        for (const endpoint of V1_ENDPOINTS) expect(message).toContain(endpoint);
        expect(message).not.toMatch(/include \/v1/i);
      }),
      { numRuns: 25 },
    );
  });

  it('the OpenAI SDK asking for embeddings hears which endpoints there are', async () => {
    const client = new OpenAI({ baseURL: router.baseURL, apiKey: router.key, maxRetries: 0 });
    const error = await client.embeddings.create({ model: 'svc.intelligent-lite', input: 'hi' }).then(
      () => undefined,
      (caught: unknown) => caught as { status: number; message: string },
    );
    expect(error?.status).toBe(404);
    expect(error?.message).toContain('POST /v1/chat/completions');
    expect(error?.message).toContain('POST /v1/responses');
    expect(error?.message).toContain('POST /v1/messages');
  });
});

describe('a page that is switched off', () => {
  it('/ui and every page under it say the dashboard is off and how to turn it on, not to change the base URL', async () => {
    for (const path of ['/ui', '/ui/', '/ui/api/overview', '/ui/events']) {
      const reply = await send(router, 'GET', path);
      expect(reply.status, path).toBe(404);
      const message: string = reply.json.error.message;
      expect(message, path).toContain('The dashboard is off: start the router with svc-router serve --ui');
      expect(message, path).not.toMatch(/include \/v1/i);
    }
  });

  it('/ui answers with the dashboard when it is on', async () => {
    const live = await startRouter({ http: { ui: createDashboard() } });
    try {
      // Its page, or its sign-in page: HTML either way, and no word of it being off.
      const reply = await send(live, 'GET', '/ui');
      expect(reply.headers.get('content-type')).toContain('text/html');
      expect(reply.text).not.toContain('The dashboard is off');
    } finally {
      await live.close();
    }
  });

  it('/metrics says metrics are off, and that a changed setting needs a restart', async () => {
    const reply = await send(router, 'GET', '/metrics');
    expect(reply.status).toBe(404);
    expect(reply.json.error.message).toContain('Metrics are off: start the router with svc-router serve --metrics (or svc-router config set server.metrics true, then svc-router restart).');
  });
});
