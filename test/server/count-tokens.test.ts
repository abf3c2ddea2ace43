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

/** A minimal upstream that only counts tokens, at `countPath` (Anthropic's by default), answering with `answer`; 404 elsewhere. */
async function countingUpstream(answer: (body: Record<string, unknown>) => { status: number; json: unknown }, countPath = '/v1/messages/count_tokens'): Promise<{ url: string; calls: UpstreamCall[] }> {
  const calls: UpstreamCall[] = [];
  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw || '{}') as Record<string, unknown>;
    calls.push({ path: req.url ?? '', headers: req.headers, body });
    const { status, json } = req.method === 'POST' && req.url === countPath ? answer(body) : { status: 404, json: { type: 'error', error: { type: 'not_found_error', message: 'Not Found' } } };
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

  it('counts the conversation as the context edits leave it, and says what it was before, as Anthropic does', async () => {
    const live = await router();
    const long = { ...PARAMS, messages: [PARAMS.messages[0]!, PARAMS.messages[1]!, { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_1', content: 'Sunny. '.repeat(400) }] }] };
    const plain = await sdk(live).messages.countTokens(long);
    const edits = { edits: [{ type: 'clear_tool_uses_20250919', trigger: { type: 'tool_uses', value: 0 }, keep: { type: 'tool_uses', value: 0 } }] };
    const counted: any = await sdk(live).beta.messages.countTokens({ ...long, context_management: edits } as any);
    expect(counted.context_management).toEqual({ original_input_tokens: plain.input_tokens });
    expect(counted.input_tokens).toBeLessThan(plain.input_tokens - 600);
    // No edits asked: no context_management.
    expect(Object.keys(plain)).toEqual(['input_tokens']);
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

  it('400 for gpt-* names, 400 (with the /v1 hint, which Claude Code shows where it would not a 404) without /v1, 405 for GET', async () => {
    const live = await router();
    await expect(sdk(live).messages.countTokens({ ...body, model: 'gpt-4o' } as Anthropic.MessageCountTokensParams)).rejects.toMatchObject({ status: 400 });
    const headers = { 'x-api-key': live.key, 'anthropic-version': ANTHROPIC_VERSION };
    const missing = await send(live, 'POST', '/messages/count_tokens', { headers, body });
    expectAnthropicError(missing, 400, 'invalid_request_error', /Include \/v1 in the base URL/);
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

    const counted = await sdk(live).messages.countTokens(PARAMS, { headers: { 'anthropic-beta': 'token-counting-2024-11-01', 'anthropic-version': '2026-10-21' } }).withResponse();
    expect(counted.data).toEqual({ input_tokens: 4242 });
    expect(counted.response.headers.get('x-svc-count-source')).toBe('upstream');

    expect(upstream.calls).toHaveLength(1);
    const [call] = upstream.calls;
    expect(call!.path).toBe('/v1/messages/count_tokens');
    expect(call!.headers['x-api-key']).toBe('sk-ant-upstream-key');
    // The client's own version, passed on as Claude Code's gateway protocol asks.
    expect(call!.headers['anthropic-version']).toBe('2026-10-21');
    expect(call!.headers['anthropic-beta']).toBe('token-counting-2024-11-01');
    expect(call!.headers['x-team']).toBe('research');
    expect(call!.headers.authorization).toBeUndefined();
    expect(JSON.stringify(call!.headers)).not.toContain(live.key);
    expect(call!.body).toEqual({ model: 'claude-upstream-model', system: PARAMS.system, messages: PARAMS.messages, tools: PARAMS.tools });
  });

  it("passes an Anthropic upstream's context_management (the count before its edits) on", async () => {
    const live = await router();
    const upstream = await countingUpstream(() => ({ status: 200, json: { input_tokens: 25, context_management: { original_input_tokens: 70 } } }));
    live.config.update((settings) => {
      settings.backends.anthropic = { type: 'anthropic', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-ant-upstream-key' };
      settings.routes['svc.intelligent-pro'] = ['anthropic:claude-upstream-model'];
    });
    const edits = { edits: [{ type: 'clear_tool_uses_20250919' }] };
    const counted: any = await sdk(live).beta.messages.countTokens({ ...PARAMS, context_management: edits } as any);
    expect(counted).toEqual({ input_tokens: 25, context_management: { original_input_tokens: 70 } });
    expect(upstream.calls[0]!.body.context_management).toEqual(edits);
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

  it('estimates when the first target cannot count, even if a later Anthropic one can', async () => {
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

describe('count_tokens with an OpenAI-type upstream first in the route', () => {
  const COUNT = { object: 'response.input_tokens', input_tokens: 1234 };

  it("asks a Responses backend's /responses/input_tokens with the translated prompt and its key, and answers its count", async () => {
    const live = await router();
    const upstream = await countingUpstream(() => ({ status: 200, json: COUNT }), '/v1/responses/input_tokens');
    live.config.update((settings) => {
      settings.backends.responses = { type: 'openai-responses', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-resp-upstream-key' };
      settings.routes['svc.intelligent-pro'] = ['responses:resp-model'];
    });
    const counted = await sdk(live).messages.countTokens(PARAMS).withResponse();
    expect(counted.data).toEqual({ input_tokens: 1234 });
    expect(counted.response.headers.get('x-svc-count-source')).toBe('upstream');
    expect(upstream.calls).toHaveLength(1);
    const [call] = upstream.calls;
    expect(call!.headers.authorization).toBe('Bearer sk-resp-upstream-key');
    expect(JSON.stringify(call!)).not.toContain(live.key);
    // The prompt as the backend would send it, without what bounds or shapes the answer.
    expect(call!.body).toMatchObject({ model: 'resp-model', instructions: PARAMS.system, tools: [{ type: 'function', name: 'weather' }] });
    expect((call!.body.input as unknown[]).length).toBe(3);
    expect(Object.keys(call!.body).sort()).toEqual(['input', 'instructions', 'model', 'tools']);
  });

  it("asks a Chat backend's /chat/completions/input_tokens (llama.cpp's) with a chat body, without max_tokens", async () => {
    const live = await router();
    const upstream = await countingUpstream(() => ({ status: 200, json: COUNT }), '/v1/chat/completions/input_tokens');
    live.config.update((settings) => {
      settings.backends.chat = { type: 'openai-chat', baseUrl: `${upstream.url}/v1` };
      settings.routes['svc.intelligent-pro'] = ['chat:chat-model'];
    });
    const counted = await sdk(live).messages.countTokens(PARAMS).withResponse();
    expect(counted.data).toEqual({ input_tokens: 1234 });
    expect(counted.response.headers.get('x-svc-count-source')).toBe('upstream');
    const body = upstream.calls[0]!.body;
    expect(body).toMatchObject({ model: 'chat-model', messages: [{ role: 'system', content: PARAMS.system }, { role: 'user' }, { role: 'assistant' }, { role: 'tool' }] });
    expect(body).not.toHaveProperty('max_tokens');
    expect(body).not.toHaveProperty('stream');
  });

  it('estimates for a server without the endpoint (404), and does not ask it again for a while', async () => {
    const live = await router();
    const upstream = await countingUpstream(() => ({ status: 200, json: COUNT }), '/nowhere');
    live.config.update((settings) => {
      settings.backends.chat = { type: 'openai-chat', baseUrl: `${upstream.url}/v1` };
      settings.routes['svc.intelligent-pro'] = ['chat:chat-model'];
    });
    const first = await sdk(live).messages.countTokens(PARAMS).withResponse();
    const second = await sdk(live).messages.countTokens(PARAMS).withResponse();
    expect(first.response.headers.get('x-svc-count-source')).toBe('estimate');
    expect(second.data).toEqual(first.data);
    expect(upstream.calls.map((call) => call.path)).toEqual(['/v1/chat/completions/input_tokens']);
  });

  it('estimates when the server refuses the translated body (400) or fails (500), instead of blaming the client', async () => {
    const live = await router();
    let status = 400;
    const upstream = await countingUpstream(() => ({ status, json: { error: { message: 'bad template', type: 'invalid_request_error' } } }), '/v1/responses/input_tokens');
    live.config.update((settings) => {
      settings.backends.responses = { type: 'openai-responses', baseUrl: `${upstream.url}/v1` };
      settings.routes['svc.intelligent-pro'] = ['responses:resp-model'];
    });
    const refused = await sdk(live).messages.countTokens(PARAMS).withResponse();
    status = 500;
    const failed = await sdk(live).messages.countTokens(PARAMS).withResponse();
    for (const answer of [refused, failed]) {
      expect(answer.response.headers.get('x-svc-count-source')).toBe('estimate');
      expect(answer.data.input_tokens).toBeGreaterThan(10);
    }
    expect(upstream.calls).toHaveLength(2);
  });
});
