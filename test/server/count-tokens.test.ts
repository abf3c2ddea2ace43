import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { ANTHROPIC_VERSION, expectAnthropicError, send } from './http-support.js';

/**
 * POST /v1/messages/count_tokens through the official Anthropic SDK: the router's estimate when
 * the route has no Anthropic upstream first, the upstream's own count when it does.
 */

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function router(): Promise<TestRouter> {
  const started = await startRouter();
  cleanups.push(() => started.close());
  return started;
}

const sdk = (live: TestRouter, auth: 'apiKey' | 'authToken' = 'apiKey') => new Anthropic({ [auth]: live.key, baseURL: live.origin, maxRetries: 0 });

const PARAMS = {
  model: 'svc.intelligent-pro',
  system: 'You are terse.',
  messages: [
    { role: 'user' as const, content: 'What is the weather in Paris today, roughly?' },
    { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 'toolu_1', name: 'weather', input: { city: 'Paris' } }] },
    { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_1', content: 'Sunny, 21 degrees.' }] },
  ],
  tools: [{ name: 'weather', description: 'Current weather for a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } }],
};

interface UpstreamCall {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** A minimal Anthropic-style upstream that only counts tokens, answering with `answer`. */
async function countingUpstream(answer: (body: Record<string, unknown>) => { status: number; json: unknown }): Promise<{ url: string; calls: UpstreamCall[] }> {
  const calls: UpstreamCall[] = [];
  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw || '{}') as Record<string, unknown>;
    calls.push({ path: req.url ?? '', headers: req.headers, body });
    const { status, json } = req.method === 'POST' && req.url === '/v1/messages/count_tokens' ? answer(body) : { status: 404, json: { type: 'error', error: { type: 'not_found_error', message: 'Not Found' } } };
    const text = JSON.stringify(json);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

describe('count_tokens without an Anthropic upstream: the estimate', () => {
  it('answers {"input_tokens": N} to client.messages.countTokens, equal to what the offline backend bills', async () => {
    const live = await router();
    const counted = await sdk(live).messages.countTokens(PARAMS);
    expect(Object.keys(counted)).toEqual(['input_tokens']);
    expect(Number.isInteger(counted.input_tokens)).toBe(true);
    expect(counted.input_tokens).toBeGreaterThan(10);

    const message = await sdk(live).messages.create({ ...PARAMS, max_tokens: 100 });
    expect(message.usage.input_tokens).toBe(counted.input_tokens);
  });

  it('grows with the prompt and says where the count came from', async () => {
    const live = await router();
    const small = await sdk(live).messages.countTokens({ model: 'svc.intelligent-lite', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    const large = await sdk(live).messages.countTokens({ model: 'svc.intelligent-lite', messages: [{ role: 'user', content: 'hi '.repeat(400) }] });
    expect(small.data.input_tokens).toBe(1);
    expect(large.input_tokens).toBe(300);
    expect(small.response.headers.get('x-svc-count-source')).toBe('estimate');
    expect(small.response.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('works with a bearer token, on the beta path, and for claude-* ids', async () => {
    const live = await router();
    expect((await sdk(live, 'authToken').messages.countTokens(PARAMS)).input_tokens).toBeGreaterThan(0);
    expect((await sdk(live).beta.messages.countTokens(PARAMS)).input_tokens).toBeGreaterThan(0);
    expect((await sdk(live).messages.countTokens({ ...PARAMS, model: 'claude-sonnet-4-5' })).input_tokens).toBeGreaterThan(0);
  });

  it('records no usage', async () => {
    const live = await router();
    await sdk(live).messages.countTokens(PARAMS);
    const whoami = await send(live, 'GET', '/whoami', { headers: { authorization: `Bearer ${live.key}` } });
    expect(whoami.json.usage.requests).toBe(0);
    expect(whoami.json.usage.tokens_used).toBe(0);
  });
});

describe('count_tokens: auth and validation in the messages shape', () => {
  const body = { model: 'svc.intelligent-pro', messages: [{ role: 'user', content: 'hi' }] };

  it('401 without a key or with a wrong one', async () => {
    const live = await router();
    expectAnthropicError(await send(live, 'POST', '/v1/messages/count_tokens', { headers: { 'anthropic-version': ANTHROPIC_VERSION }, body }), 401, 'authentication_error');
    const wrong = new Anthropic({ apiKey: `${live.key}x`, baseURL: live.origin, maxRetries: 0 });
    await expect(wrong.messages.countTokens(body as Anthropic.MessageCountTokensParams)).rejects.toMatchObject({ status: 401 });
  });

  it('400 without the version header, and for a body without messages', async () => {
    const live = await router();
    const noVersion = await send(live, 'POST', '/v1/messages/count_tokens', { headers: { 'x-api-key': live.key }, body });
    expectAnthropicError(noVersion, 400, 'invalid_request_error', /anthropic-version/);
    const noMessages = await send(live, 'POST', '/v1/messages/count_tokens', { headers: { 'x-api-key': live.key, 'anthropic-version': ANTHROPIC_VERSION }, body: { model: 'svc.intelligent-pro' } });
    expectAnthropicError(noMessages, 400, 'invalid_request_error', /messages/);
  });

  it('does not require max_tokens, but still checks its type when given', async () => {
    const live = await router();
    const headers = { 'x-api-key': live.key, 'anthropic-version': ANTHROPIC_VERSION };
    expect((await send(live, 'POST', '/v1/messages/count_tokens', { headers, body })).status).toBe(200);
    expectAnthropicError(await send(live, 'POST', '/v1/messages/count_tokens', { headers, body: { ...body, max_tokens: 'many' } }), 400, 'invalid_request_error', /max_tokens/);
  });

  it('400 for gpt-* names, 404 (with the /v1 hint) without /v1, 405 for GET', async () => {
    const live = await router();
    await expect(sdk(live).messages.countTokens({ ...body, model: 'gpt-4o' } as Anthropic.MessageCountTokensParams)).rejects.toMatchObject({ status: 400 });
    const headers = { 'x-api-key': live.key, 'anthropic-version': ANTHROPIC_VERSION };
    const missing = await send(live, 'POST', '/messages/count_tokens', { headers, body });
    expectAnthropicError(missing, 404, 'not_found_error', /Include \/v1 in the base URL/);
    expect((await send(live, 'GET', '/v1/messages/count_tokens', { headers })).status).toBe(405);
  });
});

describe('count_tokens with an Anthropic upstream first in the route', () => {
  it("forwards to the upstream's count_tokens with its key and model, and answers its count", async () => {
    const live = await router();
    const upstream = await countingUpstream(() => ({ status: 200, json: { input_tokens: 4242 } }));
    live.config.update((settings) => {
      settings.backends.anthropic = { type: 'anthropic', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-ant-upstream-key', headers: { 'x-team': 'research' } };
      settings.routes['svc.intelligent-pro'] = ['anthropic:claude-upstream-model', 'offline'];
    });

    const counted = await sdk(live).messages.countTokens(PARAMS, { headers: { 'anthropic-beta': 'token-counting-2024-11-01' } }).withResponse();
    expect(counted.data).toEqual({ input_tokens: 4242 });
    expect(counted.response.headers.get('x-svc-count-source')).toBe('upstream');

    expect(upstream.calls).toHaveLength(1);
    const [call] = upstream.calls;
    expect(call!.path).toBe('/v1/messages/count_tokens');
    expect(call!.headers['x-api-key']).toBe('sk-ant-upstream-key');
    expect(call!.headers['anthropic-version']).toBe('2023-06-01');
    expect(call!.headers['anthropic-beta']).toBe('token-counting-2024-11-01');
    expect(call!.headers['x-team']).toBe('research');
    expect(call!.headers.authorization).toBeUndefined();
    expect(JSON.stringify(call!.headers)).not.toContain(live.key);
    expect(call!.body).toEqual({ model: 'claude-upstream-model', system: PARAMS.system, messages: PARAMS.messages, tools: PARAMS.tools });
  });

  it("passes the upstream's own rejection on (400), and falls back to the estimate when it is down (503)", async () => {
    const live = await router();
    let status = 400;
    const upstream = await countingUpstream(() => ({ status, json: { type: 'error', error: { type: status === 400 ? 'invalid_request_error' : 'overloaded_error', message: 'tools.0: bad schema' } } }));
    live.config.update((settings) => {
      settings.backends.anthropic = { type: 'anthropic', baseUrl: upstream.url, apiKey: 'sk-ant-upstream-key' };
      settings.routes['svc.intelligent-pro'] = ['anthropic'];
    });
    await expect(sdk(live).messages.countTokens(PARAMS)).rejects.toMatchObject({ status: 400, message: expect.stringContaining('bad schema') });

    status = 503;
    const fallback = await sdk(live).messages.countTokens(PARAMS).withResponse();
    expect(fallback.response.headers.get('x-svc-count-source')).toBe('estimate');
    const estimate = await sdk(live).messages.countTokens({ ...PARAMS, model: 'svc.intelligent-basic' });
    expect(fallback.data.input_tokens).toBe(estimate.input_tokens);
    expect(upstream.calls.length).toBeGreaterThanOrEqual(2);
  });

  it('estimates when the first target is not an Anthropic backend, even if a later one is', async () => {
    const live = await router();
    const upstream = await countingUpstream(() => ({ status: 200, json: { input_tokens: 4242 } }));
    live.config.update((settings) => {
      settings.backends.anthropic = { type: 'anthropic', baseUrl: upstream.url, apiKey: 'k-upstream' };
      settings.backends.chat = { type: 'openai-chat', baseUrl: 'http://127.0.0.1:9/v1' };
      settings.routes['svc.intelligent-pro'] = ['chat:some-model', 'anthropic'];
    });
    const counted = await sdk(live).messages.countTokens(PARAMS);
    expect(counted.input_tokens).not.toBe(4242);
    expect(upstream.calls).toHaveLength(0);
  });
});
