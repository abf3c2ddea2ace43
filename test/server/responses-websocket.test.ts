import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/server/http-server.js';
import { startHeldStreamUpstream } from '../helpers/held-stream-upstream.js';
import { openResponsesSocket, refusedUpgrade } from '../helpers/responses-socket.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { addBackend, Fakes, parseSse, setRoute, SKU, UPSTREAM_KINDS } from '../integration/support.js';
import type { ScriptedTurn } from '../fakes/scripted-turn.js';
import type { RequestLogEntry } from '../../src/core/request-record.js';

/**
 * Responses over WebSocket against a real router on a real socket, with fake upstreams of every
 * backend type behind it: each turn answers with the events POST /v1/responses streams, a socket
 * remembers only its own last response, and bad messages get error events on an open socket.
 */

let router: TestRouter;
const fakes = new Fakes();
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  router = await startRouter();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await fakes.closeAll();
});
afterAll(() => router.close());

const TOOL = { type: 'function', name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const ANSWER: ScriptedTurn = { text: 'Sunny in Paris, 21 degrees.', usage: { input: 40, output: 9 } };
const CALL: ScriptedTurn = { toolCalls: [{ id: 'call_weather_1', name: 'get_weather', arguments: { city: 'Paris' } }], usage: { input: 40, output: 12 } };

/** Values that differ between two runs of one request (ids, clocks, the caller's remaining tokens), blanked. */
const VARYING = new Set(['id', 'item_id', 'created_at', 'completed_at', 'request_id', 'latency_ms', 'remaining_tokens', 'encrypted_content']);
function normalised(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalised);
  // A Gemini call id carries Gemini's own id sealed under a fresh nonce (src/backends/gemini/tool-call-id.ts).
  if (typeof value === 'string' && /^call_[A-Za-z0-9]{16}_/.test(value)) return '<sealed call id>';
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, VARYING.has(key) ? '<varies>' : normalised(inner)]));
}

async function sseEvents(body: Record<string, unknown>): Promise<any[]> {
  const response = await fetch(`${router.baseURL}/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${router.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  expect(response.status).toBe(200);
  return parseSse(await response.text()).map((frame) => JSON.parse(frame.data));
}

const socket = async () => {
  const opened = await openResponsesSocket(router);
  cleanups.push(() => opened.ws.terminate());
  return opened;
};

describe('Responses over WebSocket', () => {
  for (const kind of UPSTREAM_KINDS) {
    it(`answers a turn with the events the SSE path writes, over ${kind}`, async () => {
      for (const turn of [ANSWER, CALL]) {
        const { fake } = await fakes.routeSku(router, kind, [turn, turn]);
        const body = { model: SKU, input: [{ role: 'user', content: 'Weather in Paris?' }], tools: [TOOL], store: false };
        const overHttp = await sseEvents(body);
        const ws = await socket();
        const overSocket = await ws.create(body);

        expect(overSocket.at(-1).type).toBe('response.completed');
        expect(normalised(overSocket)).toEqual(normalised(overHttp));
        // Billed once, as the HTTP request was: the cap went down by exactly this turn's tokens.
        const [httpMeta, socketMeta] = [overHttp.at(-1).response.svc_meta, overSocket.at(-1).response.svc_meta];
        expect(socketMeta.usage.total_tokens).toBeGreaterThan(0);
        expect(socketMeta.remaining_tokens).toBe(httpMeta.remaining_tokens - socketMeta.usage.total_tokens);
        // One pipeline: the upstream was asked the same thing both ways.
        expect(fake.requests).toHaveLength(2);
        expect(fake.requests[1]!.body).toEqual(fake.requests[0]!.body);
        await fakes.closeAll();
      }
    });
  }

  it('takes successive turns on one socket, continuing the previous response it holds', async () => {
    const { fake } = await fakes.routeSku(router, 'openai-chat', [CALL, ANSWER, ANSWER]);
    const ws = await socket();
    const first = await ws.create({ model: SKU, input: 'Weather in Paris?', tools: [TOOL] });
    const completed = first.at(-1).response;
    const call = completed.output.find((item: any) => item.type === 'function_call');
    expect(call).toMatchObject({ name: 'get_weather', call_id: 'call_weather_1' });

    const second = await ws.create({ model: SKU, previous_response_id: completed.id, input: [{ type: 'function_call_output', call_id: call.call_id, output: '21C, sunny' }], tools: [TOOL] });
    expect(second.at(-1).type).toBe('response.completed');
    // The upstream saw the whole conversation: the socket put the previous response's items back in front.
    const messages = fake.requests[1]!.body.messages;
    expect(messages.map((message: any) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(messages[0].content).toBe('Weather in Paris?');
    expect(messages[1].tool_calls[0]).toMatchObject({ id: 'call_weather_1', function: { name: 'get_weather' } });
    expect(messages[2]).toMatchObject({ tool_call_id: 'call_weather_1', content: '21C, sunny' });

    // Only the latest response is held: naming the first again is answered as OpenAI does, and nothing goes upstream.
    const stale = await ws.create({ model: SKU, previous_response_id: completed.id, input: 'again' });
    expect(stale).toEqual([
      {
        type: 'error',
        status: 400,
        error: { type: 'invalid_request_error', code: 'previous_response_not_found', param: 'previous_response_id', message: `Previous response with id '${completed.id}' not found.` },
        headers: { 'x-request-id': expect.stringMatching(/^req_/) },
      },
    ]);
    expect(fake.requests).toHaveLength(2);
    // A turn that sends its whole input still works on the same socket.
    const third = await ws.create({ model: SKU, input: 'Weather in Paris?' });
    expect(third.at(-1).type).toBe('response.completed');
  });

  it('starts a new socket empty: it does not know another socket\'s responses', async () => {
    const { fake } = await fakes.routeSku(router, 'anthropic', [ANSWER, ANSWER]);
    const first = await socket();
    const id = (await first.create({ model: SKU, input: 'hi' })).at(-1).response.id;
    const second = await socket();
    const events = await second.create({ model: SKU, previous_response_id: id, input: 'and then?' });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'error', status: 400, error: { code: 'previous_response_not_found', param: 'previous_response_id' } });
    expect(fake.requests).toHaveLength(1);
    // The first socket still continues its own response.
    expect((await first.create({ model: SKU, previous_response_id: id, input: 'and then?' })).at(-1).type).toBe('response.completed');
  });

  it('turns client_metadata into the turn\'s request headers, as the same client sends them over HTTP', async () => {
    const log: RequestLogEntry[] = [];
    const logged = await startRouter({ http: { requestLog: { logBodies: false, record: (entry) => log.push(entry), flush() {} } } });
    cleanups.push(() => logged.close());
    const fake = await fakes.start('openai-responses', [ANSWER, ANSWER]);
    setRoute(logged, SKU, [`${addBackend(logged, 'oar', 'openai-responses', fake.url)}:model-oar`]);
    const overHttp = await fetch(`${logged.baseURL}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${logged.key}`, 'content-type': 'application/json', session_id: 'codex-session-1' },
      body: JSON.stringify({ model: SKU, input: 'hi', stream: true }),
    });
    await overHttp.text();
    const ws = await openResponsesSocket(logged);
    cleanups.push(() => ws.ws.terminate());
    expect((await ws.create({ model: SKU, input: 'hi', client_metadata: { session_id: 'codex-session-1', 'x-codex-turn-metadata': '{"turn_id":"t1"}' } })).at(-1).type).toBe('response.completed');

    // The upstream got the same body both ways (client_metadata is not a body field), and the turn the same session.
    expect(fake.requests[1]!.body).toEqual(fake.requests[0]!.body);
    expect(log.map((entry) => entry.method)).toEqual(['POST', 'WS']);
    expect(log[1]!.session).toBeDefined();
    expect(log[1]!.session).toBe(log[0]!.session);

    for (const bad of [{ authorization: 'Bearer x' }, { 'bad name': 'x' }, { fine: 'line\nbreak' }, { fine: { nested: true } }, ['not', 'an', 'object']]) {
      const events = await ws.create({ model: SKU, input: 'hi', client_metadata: bad });
      expect(events, JSON.stringify(bad)).toEqual([expect.objectContaining({ type: 'error', status: 400, error: expect.objectContaining({ param: 'client_metadata' }) })]);
    }
  });

  it('warms up without generating, and a turn continues the warm-up', async () => {
    const { fake } = await fakes.routeSku(router, 'openai-chat', [ANSWER]);
    const ws = await socket();
    const warm = await ws.create({ model: SKU, generate: false, instructions: 'Be brief.', input: [{ role: 'user', content: 'Weather in Paris?' }] });
    expect(warm.map((event) => event.type)).toEqual(['response.created', 'response.completed']);
    expect(warm[1].response).toMatchObject({ status: 'completed', output: [], usage: { total_tokens: 0 } });
    expect(fake.requests).toHaveLength(0);
    const turn = await ws.create({ model: SKU, previous_response_id: warm[1].response.id, input: [] });
    expect(turn.at(-1).type).toBe('response.completed');
    expect(fake.requests[0]!.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'Weather in Paris?' });
  });

  it('answers a bad message with an error event in OpenAI\'s shape and keeps the socket open', async () => {
    await fakes.routeSku(router, 'openai-chat', [ANSWER]);
    const ws = await socket();
    const cases: Array<[unknown, Record<string, unknown>]> = [
      ['{not json', { status: 400, error: { type: 'invalid_request_error', code: 'invalid_json' } }],
      ['[1,2]', { status: 400, error: { code: 'invalid_json' } }],
      [{ type: 'session.update' }, { status: 400, error: { param: 'type', code: 'unknown_event_type' } }],
      [{ model: SKU, input: 'no type' }, { status: 400, error: { param: 'type' } }],
      [Buffer.from([1, 2, 3]), { status: 400, error: { code: 'invalid_message' } }],
      [{ type: 'response.create', model: SKU, input: 'hi', background: true }, { status: 400, error: { param: 'background' } }],
      [{ type: 'response.create', model: SKU, input: 42 }, { status: 400, error: { type: 'invalid_request_error', param: 'input' } }],
      [{ type: 'response.create', model: 'no-such-model', input: 'hi' }, { status: 400, error: { param: 'model' } }],
      [{ type: 'response.create', __proto__: { polluted: true }, constructor: 'x', model: SKU, input: 'hi', previous_response_id: 'constructor' }, { status: 400, error: { code: 'previous_response_not_found' } }],
    ];
    for (const [message, expected] of cases) {
      ws.send(message);
      const events = await ws.turn();
      expect(events, JSON.stringify(message)).toHaveLength(1);
      expect(events[0], JSON.stringify(message)).toMatchObject({ type: 'error', ...expected });
      expect(Object.keys(events[0].error).sort()).toEqual(['code', 'message', 'param', 'type']);
    }
    expect(({} as any).polluted).toBeUndefined();
    expect((await ws.create({ model: SKU, input: 'hi' })).at(-1).type).toBe('response.completed');
  });

  it('checks the key again on every turn: a key revoked while its socket is open gets 401 error events', async () => {
    await fakes.routeSku(router, 'openai-chat', [ANSWER, ANSWER]);
    const key = router.issueKey('bob');
    const ws = await openResponsesSocket(router, { authorization: `Bearer ${key}` });
    cleanups.push(() => ws.ws.terminate());
    expect((await ws.create({ model: SKU, input: 'hi' })).at(-1).type).toBe('response.completed');
    router.config.update((settings) => void delete settings.keys.bob);
    for (const body of [{ model: SKU, input: 'hi' }, { model: SKU, input: 'hi', generate: false }]) {
      const events = await ws.create(body);
      expect(events, JSON.stringify(body)).toEqual([expect.objectContaining({ type: 'error', status: 401, error: expect.objectContaining({ type: 'authentication_error' }) })]);
      expect(JSON.stringify(events)).not.toContain(key);
    }
  });

  it('bounds a message: over server.bodyLimitBytes an error event, far over it the socket closes (1009), and the router serves on', async () => {
    await fakes.routeSku(router, 'openai-chat', [ANSWER]);
    const limit = router.config.read().server.bodyLimitBytes;
    router.config.update((settings) => void (settings.server.bodyLimitBytes = 4096));
    cleanups.push(() => router.config.update((settings) => void (settings.server.bodyLimitBytes = limit)));
    const ws = await socket();
    const events = await ws.create({ model: SKU, input: 'x'.repeat(5000) });
    expect(events).toEqual([expect.objectContaining({ type: 'error', status: 413, error: expect.objectContaining({ code: 'request_too_large', message: expect.stringContaining('server.bodyLimitBytes') }) })]);
    expect((await ws.create({ model: SKU, input: 'hi' })).at(-1).type).toBe('response.completed');

    ws.send(JSON.stringify({ type: 'response.create', model: SKU, input: 'x'.repeat(4096 + 1024 * 1024) }));
    expect(await ws.closed()).toBe(1009);
    const again = await socket();
    await fakes.routeSku(router, 'openai-chat', [ANSWER]);
    expect((await again.create({ model: SKU, input: 'hi' })).at(-1).type).toBe('response.completed');
  });

  it('passes an error the endpoint answers before streaming on as an error event with its status', async () => {
    await fakes.routeSku(router, 'openai-chat', [{ status: 429, headers: { 'retry-after': '7' } }, ANSWER]);
    router.config.update((settings) => void (settings.routes['svc.only-one'] = settings.routes[SKU]!));
    const ws = await socket();
    const events = await ws.create({ model: SKU, input: 'hi' });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'error', status: 429, headers: { 'retry-after': '7' } });
    expect((await ws.create({ model: SKU, input: 'hi' })).at(-1).type).toBe('response.completed');
  });

  it('releases the upstream call when the client closes the socket mid-response', async () => {
    const held = await startHeldStreamUpstream();
    cleanups.push(() => held.close());
    setRoute(router, SKU, [`${addBackend(router, 'held', 'openai-chat', held.url)}:held-model`]);
    const ws = await socket();
    ws.send({ type: 'response.create', model: SKU, input: 'hold on' });
    await held.holding();
    ws.ws.close();
    await held.abandoned();
  });

  it('answers one turn at a time, queues what comes meanwhile in order, and refuses a queue past its bound', async () => {
    const held = await startHeldStreamUpstream();
    cleanups.push(() => held.close());
    setRoute(router, SKU, [`${addBackend(router, 'held', 'openai-chat', held.url)}:held-model`]);
    const ws = await socket();
    ws.send({ type: 'response.create', model: SKU, input: 'hold on' });
    await held.holding();
    // 15 more wait behind the turn in flight (16 in all); the 17th is refused at once.
    for (let i = 0; i < 16; i++) ws.send(`{bad ${i}`);
    const untilRefused = await ws.turn();
    expect(untilRefused.at(-1)).toMatchObject({ type: 'error', status: 429, error: { code: 'too_many_waiting' } });
    expect(untilRefused.some((event) => event.type === 'response.completed')).toBe(false);
    held.release();
    expect((await ws.turn()).at(-1).type).toBe('response.completed');
    for (let i = 0; i < 15; i++) expect((await ws.turn())[0]).toMatchObject({ type: 'error', status: 400, error: { code: 'invalid_json' } });
  });

  it('refuses an upgrade it cannot serve in OpenAI\'s error shape: 426 when switched off (so clients use HTTP at once), 401, 404, 403', async () => {
    const bearer = { authorization: `Bearer ${router.key}` };
    router.config.update((settings) => void (settings.server.websockets = false));
    cleanups.push(() => router.config.update((settings) => void (settings.server.websockets = true)));
    const off = await refusedUpgrade(router, bearer);
    expect(off.status).toBe(426);
    expect(off.body).toEqual({ error: { type: 'invalid_request_error', code: 'websockets_disabled', param: null, message: expect.stringContaining('server.websockets') } });
    router.config.update((settings) => void (settings.server.websockets = true));

    const noKey = await refusedUpgrade(router, {});
    expect(noKey.status).toBe(401);
    expect(noKey.body.error.type).toBe('authentication_error');
    const badKey = await refusedUpgrade(router, { authorization: 'Bearer svc_not_a_real_key_0000000000' });
    expect(badKey.status).toBe(401);
    expect(JSON.stringify(badKey.body)).not.toContain('svc_not_a_real_key');
    const elsewhere = await refusedUpgrade(router, bearer, '/v1/chat/completions');
    expect(elsewhere.status).toBe(404);
    const browser = await refusedUpgrade(router, { ...bearer, origin: 'https://evil.example' });
    expect(browser.status).toBe(403);
  });

  it('closes its sockets when the server stops, so stopping never waits on an idle socket', async () => {
    const own = await startRouter();
    const ws = await openResponsesSocket(own);
    await own.close();
    expect(await ws.closed()).toBeGreaterThan(1000);
  });

  it('on a graceful stop lets the turn in flight finish, then closes the socket (1001)', async () => {
    const held = await startHeldStreamUpstream();
    cleanups.push(() => held.close());
    setRoute(router, SKU, [`${addBackend(router, 'held', 'openai-chat', held.url)}:held-model`]);
    const server = createHttpServer(router.app);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const ws = await openResponsesSocket({ ...router, origin });
    ws.send({ type: 'response.create', model: SKU, input: 'hold on' });
    await held.holding();
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    held.release();
    expect((await ws.turn()).at(-1).type).toBe('response.completed');
    expect(await ws.closed()).toBe(1001);
    await stopped;
  });

  it('still serves a plain request that asks for another upgrade (h2c) as HTTP', async () => {
    const response = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      import('node:http').then(({ default: http }) => {
        const request = http.get(`${router.origin}/health`, { headers: { connection: 'Upgrade, HTTP2-Settings', upgrade: 'h2c', 'http2-settings': 'AAMAAABkAARAAAAAAAIAAAAA' } }, (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
        request.on('error', reject);
      }, reject);
    });
    expect(response).toEqual({ status: 200, text: JSON.stringify({ status: 'ok' }) });
  });
});
