import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import type { ApiRequest, ApiResponse } from '../../src/handlers/api.js';
import { SocketSession } from '../../src/server/responses-socket/socket-session.js';
import { openResponsesSocket } from '../helpers/responses-socket.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { addBackend, Fakes, setRoute } from '../integration/support.js';

/**
 * What one Responses socket keeps between turns: the bound docs/http-api.md states for an idle
 * socket with 8 streams of 20 turns each, and the two settings that bound it
 * (server.socketTurnsPerStream, server.socketKeptBytes), each forgetting the oldest response.
 */

const STREAMS = 8;
const TURNS = 20;
/** Each turn's user text and answer, about what a coding agent's short turn carries. */
const QUESTION = 'q'.repeat(400);
const ANSWER = 'a'.repeat(1200);
/** The bound docs/http-api.md states for that socket (kept conversation as the socket counts it). */
const BOUND_CHARS = 4 * 1024 * 1024;

describe('what an idle socket keeps', () => {
  let server: WebSocketServer;
  let session: SocketSession | undefined;
  let responses = 0;

  beforeAll(async () => {
    server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await once(server, 'listening');
    server.on('connection', (ws) => {
      session = new SocketSession(ws, {
        headers: {},
        messageLimitBytes: 8 << 20,
        authenticate: () => undefined,
        // A stand-in upstream answering every turn with the same Responses events the router streams.
        async serveTurn(request: ApiRequest, deliver: (response: ApiResponse) => Promise<void>) {
          await request.readBody(8 << 20);
          const id = `resp_${++responses}`;
          const frame = (event: object) => `data: ${JSON.stringify(event)}\n\n`;
          const output = [{ type: 'message', id: `msg_${responses}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: ANSWER, annotations: [] }] }];
          await deliver({
            status: 200,
            sse: (async function* () {
              yield frame({ type: 'response.created', sequence_number: 0, response: { id, object: 'response', status: 'in_progress', output: [] } });
              yield frame({ type: 'response.output_text.delta', sequence_number: 1, delta: ANSWER });
              yield frame({ type: 'response.completed', sequence_number: 2, response: { id, object: 'response', status: 'completed', output } });
            })(),
          });
        },
      });
    });
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it(`stays under ${BOUND_CHARS / 1024 / 1024} MiB with ${STREAMS} streams of ${TURNS} turns each, and holds nothing once closed`, async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
    await once(ws, 'open');
    const last = new Map<string, string>();
    const completed = (streamId: string) =>
      new Promise<string>((resolve) => {
        const on = (data: WebSocket.RawData) => {
          const event = JSON.parse(data.toString());
          if (event.stream_id !== streamId || event.type !== 'response.completed') return;
          ws.off('message', on);
          resolve(event.response.id);
        };
        ws.on('message', on);
      });
    for (let turn = 0; turn < TURNS; turn++) {
      // Every stream takes its turn at once, as a multi-agent client's lanes do.
      const done = Array.from({ length: STREAMS }, (_, stream) => {
        const streamId = `agent-${stream}`;
        const ended = completed(streamId);
        const previous = last.get(streamId);
        ws.send(JSON.stringify({ type: 'response.create', stream_id: streamId, model: 'm', input: QUESTION, ...(previous ? { previous_response_id: previous } : {}) }));
        return ended.then((id) => last.set(streamId, id));
      });
      await Promise.all(done);
    }
    const held = session!.heldChars;
    // The last turn of each stream holds its whole conversation; the count is per kept response, so shared items count again.
    const conversation = TURNS * (QUESTION.length + ANSWER.length);
    expect(held).toBeGreaterThan(STREAMS * conversation);
    expect(held).toBeLessThan(BOUND_CHARS);
    console.log(`held by an idle socket, ${STREAMS} streams x ${TURNS} turns: ${held} chars (bound ${BOUND_CHARS})`);
    ws.close();
    await once(ws, 'close');
    while (session!.heldChars !== 0) await new Promise((resolve) => setImmediate(resolve));
    expect(session!.heldChars).toBe(0);
  });
});

describe('server.socketTurnsPerStream and server.socketKeptBytes over a real router', () => {
  let router: TestRouter;
  const fakes = new Fakes();
  beforeAll(async () => {
    router = await startRouter();
    const chat = await fakes.start('openai-chat', [{ text: 'An answer of some length.' }]);
    setRoute(router, 'model-a', [`${addBackend(router, 'up-chat', 'openai-chat', chat.url)}:up-a`]);
  });
  afterEach(() => router.config.update((settings) => void Object.assign(settings.server, { socketTurnsPerStream: 32, socketKeptBytes: 64 * 1024 * 1024 })));
  afterAll(async () => {
    await fakes.closeAll();
    await router.close();
  });

  /** Three turns on stream `s`, each continuing the last; the ids of their responses. */
  async function threeTurns(socket: Awaited<ReturnType<typeof openResponsesSocket>>): Promise<string[]> {
    const ids: string[] = [];
    for (let turn = 0; turn < 3; turn++) {
      const events = await socket.create({ model: 'model-a', stream_id: 's', input: `Turn ${turn}`, ...(ids.length ? { previous_response_id: ids.at(-1) } : {}) });
      expect(events.at(-1)).toMatchObject({ type: 'response.completed', stream_id: 's' });
      ids.push(events.at(-1).response.id);
    }
    return ids;
  }

  it('forgets the oldest turn of a stream past server.socketTurnsPerStream', async () => {
    router.config.update((settings) => void (settings.server.socketTurnsPerStream = 2));
    const socket = await openResponsesSocket(router);
    const [first, second] = await threeTurns(socket);
    expect(await socket.create({ model: 'model-a', stream_id: 's', previous_response_id: first, input: 'Back to the start' })).toMatchObject([
      { type: 'error', stream_id: 's', status: 400, error: { code: 'previous_response_not_found', param: 'previous_response_id' } },
    ]);
    // The newer two are still held: a fork from the second on another stream goes through.
    expect((await socket.create({ model: 'model-a', stream_id: 'fork', previous_response_id: second, input: 'Fork' })).at(-1)).toMatchObject({ type: 'response.completed', stream_id: 'fork' });
    socket.ws.close();
  });

  it('forgets the oldest response of the socket past server.socketKeptBytes', async () => {
    // Room for about one response (each holds the conversation so far): the socket keeps only its newest.
    router.config.update((settings) => void (settings.server.socketKeptBytes = 600));
    const small = await openResponsesSocket(router);
    const ids = await threeTurns(small);
    expect(await small.create({ model: 'model-a', stream_id: 's', previous_response_id: ids[0], input: 'Back to the start' })).toMatchObject([
      { type: 'error', stream_id: 's', error: { code: 'previous_response_not_found' } },
    ]);
    expect((await small.create({ model: 'model-a', stream_id: 's', previous_response_id: ids[2], input: 'Go on' })).at(-1)).toMatchObject({ type: 'response.completed', stream_id: 's' });
    small.ws.close();
  });
});
