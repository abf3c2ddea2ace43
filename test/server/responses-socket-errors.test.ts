import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { RequestLogEntry } from '../../src/core/request-record.js';
import { startHeldStreamUpstream } from '../helpers/held-stream-upstream.js';
import { openResponsesSocket, type ResponsesSocket } from '../helpers/responses-socket.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { addBackend, Fakes, setRoute, SKU } from '../integration/support.js';
import type { ScriptedTurn } from '../fakes/scripted-turn.js';

/**
 * Every way a Responses socket message can go wrong ends its turn the way an HTTP request's error
 * ends it: one `error` event in OpenAI's shape, and one request log line with the same request id
 * and message. Nothing is dropped, nothing hangs, and the socket takes the next turn.
 */

const ANSWER: ScriptedTurn = { text: 'Sunny.', usage: { input: 10, output: 2 } };
/** The router's body limit in this file: small enough to go over cheaply. */
const LIMIT = 64 * 1024;

let router: TestRouter;
const log: RequestLogEntry[] = [];
let logged: (() => void) | undefined;
const fakes = new Fakes();
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  router = await startRouter({
    http: {
      requestLog: {
        logBodies: false,
        record(entry) {
          log.push(entry);
          logged?.();
        },
        flush() {},
      },
    },
  });
  router.config.update((settings) => void (settings.server.bodyLimitBytes = LIMIT));
});
/** What a test is still waiting for: named when it times out, as a turn that never ends or a line never written would. */
const awaited = new Set<string>();
async function waitFor<T>(what: string, promise: Promise<T>): Promise<T> {
  awaited.add(what);
  try {
    return await promise;
  } finally {
    awaited.delete(what);
  }
}
afterEach(async () => {
  const never = [...awaited];
  awaited.clear();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await fakes.closeAll();
  if (never.length) throw new Error(`Never came: ${never.join('; ')}`);
});
afterAll(() => router.close());

/** The next request log line not yet taken (waits for it: a turn's line is written once its events are sent). */
async function nextLine(what = 'a turn'): Promise<RequestLogEntry> {
  while (log.length === 0) await waitFor(`the log line of ${what}`, new Promise<void>((resolve) => (logged = resolve)));
  return log.shift()!;
}

async function socket(headers?: Record<string, string>): Promise<ResponsesSocket> {
  const opened = await openResponsesSocket(router, headers);
  cleanups.push(() => opened.ws.terminate());
  return opened;
}

/** A response.create whose `input` nests `depth` arrays deep, written by hand (JSON.stringify could not). */
const nestedInput = (depth: number): string => `{"type":"response.create","model":"${SKU}","input":${'['.repeat(depth)}${']'.repeat(depth)}}`;

/** Asserts the turn is one error event and its log line, tied by the request id; returns the event. */
async function expectLoggedError(events: any[], label: string): Promise<any> {
  expect(events, label).toHaveLength(1);
  const [event] = events;
  expect(event.type, label).toBe('error');
  expect(Object.keys(event.error).sort(), label).toEqual(['code', 'message', 'param', 'type']);
  const line = await nextLine(label);
  expect(line, label).toMatchObject({ method: 'WS', path: '/v1/responses', status: event.status, error: event.error.message, caller: 'alice' });
  expect(line.requestId, label).toMatch(/^req_/);
  expect(event.headers?.['x-request-id'], label).toBe(line.requestId);
  return event;
}

describe('Responses socket errors', () => {
  const cases: Array<[string, () => unknown, { status: number; code?: string; param?: string; message?: string }]> = [
    ['text that is not JSON', () => '{not json', { status: 400, code: 'invalid_json' }],
    ['a JSON array', () => '[1,2]', { status: 400, code: 'invalid_json' }],
    ['a binary frame', () => Buffer.from([1, 2, 3]), { status: 400, code: 'invalid_message' }],
    ['an event type the socket does not take', () => ({ type: 'session.update' }), { status: 400, code: 'unknown_event_type', param: 'type' }],
    ['a message without a type', () => ({ model: SKU, input: 'hi' }), { status: 400, param: 'type' }],
    ['a body nested 4,500 levels deep', () => nestedInput(4500), { status: 400, code: 'too_deep', message: 'The request body nests deeper than 64 levels.' }],
    ['a body nested one level past the HTTP limit', () => nestedInput(64), { status: 400, code: 'too_deep' }],
    ['a message over server.bodyLimitBytes', () => ({ type: 'response.create', model: SKU, input: 'x'.repeat(LIMIT) }), { status: 413, code: 'request_too_large' }],
    ['background: true', () => ({ type: 'response.create', model: SKU, input: 'hi', background: true }), { status: 400, param: 'background' }],
    ['a previous response the socket does not hold', () => ({ type: 'response.create', model: SKU, previous_response_id: 'resp_elsewhere' }), { status: 400, code: 'previous_response_not_found' }],
    ['client_metadata naming the key header', () => ({ type: 'response.create', model: SKU, input: 'hi', client_metadata: { authorization: 'Bearer x' } }), { status: 400, param: 'client_metadata' }],
    ['a model no route serves', () => ({ type: 'response.create', model: 'no-such-model', input: 'hi' }), { status: 400, param: 'model' }],
    ['input that is not a list', () => ({ type: 'response.create', model: SKU, input: 42 }), { status: 400, param: 'input' }],
  ];

  it('ends every malformed message\'s turn with one error event and one log line, and takes the next turn', async () => {
    await fakes.routeSku(router, 'openai-chat', [ANSWER]);
    const ws = await socket();
    for (const [label, message, expected] of cases) {
      ws.send(message());
      const event = await expectLoggedError(await waitFor(`the events of ${label}`, ws.turn()), label);
      expect(event, label).toMatchObject({ status: expected.status, error: { ...(expected.code ? { code: expected.code } : {}), ...(expected.param ? { param: expected.param } : {}), ...(expected.message ? { message: expected.message } : {}) } });
    }
    expect((await ws.create({ model: SKU, input: 'hi' })).at(-1).type).toBe('response.completed');
    expect(await nextLine()).toMatchObject({ method: 'WS', status: 200 });
  });

  it('ends a turn whose upstream fails before streaming with its error event and log line', async () => {
    for (const status of [400, 401, 429, 500, 503]) {
      const { fake } = await fakes.routeSku(router, 'openai-chat', [{ status, headers: { 'retry-after': '0' } }]);
      const ws = await socket();
      const label = `an upstream ${status}`;
      const event = await expectLoggedError(await waitFor(`the events of ${label}`, ws.create({ model: SKU, input: 'hi' })), label);
      expect(event.status, label).toBeGreaterThanOrEqual(400);
      expect(fake.requests.length, label).toBeGreaterThan(0);
      ws.ws.terminate();
      await fakes.closeAll();
    }
  });

  it('refuses deep nesting exactly where HTTP does, with the same error, wherever in the body it is', async () => {
    const where = fc.constantFrom('input', 'metadata', 'tools', 'extra');
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 60, max: 5000 }), where, async (depth, field) => {
        const nested = field === 'metadata' || field === 'extra' ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}${']'.repeat(depth)}`;
        const body = `"model":"no-such-model","input":"hi","${field}":${nested}`;
        const overHttp = await fetch(`${router.baseURL}/responses`, {
          method: 'POST',
          headers: { authorization: `Bearer ${router.key}`, 'content-type': 'application/json' },
          body: `{${body},"stream":true}`,
        });
        const httpError = ((await overHttp.json()) as { error: unknown }).error;
        expect(await nextLine()).toMatchObject({ method: 'POST', status: overHttp.status });
        const ws = await socket();
        ws.send(`{"type":"response.create",${body}}`);
        const label = `${field} nested ${depth} deep`;
        const event = await expectLoggedError(await waitFor(`the events of ${label}`, ws.turn()), label);
        expect(event.status).toBe(overHttp.status);
        expect(event.error).toEqual(httpError);
        ws.ws.terminate();
      }),
      { numRuns: 25 },
    );
  });

  it('logs a warm-up refused for a revoked key, and a message refused for waiting behind a full queue', async () => {
    const key = router.issueKey('bob');
    const ws = await socket({ authorization: `Bearer ${key}` });
    router.config.update((settings) => void delete settings.keys.bob);
    const [event] = await ws.create({ model: SKU, input: 'hi', generate: false });
    expect(event).toMatchObject({ type: 'error', status: 401 });
    const line = await nextLine('a warm-up with a revoked key');
    expect(line).toMatchObject({ method: 'WS', path: '/v1/responses', status: 401, error: event.error.message });
    expect(event.headers?.['x-request-id']).toBe(line.requestId);

    const held = await startHeldStreamUpstream();
    cleanups.push(() => held.close());
    setRoute(router, SKU, [`${addBackend(router, 'held', 'openai-chat', held.url)}:held-model`]);
    const busy = await socket();
    busy.send({ type: 'response.create', model: SKU, input: 'hold on' });
    await held.holding();
    for (let i = 0; i < 16; i++) busy.send({ type: 'response.create', model: SKU, input: `queued ${i}` });
    const untilRefused = await busy.turn();
    const refused = untilRefused.at(-1);
    expect(refused).toMatchObject({ type: 'error', status: 429, error: { code: 'too_many_waiting' } });
    const refusedLine = await nextLine('a message past the queue bound');
    expect(refusedLine).toMatchObject({ method: 'WS', status: 429, error: refused.error.message });
    expect(refused.headers?.['x-request-id']).toBe(refusedLine.requestId);
    busy.ws.terminate();
    await held.abandoned();
    // The turn in flight, cut off by the client, is logged as such.
    expect(await nextLine('a turn the client closed its socket on')).toMatchObject({ method: 'WS', status: 200, aborted: true });
  });

  it('logs a message that breaks the WebSocket protocol, which closes the socket (1009 far over the limit, 1007 for text that is not UTF-8)', async () => {
    const tooBig = await socket();
    tooBig.send(JSON.stringify({ type: 'response.create', model: SKU, input: 'x'.repeat(LIMIT + 1024 * 1024) }));
    expect(await tooBig.closed()).toBe(1009);
    expect(await nextLine('a frame far over the limit')).toMatchObject({ method: 'WS', path: '/v1/responses', status: 413, error: expect.stringContaining('server.bodyLimitBytes') });

    const badText = await socket();
    badText.ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
    expect(await badText.closed()).toBe(1007);
    expect(await nextLine('a text frame that is not UTF-8')).toMatchObject({ method: 'WS', path: '/v1/responses', status: 400, error: expect.stringContaining('UTF-8') });

    // The router serves on.
    await fakes.routeSku(router, 'openai-chat', [ANSWER]);
    const again = await socket();
    expect((await again.create({ model: SKU, input: 'hi' })).at(-1).type).toBe('response.completed');
    expect(await nextLine()).toMatchObject({ method: 'WS', status: 200 });
    expect(log).toEqual([]);
    expect(again.ws.readyState).toBe(WebSocket.OPEN);
  });
});
