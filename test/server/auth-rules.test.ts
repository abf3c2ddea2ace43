import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyRecord } from '../../src/cli/commands/keys.js';
import { ConfigStore } from '../../src/config/store.js';
import { generateKey } from '../../src/core/router-keys.js';
import { dispatch } from '../../src/server/dispatch.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import {
  CHAT_BODY,
  MESSAGES_BODY,
  RESPONSES_BODY,
  bearer,
  expectAnthropicError,
  expectOpenAIError,
  messagesHeaders,
  rawExchange,
  rawGet,
  send,
  type Reply,
} from './http-support.js';

let router: TestRouter;

beforeAll(async () => {
  router = await startRouter();
});
afterAll(() => router.close());

/** The four endpoints that take `Authorization: Bearer`, each with a body that would succeed. */
const BEARER_ENDPOINTS = [
  { method: 'GET', path: '/whoami', body: undefined },
  { method: 'GET', path: '/v1/models', body: undefined },
  { method: 'POST', path: '/v1/chat/completions', body: CHAT_BODY },
  { method: 'POST', path: '/v1/responses', body: RESPONSES_BODY },
] as const;

/** A well-formed key for alice that was never issued. */
const forgedKey = (): string => `svc_alice_${'A'.repeat(32)}`;

const expectUnauthorized = (reply: Reply, message: RegExp) =>
  expectOpenAIError(reply, 401, { type: 'authentication_error', code: 'invalid_api_key', param: null, message });

/** Calls dispatch in-process, so header values reach the router exactly as given. */
const dispatchWhoami = (authorization: string) =>
  dispatch(router.app, {
    method: 'GET',
    path: '/whoami',
    headers: { authorization },
    readBody: async () => undefined,
    signal: new AbortController().signal,
  });

const errorOf = (response: Awaited<ReturnType<typeof dispatch>>) =>
  (response as { json: { error: { message: string; type: string; code: string | null } } }).json.error;

describe('bearer keys on /whoami, /v1/models, /v1/chat/completions and /v1/responses', () => {
  for (const { method, path, body } of BEARER_ENDPOINTS) {
    it(`${method} ${path} succeeds with the issued key`, async () => {
      const reply = await send(router, method, path, { headers: bearer(router.key), body });
      expect(reply.status, reply.text).toBe(200);
    });

    it(`${method} ${path} without a key is 401 in the OpenAI shape`, async () => {
      const reply = await send(router, method, path, { body });
      expectUnauthorized(reply, /missing api key/i);
    });

    it(`${method} ${path} with a wrong key is 401 in the OpenAI shape`, async () => {
      const reply = await send(router, method, path, { headers: bearer(forgedKey()), body });
      expectUnauthorized(reply, /invalid api key/i);
      expect(reply.json.error.message).not.toMatch(/whitespace/i);
    });
  }

  it('a key that is not even in the key format is 401', async () => {
    const reply = await send(router, 'GET', '/whoami', { headers: bearer('sk-not-a-router-key') });
    expectUnauthorized(reply, /invalid api key/i);
  });
});

describe('keys on /v1/messages', () => {
  it('accepts x-api-key with anthropic-version', async () => {
    const reply = await send(router, 'POST', '/v1/messages', { headers: messagesHeaders(router.key), body: MESSAGES_BODY });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json.type).toBe('message');
  });

  it('accepts Authorization: Bearer as well', async () => {
    const reply = await send(router, 'POST', '/v1/messages', {
      headers: { ...bearer(router.key), 'anthropic-version': '2023-06-01' },
      body: MESSAGES_BODY,
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json.type).toBe('message');
  });

  it('without a key is 401 in the Anthropic shape', async () => {
    const reply = await send(router, 'POST', '/v1/messages', { headers: { 'anthropic-version': '2023-06-01' }, body: MESSAGES_BODY });
    expectAnthropicError(reply, 401, 'authentication_error', /missing api key/i);
  });

  it('with a wrong x-api-key is 401 in the Anthropic shape', async () => {
    const reply = await send(router, 'POST', '/v1/messages', { headers: messagesHeaders(forgedKey()), body: MESSAGES_BODY });
    expectAnthropicError(reply, 401, 'authentication_error', /invalid api key/i);
  });
});

describe('the version header on /v1/messages', () => {
  const withVersion = (headers: Record<string, string>) =>
    send(router, 'POST', '/v1/messages', { headers: { 'x-api-key': router.key, ...headers }, body: MESSAGES_BODY });

  it('is required: missing is 400 invalid_request_error in the Anthropic shape', async () => {
    const reply = await withVersion({});
    expectAnthropicError(reply, 400, 'invalid_request_error', /anthropic-version/);
  });

  it('accepts 2023-06-01', async () => {
    const reply = await withVersion({ 'anthropic-version': '2023-06-01' });
    expect(reply.status, reply.text).toBe(200);
  });

  it('accepts a newer date such as 2026-10-21', async () => {
    const reply = await withVersion({ 'anthropic-version': '2026-10-21' });
    expect(reply.status, reply.text).toBe(200);
  });

  it("accepts the spec's literal vendor-version header", async () => {
    const reply = await withVersion({ 'vendor-version': '2023-06-01' });
    expect(reply.status, reply.text).toBe(200);
  });

  it('rejects a value that is not a date with 400', async () => {
    const reply = await withVersion({ 'anthropic-version': 'latest' });
    expectAnthropicError(reply, 400, 'invalid_request_error', /anthropic-version.*latest/);
  });

  it('rejects a date-shaped value that is no calendar date with 400', async () => {
    const reply = await withVersion({ 'anthropic-version': '2023-13-45' });
    expectAnthropicError(reply, 400, 'invalid_request_error', /anthropic-version/);
  });
});

describe('keys with whitespace', () => {
  it('a key followed by a no-break space (sent as raw bytes) is 401 and says why', async () => {
    const header = Buffer.concat([Buffer.from(`Authorization: Bearer ${router.key}`, 'latin1'), Buffer.from([0xa0])]);
    const reply = await rawExchange(router, rawGet('/whoami', [header]));
    expect(reply.status, reply.head).toBe(401);
    const body = JSON.parse(reply.body);
    expect(body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key', param: null });
    expect(body.error.message).toMatch(/whitespace/i);
  });

  it('the same raw request without the no-break space succeeds, so the raw client is sound', async () => {
    const reply = await rawExchange(router, rawGet('/whoami', [Buffer.from(`Authorization: Bearer ${router.key}`, 'latin1')]));
    expect(reply.status, reply.head).toBe(200);
    expect(JSON.parse(reply.body).developer).toBe('alice');
  });

  it('a key followed by a no-break space as a UTF-8 client sends it (C2 A0) is 401 and says why', async () => {
    const header = Buffer.concat([Buffer.from(`Authorization: Bearer ${router.key}`, 'latin1'), Buffer.from('\u00a0', 'utf8')]);
    const reply = await rawExchange(router, rawGet('/whoami', [header]));
    expect(reply.status, reply.head).toBe(401);
    expect(JSON.parse(reply.body).error.message).toMatch(/whitespace/i);
  });

  it('a key followed by a zero-width space as a UTF-8 client sends it (E2 80 8B) is 401 and says why', async () => {
    const header = Buffer.concat([Buffer.from(`Authorization: Bearer ${router.key}`, 'latin1'), Buffer.from('\u200b', 'utf8')]);
    const reply = await rawExchange(router, rawGet('/whoami', [header]));
    expect(reply.status, reply.head).toBe(401);
    expect(JSON.parse(reply.body).error.message).toMatch(/whitespace/i);
  });

  it('"Bearer" followed by two spaces is 401 and says why', async () => {
    const reply = await send(router, 'GET', '/whoami', { headers: { authorization: `Bearer  ${router.key}` } });
    expectUnauthorized(reply, /whitespace/i);
  });

  it('an x-api-key followed by a no-break space on /v1/messages is 401 in the Anthropic shape and says why', async () => {
    const request = Buffer.concat([
      Buffer.from(`POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nanthropic-version: 2023-06-01\r\n`, 'latin1'),
      Buffer.from(`content-type: application/json\r\ncontent-length: ${Buffer.byteLength(JSON.stringify(MESSAGES_BODY))}\r\n`, 'latin1'),
      Buffer.from(`x-api-key: ${router.key}`, 'latin1'),
      Buffer.from([0xa0]),
      Buffer.from(`\r\n\r\n${JSON.stringify(MESSAGES_BODY)}`, 'latin1'),
    ]);
    const reply = await rawExchange(router, request);
    expect(reply.status, reply.head).toBe(401);
    const body = JSON.parse(reply.body);
    expect(body).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    expect(body.error.message).toMatch(/whitespace/i);
  });

  it('in-process, a trailing space is 401 and says why', async () => {
    const response = await dispatchWhoami(`Bearer ${router.key} `);
    expect(response.status).toBe(401);
    expect(errorOf(response)).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    expect(errorOf(response).message).toMatch(/whitespace/i);
  });

  it('in-process, a trailing newline is 401 and says why', async () => {
    const response = await dispatchWhoami(`Bearer ${router.key}\n`);
    expect(response.status).toBe(401);
    expect(errorOf(response).message).toMatch(/whitespace/i);
  });

  it('in-process, the exact key succeeds', async () => {
    const response = await dispatchWhoami(`Bearer ${router.key}`);
    expect(response.status).toBe(200);
  });

  it('a wrong key with whitespace gets the plain invalid-key message, with no whitespace hint', async () => {
    const response = await dispatchWhoami(`Bearer ${forgedKey()} `);
    expect(response.status).toBe(401);
    expect(errorOf(response).message).toMatch(/invalid api key/i);
    expect(errorOf(response).message).not.toMatch(/whitespace/i);
  });
});

describe('key changes take effect without a restart', () => {
  it('a newly issued key works at once', async () => {
    const carol = router.issueKey('carol', { organisation: 'globex', tier: 'standard' });
    const reply = await send(router, 'GET', '/whoami', { headers: bearer(carol) });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json).toMatchObject({ developer: 'carol', organisation: 'globex', tier: 'standard' });
  });

  it('a revoked key is 401 on the next request', async () => {
    const dave = router.issueKey('dave');
    expect((await send(router, 'GET', '/whoami', { headers: bearer(dave) })).status).toBe(200);
    router.config.update((settings) => {
      delete settings.keys.dave;
    });
    const reply = await send(router, 'GET', '/whoami', { headers: bearer(dave) });
    expectUnauthorized(reply, /invalid api key/i);
  });

  it('sees a key issued and then revoked through another store on the same home, as the CLI writes them', async () => {
    const cli = new ConfigStore(router.home);
    const erin = generateKey('erin');
    cli.update((settings) => {
      settings.keys.erin = keyRecord(erin, 'erin', { organisation: 'acme', tier: 'standard', capTokens: 1000 });
    });
    const issued = await send(router, 'GET', '/whoami', { headers: bearer(erin) });
    expect(issued.status, issued.text).toBe(200);
    expect(issued.json.developer).toBe('erin');
    cli.update((settings) => {
      delete settings.keys.erin;
    });
    expectUnauthorized(await send(router, 'GET', '/whoami', { headers: bearer(erin) }), /invalid api key/i);
  });
});
