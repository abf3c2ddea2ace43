import Anthropic from '@anthropic-ai/sdk';
import fc from 'fast-check';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Settings } from '../../src/config/settings.js';
import { RouterError, type ErrorKind } from '../../src/core/errors.js';
import type { Policy } from '../../src/policies/policy.js';
import { sendJson, startFakeServer } from '../fakes/fake-server.js';
import { refusedUpgrade } from '../helpers/responses-socket.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { send } from '../helpers/send.js';
import { rawExchange } from './http-support.js';
import { closedPortUrl } from '../helpers/unused-port.js';

/**
 * Every error answer says whether sending the request again may help (`x-should-retry`), the
 * header Anthropic's and OpenAI's SDKs obey before their own rules (which retry every 5xx and 429:
 * Claude Code then waits minutes on a wrong key). One rule decides it from the error, so it holds
 * on every client format, streamed or not: `false` for a refusal a retry cannot fix (a 4xx, a cap,
 * the guardrail, the router's configuration), `true` where one may help (a 429 that says when, a
 * fault upstream that passes).
 */

const FORMATS = ['chat', 'responses', 'messages'] as const;
type Format = (typeof FORMATS)[number];

const MODEL = 'svc.intelligent-pro';
/** What the guardrail takes for credentials (an AWS key id and a GitHub token), put together so no scanner reads this file as holding them. */
const SECRET = ['AWS_ACCESS_KEY_ID=', 'AKIA', 'Q7Z2LW4MBN3XT5RY', ' token ', 'ghp_', 'Zq8wX3vB7nM2kL9pR4tY6uI1oE5aS0dF7gH2'].join('');

function request(format: Format, key: string, stream: boolean, text = 'hello'): { path: string; headers: Record<string, string>; body: unknown } {
  if (format === 'messages') {
    return {
      path: '/v1/messages',
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: { model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: text }], stream },
    };
  }
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  if (format === 'responses') return { path: '/v1/responses', headers, body: { model: MODEL, input: text, stream } };
  return { path: '/v1/chat/completions', headers, body: { model: MODEL, messages: [{ role: 'user', content: text }], stream } };
}

let router: TestRouter;
let upstream: Awaited<ReturnType<typeof startFakeServer>>;
let refusedUrl: string;
let baseline: string;

/** An OpenAI-style upstream answering every request with the status its base URL names (`/s/503/v1`). */
beforeAll(async () => {
  upstream = await startFakeServer(async (recorded, res) => {
    const status = Number(/^\/s\/(\d+)\//.exec(recorded.path)?.[1] ?? 500);
    const headers: Record<string, string> = status === 429 ? { 'retry-after': '120' } : {};
    sendJson(res, status, { error: { message: `upstream said ${status}`, type: 'upstream_test', code: null } }, headers);
  });
  refusedUrl = await closedPortUrl();
  router = await startRouter({ capTokens: 1e12 });
  baseline = JSON.stringify(router.config.read());
});
afterAll(async () => {
  await router.close();
  await upstream.close();
});
afterEach(() => {
  const saved = JSON.parse(baseline) as Settings;
  router.config.update((settings) => Object.assign(settings, saved));
});

/** The route to one OpenAI-style backend at this base URL. */
function routeTo(backend: Settings['backends'][string]): void {
  router.config.update((settings) => {
    settings.backends.up = backend;
    settings.routes[MODEL] = ['up:some-model'];
  });
}
const upstreamStatus = (status: number) => () => routeTo({ type: 'openai-chat', baseUrl: `${upstream.origin}/s/${status}/v1`, apiKey: 'sk-test-upstream-key-0000' });

interface Cause {
  name: string;
  status: number;
  retry: boolean;
  /** Sets the router up; returns the key to send, when not the router's own. */
  arrange?(cell: string): Promise<string | void> | string | void;
  text?: string;
  /** A raw body in place of the format's own. */
  rawBody?: string;
}

let cells = 0;
const CAUSES: Cause[] = [
  { name: 'a key the router does not know', status: 401, retry: false, arrange: () => 'svc-not-a-key-0000000000000000' },
  { name: 'a body that is not JSON', status: 400, retry: false, rawBody: '{"model":' },
  {
    name: 'a body over server.bodyLimitBytes',
    status: 413,
    retry: false,
    text: 'x'.repeat(4096),
    arrange: () => void router.config.update((settings) => void (settings.server.bodyLimitBytes = 1024)),
  },
  { name: 'the guardrail refusing credentials', status: 400, retry: false, text: SECRET, arrange: () => void router.config.update((settings) => void (settings.guardrails.secrets = 'refuse')) },
  { name: 'the usage cap', status: 429, retry: false, arrange: (cell) => router.issueKey(`capped-${cell}`, { capTokens: 1 }) },
  {
    name: "the key's rate limit, which says when",
    status: 429,
    retry: true,
    async arrange(cell) {
      const developer = `rpm-${cell}`;
      const key = router.issueKey(developer);
      router.config.update((settings) => void (settings.keys[developer]!.rateLimit = { requestsPerMinute: 1 }));
      // The minute's one request, answered by the offline backend.
      const first = request('chat', key, false);
      expect((await send(router, first.path, { headers: first.headers, body: first.body })).status).toBe(200);
      return key;
    },
  },
  { name: "the upstream refusing the backend's key (401)", status: 502, retry: false, arrange: upstreamStatus(401) },
  { name: "the upstream refusing the backend's key (403)", status: 502, retry: false, arrange: upstreamStatus(403) },
  { name: "the backend's account out of credit (402)", status: 502, retry: false, arrange: upstreamStatus(402) },
  { name: 'the backend lacking the model (404)', status: 502, retry: false, arrange: upstreamStatus(404) },
  { name: 'the upstream refusing the request (400)', status: 400, retry: false, arrange: upstreamStatus(400) },
  { name: 'the upstream refusing the request (422)', status: 400, retry: false, arrange: upstreamStatus(422) },
  { name: 'the upstream finding the request too large (413)', status: 413, retry: false, arrange: upstreamStatus(413) },
  {
    name: "the backend's key variable unset",
    status: 502,
    retry: false,
    arrange: () => routeTo({ type: 'openai-chat', baseUrl: `${upstream.origin}/s/200/v1`, apiKeyEnv: 'SVC_ROUTER_TEST_NEVER_SET_KEY' }),
  },
  {
    name: 'a Bedrock backend without AWS credentials',
    status: 502,
    retry: false,
    arrange: () => routeTo({ type: 'bedrock', baseUrl: `${upstream.origin}/s/200`, region: 'us-east-1', awsProfile: 'svc-router-test-no-such-profile' }),
  },
  { name: 'the upstream rate limited, with retry-after', status: 429, retry: true, arrange: upstreamStatus(429) },
  { name: 'the upstream overloaded (503)', status: 503, retry: true, arrange: upstreamStatus(503) },
  { name: 'the upstream overloaded (529)', status: 503, retry: true, arrange: upstreamStatus(529) },
  { name: 'the upstream failing (500)', status: 502, retry: true, arrange: upstreamStatus(500) },
  {
    name: 'the upstream refusing the connection',
    status: 502,
    retry: true,
    arrange: () => routeTo({ type: 'openai-chat', baseUrl: refusedUrl, apiKey: 'sk-test-upstream-key-0000' }),
  },
];

describe('x-should-retry on every error answer', () => {
  for (const cause of CAUSES) {
    it(`${cause.name}: ${cause.status}, x-should-retry ${cause.retry}, on every format, streamed or not`, async () => {
      for (const format of FORMATS) {
        for (const stream of [false, true]) {
          const key = (await cause.arrange?.(`${format}-${stream}-${cells++}`)) || router.key;
          const sent = request(format, key, stream, cause.text);
          const reply = await send(router, sent.path, { headers: sent.headers, body: cause.rawBody ?? sent.body });
          const where = `${format}${stream ? ', streamed' : ''}: ${reply.text}`;
          expect(reply.status, where).toBe(cause.status);
          expect(reply.headers.get('x-should-retry'), where).toBe(String(cause.retry));
          if (cause.status === 429 && cause.retry) expect(Number(reply.headers.get('retry-after')), where).toBeGreaterThan(0);
        }
      }
    });
  }

  it('on the answers no format claims: an unknown path, a wrong method, a refused WebSocket', async () => {
    const missing = await send(router, '/v1/embeddings', { method: 'POST', headers: { authorization: `Bearer ${router.key}` }, body: {} });
    expect([missing.status, missing.headers.get('x-should-retry')]).toEqual([404, 'false']);
    const method = await send(router, '/v1/chat/completions', { method: 'GET', headers: { authorization: `Bearer ${router.key}` } });
    expect([method.status, method.headers.get('x-should-retry')]).toEqual([405, 'false']);

    // The upgrade's refusal is an HTTP answer, so it says so too; an error on an open socket is an event, with no head to carry it.
    const refused = await refusedUpgrade(router, { authorization: 'Bearer svc-not-a-key-0000000000000000' });
    expect([refused.status, refused.headers['x-should-retry']]).toEqual([401, 'false']);
  });

  it('on the answers written straight to the socket, before node:http has a request', async () => {
    // A key pasted with a control character in it: node's parser refuses the header line.
    const broken = await rawExchange(router, Buffer.from(`POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${router.key}\x01\r\nConnection: close\r\n\r\n`, 'latin1'));
    expect([broken.status, /x-should-retry: (\w+)/i.exec(broken.head)?.[1]]).toEqual([401, 'false']);
    // Headers past node's limit: its own bare answer.
    const huge = await rawExchange(router, Buffer.from(`GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nx-big: ${'a'.repeat(64 * 1024)}\r\nConnection: close\r\n\r\n`, 'latin1'));
    expect([huge.status, /x-should-retry: (\w+)/i.exec(huge.head)?.[1]]).toEqual([431, 'false']);
  });
});

/** Every kind an error may have, so the property reaches each. */
const KINDS: ErrorKind[] = ['invalid_request', 'authentication', 'permission', 'not_found', 'method_not_allowed', 'too_large', 'rate_limit', 'upstream', 'configuration', 'overloaded', 'internal'];

describe('the rule, over any error a request can end in', () => {
  it('the header follows the error alone, the same on every format and stream mode', async () => {
    let thrown: RouterError | undefined;
    const thrower: Policy = {
      name: 'thrower',
      admit() {
        if (thrown) throw thrown;
        return undefined;
      },
    };
    const live = await startRouter({ policies: [thrower] });
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 504),
          fc.constantFrom(...KINDS),
          fc.option(fc.integer({ min: 0, max: 600_000 }), { nil: undefined }),
          fc.constantFrom(...FORMATS),
          fc.boolean(),
          async (status, kind, retryAfterMs, format, stream) => {
            thrown = new RouterError(status, kind, `refused as ${status} ${kind}`, undefined, undefined, retryAfterMs);
            const sent = request(format, live.key, stream);
            const reply = await send(live, sent.path, { headers: sent.headers, body: sent.body });
            // The rule as the issue states it: a retry may help a fault that passes and a 429 that says when; nothing else.
            const helps = kind !== 'configuration' && (status >= 500 || status === 408 || (status === 429 && retryAfterMs !== undefined));
            expect(reply.status).toBe(status);
            expect(reply.headers.get('x-should-retry')).toBe(String(helps));
          },
        ),
        { numRuns: 60 },
      );
    } finally {
      await live.close();
    }
  });
});

describe('the SDKs obey it', () => {
  /** A fetch that counts the requests an SDK sends. */
  function counting(): { calls: number; fetch: typeof fetch } {
    const counter: { calls: number; fetch: typeof fetch } = { calls: 0, fetch: (...args) => (counter.calls++, fetch(...args)) };
    return counter;
  }

  it("Anthropic's and OpenAI's send a configuration failure once, and retry an overloaded upstream", async () => {
    for (const [status, calls] of [
      [401, 1],
      [503, 2],
    ] as const) {
      upstreamStatus(status)();
      const anthropic = counting();
      const messages = new Anthropic({ baseURL: router.origin, apiKey: router.key, maxRetries: 1, fetch: anthropic.fetch });
      const failed: unknown = await messages.messages.create({ model: MODEL, max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(Anthropic.APIError);
      expect(anthropic.calls, `Anthropic SDK, upstream ${status}`).toBe(calls);
      if (status === 401) expect((failed as Error).message).toContain("Backend 'up' rejected its API key (HTTP 401)");

      const openai = counting();
      const chat = new OpenAI({ baseURL: router.baseURL, apiKey: router.key, maxRetries: 1, fetch: openai.fetch });
      const refused: unknown = await chat.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OpenAI.APIError);
      expect(openai.calls, `OpenAI SDK, upstream ${status}`).toBe(calls);
    }
  });
});
