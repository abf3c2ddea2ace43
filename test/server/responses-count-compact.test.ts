import { afterEach, describe, expect, it } from 'vitest';
import { sendJson, startFakeServer } from '../fakes/fake-server.js';
import { startRouter, type TestRouter } from '../helpers/router.js';

/**
 * POST /v1/responses/input_tokens and /v1/responses/compact on a route to an OpenAI Responses
 * upstream: both go to the upstream's own endpoint, with the route's upstream model, and its answer
 * comes back as it is.
 */

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function setUp(capTokens?: number): Promise<{ router: TestRouter; seen: Array<{ path: string; body: any }> }> {
  const seen: Array<{ path: string; body: any }> = [];
  const upstream = await startFakeServer(async (request, res) => {
    seen.push({ path: request.path, body: request.body });
    if (request.path === '/v1/responses/input_tokens') return sendJson(res, 200, { object: 'response.input_tokens', input_tokens: 4242 });
    if (request.path === '/v1/responses/compact') {
      return sendJson(res, 200, { id: 'resp_up', object: 'response.compaction', created_at: 1, output: [{ type: 'compaction', id: 'cmp_1', encrypted_content: 'opaque-from-upstream' }], usage: { input_tokens: 9, output_tokens: 1, total_tokens: 10 } });
    }
    sendJson(res, 404, { error: { message: 'not here' } });
  });
  closers.push(() => upstream.close());
  const router = await startRouter(capTokens ? { capTokens } : {});
  closers.push(() => router.close());
  router.config.update((settings) => {
    settings.backends.oar = { type: 'openai-responses', baseUrl: `${upstream.origin}/v1`, apiKey: 'upstream-key' };
    settings.routes['svc.intelligent-pro'] = ['oar:gpt-5'];
  });
  return { router, seen };
}

const post = async (router: TestRouter, path: string, body: unknown) => {
  const response = await fetch(`${router.origin}${path}`, { method: 'POST', headers: { authorization: `Bearer ${router.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, source: response.headers.get('x-svc-count-source'), json: (await response.json()) as any };
};

describe('Responses token counting and compaction on an OpenAI Responses route', () => {
  it("counts with the upstream's /responses/input_tokens, under the route's model", async () => {
    const { router, seen } = await setUp();
    const reply = await post(router, '/v1/responses/input_tokens', { model: 'svc.intelligent-pro', input: 'hello there', instructions: 'be brief' });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ object: 'response.input_tokens', input_tokens: 4242 });
    expect(reply.source).toBe('upstream');
    expect(seen.at(-1)).toMatchObject({ path: '/v1/responses/input_tokens', body: { model: 'gpt-5' } });
  });

  it('counts a body without input (instructions alone), and refuses one without a model in OpenAI\'s shape', async () => {
    const { router } = await setUp();
    expect((await post(router, '/v1/responses/input_tokens', { model: 'svc.intelligent-pro', instructions: 'be brief' })).status).toBe(200);
    const refused = await post(router, '/v1/responses/input_tokens', { input: 'hi' });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ type: 'invalid_request_error', param: 'model' });
  });

  it("forwards compaction to the upstream's /responses/compact and hands its opaque output back", async () => {
    const { router, seen } = await setUp();
    const input = [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix the bug' }] }];
    const reply = await post(router, '/v1/responses/compact', { model: 'svc.intelligent-pro', input, instructions: 'you code', previous_response_id: 'resp_elsewhere' });
    expect(reply.status).toBe(200);
    expect(reply.json.output).toEqual([{ type: 'compaction', id: 'cmp_1', encrypted_content: 'opaque-from-upstream' }]);
    const sent = seen.at(-1)!;
    expect(sent.path).toBe('/v1/responses/compact');
    expect(sent.body).toEqual({ model: 'gpt-5', input, instructions: 'you code' });
    // What the upstream spent on it is the caller's usage, once.
    const summary = await router.app.ledger.summary('alice');
    expect(summary).toMatchObject({ inputTokens: 9, outputTokens: 1, requests: 1 });
  });

  it('is held to the usage cap like any completion: refused before the upstream is asked', async () => {
    const { router, seen } = await setUp(5);
    const input = [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'a conversation far longer than five tokens of cap' }] }];
    const refused = await post(router, '/v1/responses/compact', { model: 'svc.intelligent-pro', input });
    expect(refused.status).toBe(429);
    expect(seen.filter((request) => request.path === '/v1/responses/compact')).toEqual([]);
  });

  it('refuses a compaction body that is not an object, in OpenAI\'s shape', async () => {
    const { router } = await setUp();
    const refused = await post(router, '/v1/responses/compact', [1, 2]);
    expect(refused.status).toBe(400);
    expect(refused.json.error.type).toBe('invalid_request_error');
  });
});
