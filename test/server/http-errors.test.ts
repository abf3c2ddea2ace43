import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  send,
} from './http-support.js';

let router: TestRouter;

beforeAll(async () => {
  router = await startRouter();
});
afterAll(() => router.close());

const postChat = (body: unknown, target: TestRouter = router) =>
  send(target, 'POST', '/v1/chat/completions', { headers: bearer(target.key), body });

const postResponses = (body: unknown) => send(router, 'POST', '/v1/responses', { headers: bearer(router.key), body });

const postMessages = (body: unknown, target: TestRouter = router) =>
  send(target, 'POST', '/v1/messages', { headers: messagesHeaders(target.key), body });

/** A chat body of exactly `bytes` bytes (ASCII), padded in the message text. */
function chatBodyOfSize(bytes: number): string {
  const base = JSON.stringify({ ...CHAT_BODY, messages: [{ role: 'user', content: '' }] });
  const body = JSON.stringify({ ...CHAT_BODY, messages: [{ role: 'user', content: 'x'.repeat(bytes - base.length) }] });
  expect(Buffer.byteLength(body)).toBe(bytes);
  return body;
}

/** Posts a body with chunked transfer encoding (no content-length), as a streaming client would. */
function postChunked(target: TestRouter, path: string, headers: Record<string, string>, chunks: string[]) {
  return new Promise<{ status: number; json: any }>((resolve, reject) => {
    const request = http.request(`${target.origin}${path}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('error', reject);
      response.on('end', () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(Buffer.concat(parts).toString('utf8')) }));
    });
    for (const chunk of chunks) request.write(chunk);
    request.end();
  });
}

describe('public endpoints and query strings', () => {
  it('routes /v1/messages?beta=true like /v1/messages', async () => {
    const reply = await send(router, 'POST', '/v1/messages?beta=true', { headers: messagesHeaders(router.key), body: MESSAGES_BODY });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json).toMatchObject({ type: 'message', role: 'assistant', model: MESSAGES_BODY.model });
    expect(reply.json.content[0].text).toContain('hi');
  });

  it('checks the key on /v1/messages?beta=true too', async () => {
    const reply = await send(router, 'POST', '/v1/messages?beta=true', { headers: { 'anthropic-version': '2023-06-01' }, body: MESSAGES_BODY });
    expectAnthropicError(reply, 401, 'authentication_error');
  });

  it('answers HEAD / with 200 and an empty body, and ends the response at once', { timeout: 5_000 }, async () => {
    const reply = await rawExchange(router, Buffer.from('HEAD / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', 'latin1'));
    expect(reply.status, reply.head).toBe(200);
    expect(reply.body).toBe('');
  });

  it('answers GET /health with 200 without a key', async () => {
    const reply = await send(router, 'GET', '/health');
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ status: 'ok' });
  });
});

describe('unknown paths', () => {
  it('POST /chat/completions (no /v1) is 404 telling to include /v1 in the base URL', async () => {
    const reply = await send(router, 'POST', '/chat/completions', { headers: bearer(router.key), body: CHAT_BODY });
    expectOpenAIError(reply, 404, { type: 'not_found_error', code: 'not_found', message: /include \/v1 in the base URL/i });
  });

  it('POST /responses (no /v1) is 404 telling to include /v1 in the base URL', async () => {
    const reply = await send(router, 'POST', '/responses', { headers: bearer(router.key), body: RESPONSES_BODY });
    expectOpenAIError(reply, 404, { type: 'not_found_error', message: /include \/v1 in the base URL/i });
  });

  it('GET /v1/nothing is 404', async () => {
    const reply = await send(router, 'GET', '/v1/nothing', { headers: bearer(router.key) });
    expectOpenAIError(reply, 404, { type: 'not_found_error', code: 'not_found', message: /\/v1\/nothing/ });
  });

  it('/v1/v1/chat/completions is 404 saying /v1 is there twice', async () => {
    const reply = await send(router, 'POST', '/v1/v1/chat/completions', { headers: bearer(router.key), body: CHAT_BODY });
    expectOpenAIError(reply, 404, { type: 'not_found_error', code: 'not_found', message: /\/v1 twice/ });
  });

  it('/v1/v1/messages is 400 in the Anthropic shape saying /v1 is there twice (Claude Code reads a 404 there as a missing model)', async () => {
    const reply = await send(router, 'POST', '/v1/v1/messages', { headers: messagesHeaders(router.key), body: MESSAGES_BODY });
    expectAnthropicError(reply, 400, 'invalid_request_error', /\/v1 twice/);
  });
});

describe('wrong methods', () => {
  it('GET /v1/chat/completions is 405 with allow: POST', async () => {
    const reply = await send(router, 'GET', '/v1/chat/completions', { headers: bearer(router.key) });
    expectOpenAIError(reply, 405, { type: 'invalid_request_error', message: /GET.*POST/ });
    expect(reply.headers.get('allow')).toBe('POST');
  });

  it('POST /whoami is 405 with an allow header naming GET', async () => {
    const reply = await send(router, 'POST', '/whoami', { headers: bearer(router.key), body: {} });
    expectOpenAIError(reply, 405, { type: 'invalid_request_error', message: /POST/ });
    expect(reply.headers.get('allow')).toMatch(/\bGET\b/);
  });

  it('GET /v1/messages is 405 in the Anthropic shape with allow: POST', async () => {
    const reply = await send(router, 'GET', '/v1/messages', { headers: messagesHeaders(router.key) });
    expectAnthropicError(reply, 405, 'invalid_request_error');
    expect(reply.headers.get('allow')).toBe('POST');
  });
});

describe('malformed bodies', () => {
  it('malformed JSON on chat is 400 in the OpenAI shape', async () => {
    const reply = await postChat('{"model": "svc.intelligent-basic", "messages": [');
    expectOpenAIError(reply, 400, { type: 'invalid_request_error', param: 'body', code: 'invalid_json', message: /not valid JSON/ });
  });

  it('malformed JSON on messages is 400 in the Anthropic shape', async () => {
    const reply = await postMessages('{"model": "svc.intelligent-basic", ');
    expectAnthropicError(reply, 400, 'invalid_request_error', /not valid JSON/);
  });

  it('an empty body on chat is 400', async () => {
    const reply = await postChat('');
    expectOpenAIError(reply, 400, { type: 'invalid_request_error', param: 'body' });
  });

  it('a JSON array instead of an object is 400', async () => {
    const reply = await postChat('[]');
    expectOpenAIError(reply, 400, { type: 'invalid_request_error', param: 'body' });
  });

  it('messages: "hi" on chat is 400 with param messages', async () => {
    const reply = await postChat({ model: 'svc.intelligent-basic', messages: 'hi' });
    expectOpenAIError(reply, 400, { type: 'invalid_request_error', param: 'messages', message: /^messages: / });
  });

  it('max_tokens: "ten" on chat is 400 with param max_tokens', async () => {
    const reply = await postChat({ ...CHAT_BODY, max_tokens: 'ten' });
    expectOpenAIError(reply, 400, { type: 'invalid_request_error', param: 'max_tokens', message: /^max_tokens: / });
  });

  it('model: 5 on chat is 400 with param model', async () => {
    const reply = await postChat({ ...CHAT_BODY, model: 5 });
    expectOpenAIError(reply, 400, { type: 'invalid_request_error', param: 'model', message: /^model: / });
  });

  it('model: 5 on responses is 400 with param model', async () => {
    const reply = await postResponses({ ...RESPONSES_BODY, model: 5 });
    expectOpenAIError(reply, 400, { type: 'invalid_request_error', param: 'model', message: /^model: / });
  });

  it('max_tokens: "ten" on messages is 400 in the Anthropic shape naming max_tokens', async () => {
    const reply = await postMessages({ ...MESSAGES_BODY, max_tokens: 'ten' });
    expectAnthropicError(reply, 400, 'invalid_request_error', /^max_tokens: /);
  });

  it('messages: "hi" on messages is 400 in the Anthropic shape naming messages', async () => {
    const reply = await postMessages({ ...MESSAGES_BODY, messages: 'hi' });
    expectAnthropicError(reply, 400, 'invalid_request_error', /^messages: /);
  });

  it('chat without messages is 400 with param messages', async () => {
    const reply = await postChat({ model: 'svc.intelligent-basic' });
    expectOpenAIError(reply, 400, { type: 'invalid_request_error', param: 'messages', code: 'missing_required_parameter', message: /^messages: .*required/ });
  });

  it('chat without model is 400 with param model', async () => {
    const reply = await postChat({ messages: CHAT_BODY.messages });
    expectOpenAIError(reply, 400, { type: 'invalid_request_error', param: 'model', code: 'missing_required_parameter' });
  });

  it('messages without max_tokens is 400 naming max_tokens', async () => {
    const { max_tokens: _omitted, ...body } = MESSAGES_BODY;
    const reply = await postMessages(body);
    expectAnthropicError(reply, 400, 'invalid_request_error', /^max_tokens: .*required/);
  });

  it('responses without input is 400 with param input', async () => {
    const reply = await postResponses({ model: 'svc.intelligent-basic' });
    expectOpenAIError(reply, 400, { type: 'invalid_request_error', param: 'input', code: 'missing_required_parameter', message: /^input: .*required/ });
  });
});

describe('the body size limit', () => {
  const LIMIT = 1000;
  let small: TestRouter;

  beforeAll(async () => {
    small = await startRouter();
    small.config.update((settings) => {
      settings.server.bodyLimitBytes = LIMIT;
    });
  });
  afterAll(() => small.close());

  it('a chat body over the limit is 413 in the OpenAI shape', async () => {
    const reply = await postChat(chatBodyOfSize(LIMIT + 1), small);
    expectOpenAIError(reply, 413, { type: 'invalid_request_error', param: 'body', code: 'request_too_large', message: new RegExp(`${LIMIT} bytes`) });
  });

  it('a messages body over the limit is 413 in the Anthropic shape', async () => {
    const reply = await postMessages({ ...MESSAGES_BODY, messages: [{ role: 'user', content: 'x'.repeat(LIMIT) }] }, small);
    expectAnthropicError(reply, 413, 'request_too_large', new RegExp(`${LIMIT} bytes`));
  });

  it('a chat body just under the limit is accepted', async () => {
    const reply = await postChat(chatBodyOfSize(LIMIT - 1), small);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json.object).toBe('chat.completion');
  });

  it('the same just-under body is 413 once the limit is lowered, without a restart', async () => {
    small.config.update((settings) => {
      settings.server.bodyLimitBytes = LIMIT - 2;
    });
    try {
      const reply = await postChat(chatBodyOfSize(LIMIT - 1), small);
      expectOpenAIError(reply, 413, { type: 'invalid_request_error', code: 'request_too_large' });
    } finally {
      small.config.update((settings) => {
        settings.server.bodyLimitBytes = LIMIT;
      });
    }
  });

  it('a chunked body (no content-length) over the limit is answered 413, not a dropped connection', async () => {
    const body = chatBodyOfSize(LIMIT * 2);
    const reply = await postChunked(small, '/v1/chat/completions', bearer(small.key), [body.slice(0, LIMIT), body.slice(LIMIT)]);
    expect(reply.status).toBe(413);
    expect(reply.json.error).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large' });
  });

  it('a chunked body under the limit is accepted', async () => {
    const body = chatBodyOfSize(LIMIT - 1);
    const reply = await postChunked(small, '/v1/chat/completions', bearer(small.key), [body.slice(0, 100), body.slice(100)]);
    expect(reply.status).toBe(200);
    expect(reply.json.object).toBe('chat.completion');
  });
});

describe('the usage cap', () => {
  const CAP = 50;
  let capped: TestRouter;

  const tokensUsed = async (): Promise<number> => {
    const reply = await send(capped, 'GET', '/whoami', { headers: bearer(capped.key) });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json.usage.cap_tokens).toBe(CAP);
    return reply.json.usage.tokens_used;
  };

  beforeAll(async () => {
    capped = await startRouter({ capTokens: CAP });
    for (let attempt = 0; attempt < 20 && (await tokensUsed()) < CAP; attempt++) {
      const reply = await postChat(CHAT_BODY, capped);
      expect(reply.status, reply.text).toBe(200);
    }
  });
  afterAll(() => capped.close());

  it('reaches the cap through ordinary requests', async () => {
    expect(await tokensUsed()).toBeGreaterThanOrEqual(CAP);
  });

  it('refuses the next chat request with 429 in the OpenAI shape', async () => {
    const reply = await postChat(CHAT_BODY, capped);
    expectOpenAIError(reply, 429, { type: 'rate_limit_error', code: 'usage_cap_exceeded', param: null, message: new RegExp(`of ${CAP} tokens`) });
  });

  it('refuses a messages request with 429 in the Anthropic shape', async () => {
    const reply = await postMessages(MESSAGES_BODY, capped);
    expectAnthropicError(reply, 429, 'rate_limit_error', /cap/i);
  });

  it('refuses a responses request with 429 in the OpenAI shape', async () => {
    const reply = await send(capped, 'POST', '/v1/responses', { headers: bearer(capped.key), body: RESPONSES_BODY });
    expectOpenAIError(reply, 429, { type: 'rate_limit_error', code: 'usage_cap_exceeded' });
  });

  it('records nothing for refused requests', async () => {
    const before = await tokensUsed();
    expect((await postChat(CHAT_BODY, capped)).status).toBe(429);
    expect(await tokensUsed()).toBe(before);
  });
});
