import fc from 'fast-check';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
