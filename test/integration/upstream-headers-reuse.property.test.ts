import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../fakes/fake-server.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { SKU, startUpstream, UPSTREAM_KEY } from './support.js';

/**
 * A backend builds its calls' headers once per key, mode and what of the request they depend on
 * (src/backends/http/http-backend.ts), and sends that one object call after call. Whatever the
 * order of requests, each upstream call must carry exactly the headers its own request gives: a
 * reused object that kept an earlier request's version or beta, or a stream's `accept` on a JSON
 * call, is caught here. Values come from small sets, so runs repeat them and reuse happens.
 */

const VERSIONS = [undefined, '2023-06-01', '2026-10-21'] as const;
const BETAS = [undefined, 'beta-one-2025-01-01', 'beta-one-2025-01-01,beta-two-2025-02-02'] as const;
const OPENAI_BETAS = [undefined, 'responses=v1', 'assistants=v2'] as const;
const DEFAULT_VERSION = '2023-06-01';

interface Call {
  client: 'messages' | 'chat';
  stream: boolean;
  version: (typeof VERSIONS)[number];
  beta: (typeof BETAS)[number];
  openaiBeta: (typeof OPENAI_BETAS)[number];
}

const call: fc.Arbitrary<Call> = fc.record({
  client: fc.constantFrom('messages' as const, 'chat' as const),
  stream: fc.boolean(),
  version: fc.constantFrom(...VERSIONS),
  beta: fc.constantFrom(...BETAS),
  openaiBeta: fc.constantFrom(...OPENAI_BETAS),
});

let router: TestRouter;
let anthropic: FakeUpstream;
let chat: FakeUpstream;
const CHAT_SKU = 'svc.intelligent-lite';

beforeAll(async () => {
  router = await startRouter();
  anthropic = await startUpstream('anthropic', () => ({ text: 'ok' }));
  chat = await startUpstream('openai-chat', () => ({ text: 'ok' }));
  router.config.update((draft) => {
    // Configured headers go on every call, under the upstream's own.
    draft.backends.an = { type: 'anthropic', baseUrl: anthropic.url, apiKey: UPSTREAM_KEY, headers: { 'x-gateway-tag': 'an' } };
    draft.backends.oa = { type: 'openai-chat', baseUrl: chat.url, apiKey: UPSTREAM_KEY, headers: { 'x-gateway-tag': 'oa' } };
    draft.routes[SKU] = ['an:upstream-model'];
    draft.routes[CHAT_SKU] = ['oa:upstream-model'];
  });
});
afterAll(async () => {
  await Promise.all([anthropic.close(), chat.close()]);
  await router.close();
});

function post(path: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; text: string }> {
  const url = new URL(path, router.origin);
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

function send(each: Call): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${router.key}`, 'x-api-key': router.key };
  if (each.version) headers['anthropic-version'] = each.version;
  if (each.beta) headers['anthropic-beta'] = each.beta;
  if (each.openaiBeta) headers['openai-beta'] = each.openaiBeta;
  const messages = [{ role: 'user', content: 'hi' }];
  return each.client === 'messages'
    ? post('/v1/messages', { 'anthropic-version': DEFAULT_VERSION, ...headers }, { model: SKU, max_tokens: 16, messages, stream: each.stream })
    : post('/v1/chat/completions', headers, { model: CHAT_SKU, max_tokens: 16, messages, stream: each.stream });
}

const one = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

/** The headers the rule gives one call (upstream-headers.ts, client-headers.ts), whatever came before it. */
function expected(each: Call): Record<string, string | undefined> {
  const accept = each.stream ? 'text/event-stream' : undefined;
  if (each.client === 'messages') {
    return {
      'content-type': 'application/json',
      accept,
      'x-gateway-tag': 'an',
      'x-api-key': UPSTREAM_KEY,
      authorization: undefined,
      'anthropic-version': each.version ?? DEFAULT_VERSION,
      'anthropic-beta': each.beta,
      'openai-beta': undefined,
    };
  }
  return {
    'content-type': 'application/json',
    accept,
    'x-gateway-tag': 'oa',
    'x-api-key': undefined,
    authorization: `Bearer ${UPSTREAM_KEY}`,
    'anthropic-version': undefined,
    'anthropic-beta': undefined,
    'openai-beta': each.openaiBeta,
  };
}

describe('headers built once per route', () => {
  it('every upstream call carries exactly its own request’s headers, in any order of requests', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 8 }), async (calls) => {
        for (const each of calls) {
          const fake = each.client === 'messages' ? anthropic : chat;
          const before = fake.requests.length;
          const reply = await send(each);
          expect(reply.status, reply.text).toBe(200);
          expect(fake.requests).toHaveLength(before + 1);
          const { headers } = fake.requests[before]!;
          const want = expected(each);
          const got = Object.fromEntries(Object.keys(want).map((name) => [name, one(headers[name])]));
          expect(got).toEqual(want);
        }
      }),
      { numRuns: 25 },
    );
  });
});
