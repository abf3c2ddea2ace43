import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { send } from '../helpers/send.js';
import { addBackend, Fakes, setRoute, SKU } from '../integration/support.js';

/**
 * The Gemini door's paths, keys and errors on a real router: every method under /v1beta and /v1,
 * a key in each place Google's clients put one, and every error in Google's shape, naming the fix.
 */

let router: TestRouter;
const fakes = new Fakes();
beforeAll(async () => {
  router = await startRouter();
});
afterEach(async () => {
  await fakes.closeAll();
  router.config.update((settings) => {
    settings.routes = {};
    delete settings.keys.limited;
  });
});
afterAll(() => router.close());

const CONTENTS = { contents: [{ role: 'user', parts: [{ text: 'Say hi' }] }] };
const goog = () => ({ 'x-goog-api-key': router.key });
const errorOf = (json: any) => json.error as { code: number; message: string; status: string; details: Array<Record<string, unknown>> };

describe('the paths', () => {
  it.each(['/v1beta', '/v1'])('%s: generateContent, both streams and countTokens', async (version) => {
    const plain = await send(router, `${version}/models/${SKU}:generateContent`, { headers: goog(), body: CONTENTS });
    expect(plain.status).toBe(200);
    expect(plain.json).toMatchObject({ candidates: [{ content: { role: 'model', parts: [{ text: expect.stringContaining('Say hi') }] }, finishReason: 'STOP' }], modelVersion: SKU });

    const sse = await send(router, `${version}/models/${SKU}:streamGenerateContent?alt=sse`, { headers: goog(), body: CONTENTS });
    expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = sse.text.split('\r\n\r\n').filter(Boolean);
    expect(frames.every((frame) => frame.startsWith('data: '))).toBe(true);
    expect(JSON.parse(frames.at(-1)!.slice(6))).toMatchObject({ candidates: [{ finishReason: 'STOP' }], usageMetadata: { promptTokenCount: expect.any(Number) } });

    const array = await send(router, `${version}/models/${SKU}:streamGenerateContent`, { headers: goog(), body: CONTENTS });
    expect(array.headers.get('content-type')).toBe('application/json');
    expect(Array.isArray(array.json)).toBe(true);
    expect(array.json.at(-1).candidates[0].finishReason).toBe('STOP');

    const counted = await send(router, `${version}/models/${SKU}:countTokens`, { headers: goog(), body: CONTENTS });
    expect(counted.json).toEqual({ totalTokens: expect.any(Number) });
    expect(counted.headers.get('x-svc-count-source')).toBe('estimate');
  });

  it('lists the SKUs in Google\'s model shape, with their windows, under /v1beta and (for a Google client) /v1', async () => {
    router.config.update((settings) => {
      settings.contextWindows = { [SKU]: 200_000 };
    });
    for (const path of ['/v1beta/models', '/v1/models', `/v1/models?key=${router.key}`]) {
      const listed = await send(router, path, { headers: path.includes('key=') ? {} : goog() });
      expect(listed.status, path).toBe(200);
      expect(listed.json.models.map((model: { name: string }) => model.name)).toEqual(['models/svc.intelligent-pro', 'models/svc.intelligent-basic', 'models/svc.intelligent-lite']);
      expect(listed.json.models[1]).toMatchObject({ name: `models/${SKU}`, displayName: SKU, inputTokenLimit: 200_000, supportedGenerationMethods: ['generateContent', 'countTokens'] });
    }
    const one = await send(router, `/v1beta/models/${SKU}`, { headers: goog() });
    expect(one.json).toMatchObject({ name: `models/${SKU}`, inputTokenLimit: 200_000 });
    // An OpenAI client of the shared list still gets OpenAI's shape.
    const openai = await send(router, '/v1/models', { headers: { authorization: `Bearer ${router.key}` } });
    expect(openai.json.object).toBe('list');
  });
});

describe('countTokens', () => {
  it("is the Gemini upstream's own count, of the whole request as the upstream would be sent it, on either door", async () => {
    const { fake, upstreamModel } = await fakes.routeSku(router, 'gemini', [{ text: 'unused' }]);
    const body = { generateContentRequest: { model: `models/${SKU}`, contents: CONTENTS.contents, systemInstruction: { parts: [{ text: 'Be brief.' }] } } };
    const counted = await send(router, `/v1beta/models/${SKU}:countTokens`, { headers: goog(), body });
    expect(counted.headers.get('x-svc-count-source')).toBe('upstream');
    const sent = fake.requests.at(-1)!;
    expect(sent.path).toBe(`/v1beta/models/${upstreamModel}:countTokens`);
    // The client's own request, the model the upstream's.
    expect(sent.body).toEqual({ generateContentRequest: { ...body.generateContentRequest, model: `models/${upstreamModel}` } });
    expect(counted.json).toEqual({ totalTokens: Math.ceil(JSON.stringify({ contents: CONTENTS.contents, systemInstruction: body.generateContentRequest.systemInstruction }).length / 4) });

    // A Messages client's count on the same route: translated, counted by Gemini.
    const messages = await send(router, '/v1/messages/count_tokens', { headers: { 'x-api-key': router.key, 'anthropic-version': '2023-06-01' }, body: { model: SKU, messages: [{ role: 'user', content: 'Say hi' }] } });
    expect(messages.headers.get('x-svc-count-source')).toBe('upstream');
    expect(fake.requests.at(-1)!.body.generateContentRequest.contents).toEqual([{ role: 'user', parts: [{ text: 'Say hi' }] }]);
  });
});

describe('keys', () => {
  it.each([
    ['x-goog-api-key', (key: string) => ({ headers: { 'x-goog-api-key': key }, query: '' })],
    ['?key=', (key: string) => ({ headers: {}, query: `?key=${encodeURIComponent(key)}` })],
    ['Authorization: Bearer', (key: string) => ({ headers: { authorization: `Bearer ${key}` }, query: '' })],
  ])('are read from %s', async (_where, place) => {
    const { headers, query } = place(router.key);
    expect((await send(router, `/v1beta/models/${SKU}:generateContent${query}`, { headers, body: CONTENTS })).status).toBe(200);
    const wrong = place('svc_nobody_0000000000000000000000000000');
    const refused = await send(router, `/v1beta/models/${SKU}:generateContent${wrong.query}`, { headers: wrong.headers, body: CONTENTS });
    expect(refused.status).toBe(401);
    expect(errorOf(refused.json)).toMatchObject({ code: 401, status: 'UNAUTHENTICATED', message: expect.stringContaining('Invalid API key') });
  });

  it('asks for a missing key where Google clients send one', async () => {
    const missing = await send(router, `/v1beta/models/${SKU}:generateContent`, { body: CONTENTS });
    expect(errorOf(missing.json)).toMatchObject({ code: 401, status: 'UNAUTHENTICATED', message: 'Missing API key. Send it as "x-goog-api-key: <key>" (or "?key=<key>" in the URL, or "Authorization: Bearer <key>").' });
  });
});

describe("errors in Google's shape, each naming the fix", () => {
  it('INVALID_ARGUMENT for a bad body, naming the field', async () => {
    const bad = await send(router, `/v1beta/models/${SKU}:generateContent`, { headers: goog(), body: { contents: [{ role: 'model', parts: [{ functionResponse: { name: 'f', response: {} } }] }] } });
    expect(bad.status).toBe(400);
    expect(errorOf(bad.json)).toMatchObject({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message: "contents[0].parts[0].functionResponse: function responses come from the user; put this part in a Content with role 'user'.",
      details: expect.arrayContaining([{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'contents[0].parts[0].functionResponse', description: expect.any(String) }] }]),
    });
    const notJson = await send(router, `/v1beta/models/${SKU}:generateContent`, { headers: goog(), body: '{"contents":' });
    expect(errorOf(notJson.json)).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
  });

  it('INVALID_ARGUMENT for a model no route serves, listing the SKUs; another format\'s id points to its door', async () => {
    const unknown = await send(router, '/v1beta/models/gpt-4o:generateContent', { headers: goog(), body: CONTENTS });
    expect(errorOf(unknown.json)).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining('svc.intelligent-pro') });
    const claude = await send(router, '/v1beta/models/claude-sonnet-4-5:generateContent', { headers: goog(), body: CONTENTS });
    expect(errorOf(claude.json).message).toContain('/v1/messages');
  });

  it('NOT_FOUND for a method or a model the router does not have', async () => {
    const method = await send(router, `/v1beta/models/${SKU}:embedContent`, { headers: goog(), body: CONTENTS });
    expect(method.status).toBe(404);
    expect(errorOf(method.json)).toMatchObject({ status: 'NOT_FOUND', message: expect.stringContaining('generateContent, streamGenerateContent and countTokens') });
    const model = await send(router, '/v1beta/models/svc.nothing', { headers: goog() });
    expect(errorOf(model.json)).toMatchObject({ code: 404, status: 'NOT_FOUND', message: expect.stringContaining('Use one of the svc SKUs') });
  });

  it('RESOURCE_EXHAUSTED with the wait in RetryInfo and retry-after when a key is over its rate', async () => {
    const key = router.issueKey('limited');
    router.config.update((settings) => {
      settings.keys.limited!.rateLimit = { requestsPerMinute: 1 };
    });
    const headers = { 'x-goog-api-key': key };
    expect((await send(router, `/v1beta/models/${SKU}:generateContent`, { headers, body: CONTENTS })).status).toBe(200);
    const limited = await send(router, `/v1beta/models/${SKU}:generateContent`, { headers, body: CONTENTS });
    expect(limited.status).toBe(429);
    const error = errorOf(limited.json);
    expect(error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED', message: expect.stringMatching(/Retry in \d+ s\.$/) });
    const retry = error.details.find((detail) => detail['@type'] === 'type.googleapis.com/google.rpc.RetryInfo');
    expect(retry?.retryDelay).toBe(`${limited.headers.get('retry-after')}s`);
  });

  it('UNAVAILABLE when the upstream is overloaded, in a stream too', async () => {
    const { fake } = await fakes.routeSku(router, 'anthropic', [{ status: 529, errorBody: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }]);
    for (const path of [`/v1beta/models/${SKU}:generateContent`, `/v1beta/models/${SKU}:streamGenerateContent?alt=sse`]) {
      const reply = await send(router, path, { headers: goog(), body: CONTENTS });
      expect(reply.status, path).toBe(503);
      expect(errorOf(reply.json)).toMatchObject({ code: 503, status: 'UNAVAILABLE', message: expect.stringContaining('Overloaded') });
    }
    expect(fake.requests.length).toBeGreaterThan(0);
  });
});

describe('gemini-* model ids', () => {
  it('are served by the first SKU routed to a real backend, as claude-* ids are on the messages door', async () => {
    const { fake, upstreamModel } = await fakes.routeSku(router, 'openai-chat', [{ text: 'from the SKU' }]);
    const reply = await send(router, '/v1beta/models/gemini-2.5-pro:generateContent', { headers: goog(), body: CONTENTS });
    expect(reply.json.candidates[0].content.parts[0].text).toBe('from the SKU');
    expect(reply.json.modelVersion).toBe('gemini-2.5-pro');
    expect(fake.requests[0]!.body.model).toBe(upstreamModel);
    expect(reply.json.svc_meta).toMatchObject({ sku: 'gemini-2.5-pro', upstream_model: upstreamModel });
  });

  it("take a route of their own, by id or pattern, over the SKUs'", async () => {
    await fakes.routeSku(router, 'openai-chat', [{ text: 'from the SKU' }]);
    const fake = await fakes.start('anthropic', [{ text: 'from the gemini-* route' }]);
    addBackend(router, 'claude', 'anthropic', fake.url);
    setRoute(router, 'gemini-*', ['claude:claude-sonnet-4-5']);
    const reply = await send(router, '/v1beta/models/gemini-2.5-flash:generateContent', { headers: goog(), body: CONTENTS });
    expect(reply.json.candidates[0].content.parts[0].text).toBe('from the gemini-* route');
    expect(fake.requests[0]!.body.model).toBe('claude-sonnet-4-5');
  });

  it('are refused on the other doors, which point to this one', async () => {
    const reply = await send(router, '/v1/chat/completions', { headers: { authorization: `Bearer ${router.key}` }, body: { model: 'gemini-2.5-pro', messages: [{ role: 'user', content: 'hi' }] } });
    expect(reply.status).toBe(400);
    expect(reply.json.error.message).toContain('/v1beta/models/{model}:{method}');
  });

  it('are served offline when no route is real', async () => {
    addBackend(router, 'unused', 'openai-chat', 'http://127.0.0.1:9');
    setRoute(router, 'svc.intelligent-lite', ['offline']);
    const reply = await send(router, '/v1beta/models/gemini-2.5-flash:generateContent', { headers: goog(), body: CONTENTS });
    expect(reply.json.svc_meta).toMatchObject({ backend: 'offline' });
  });
});
