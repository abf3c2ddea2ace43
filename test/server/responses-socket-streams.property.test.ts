import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import type { ApiRequest, ApiResponse } from '../../src/handlers/api.js';
import { SocketSession } from '../../src/server/responses-socket/socket-session.js';

/**
 * Random interleavings of create, steer and cancel on several streams of one socket, against a
 * stand-in pipeline whose every event names the stream its request came from: no event of one
 * stream ever reaches another, and each stream's events are whole turns in order.
 */

let server: WebSocketServer;
let url: string;
let responses = 0;

/** A fake upstream turn: created, a few deltas (yielding between them, so streams interleave), completed; it stops when the turn's signal aborts. */
function turnOf(request: ApiRequest, body: { input: Array<{ content: string }> }): AsyncIterable<string> {
  const marker = /stream:([A-Za-z0-9]+)/.exec(JSON.stringify(body.input))?.[1] ?? 'none';
  const id = `resp_${++responses}`;
  const frame = (event: object) => `data: ${JSON.stringify(event)}\n\n`;
  return (async function* () {
    let sequence = 0;
    yield frame({ type: 'response.created', sequence_number: sequence++, response: { id, object: 'response', status: 'in_progress', output: [], marker } });
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      if (request.signal.aborted) return;
      yield frame({ type: 'response.output_text.delta', sequence_number: sequence++, delta: marker, marker });
    }
    const output = [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: marker }] }];
    yield frame({ type: 'response.completed', sequence_number: sequence++, response: { id, object: 'response', status: 'completed', output, marker } });
  })();
}

beforeAll(async () => {
  server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await once(server, 'listening');
  server.on('connection', (ws) => {
    new SocketSession(ws, {
      headers: {},
      messageLimitBytes: 1 << 20,
      authenticate: () => undefined,
      async serveTurn(request: ApiRequest, deliver: (response: ApiResponse) => Promise<void>) {
        let body: any;
        try {
          body = await request.readBody(1 << 20);
        } catch (error) {
          await deliver({ status: 400, json: { error: { message: (error as Error).message, type: 'invalid_request_error' } } } as ApiResponse);
          return;
        }
        await deliver({ status: 200, sse: turnOf(request, body) });
      },
    });
  });
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

type Command = { kind: 'create' | 'steer' | 'cancel'; stream: number };

const TERMINAL = new Set(['response.completed', 'response.failed', 'response.incomplete', 'error']);

describe('stream_id lanes on one socket', () => {
  it('never let an event of one stream reach another, and end every turn of every stream', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ kind: fc.constantFrom('create', 'create', 'steer', 'cancel'), stream: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 24 }), async (commands: Command[]) => {
        const ws = new WebSocket(url);
        await once(ws, 'open');
        const events: any[] = [];
        const lastId = new Map<string, string>();
        ws.on('message', (data) => {
          const event = JSON.parse(data.toString());
          events.push(event);
          if (event.type === 'response.created') lastId.set(event.stream_id, event.response.id);
        });
        const creates = new Map<string, number>();
        for (const { kind, stream } of commands) {
          const streamId = `s${stream}`;
          if (kind === 'create') {
            creates.set(streamId, (creates.get(streamId) ?? 0) + 1);
            ws.send(JSON.stringify({ type: 'response.create', stream_id: streamId, model: 'm', input: `stream:${streamId}` }));
          } else if (kind === 'steer') {
            ws.send(JSON.stringify({ type: 'response.steer', previous_response_id: lastId.get(streamId) ?? 'resp_unknown', input: `more for stream:${streamId}` }));
          } else ws.send(JSON.stringify({ type: 'response.cancel', stream_id: streamId }));
          await new Promise((resolve) => setImmediate(resolve));
        }
        // Every create ends in a terminal event on its stream (a restarted turn's successor too).
        const ended = () => [...creates].every(([streamId, count]) => endsOf(events, streamId) >= count);
        while (!ended()) await once(ws, 'message');
        // Let any successor a late steer started finish too.
        ws.send(JSON.stringify({ type: 'response.create', stream_id: 'fence', model: 'm', input: 'stream:fence' }));
        while (endsOf(events, 'fence') < 1) await once(ws, 'message');
        // A successor started by a late steer runs beside the fence: wait until no stream has a turn open.
        while ([...creates.keys()].some((streamId) => turnOpen(events, streamId))) await once(ws, 'message');
        ws.terminate();

        for (const event of events) {
          // Events the stand-in wrote carry the stream their request came from.
          if (event.marker !== undefined) expect(event.marker).toBe(event.stream_id);
          if (event.response?.marker !== undefined) expect(event.response.marker).toBe(event.stream_id);
          if (event.type.startsWith('response.steer.')) expect(event.stream_id === undefined || lastIdsOf(events, event.stream_id).includes(event.steer.previous_response_id)).toBe(true);
        }
        for (const streamId of creates.keys()) expectWholeTurns(events.filter((event) => event.stream_id === streamId && !event.type.startsWith('response.steer.')));
      }),
      { numRuns: 40 },
    );
  });
});

const endsOf = (events: any[], streamId: string): number => events.filter((event) => event.stream_id === streamId && TERMINAL.has(event.type) && event.response?.incomplete_details?.reason !== 'steered' && event.error?.code !== 'no_active_response').length;
/** Whether a stream's last response.created has not yet met its terminal event. */
function turnOpen(events: any[], streamId: string): boolean {
  let open = false;
  for (const event of events) {
    if (event.stream_id !== streamId || event.type.startsWith('response.steer.')) continue;
    if (event.type === 'response.created') open = true;
    else if (TERMINAL.has(event.type)) open = false;
  }
  return open;
}
const lastIdsOf = (events: any[], streamId: string): string[] => events.filter((event) => event.stream_id === streamId && event.type === 'response.created').map((event) => event.response.id);

/** A stream's events: turns one after another, each an error alone, or created … terminal with no other turn's events inside. */
function expectWholeTurns(events: any[]): void {
  let open: string | undefined;
  let sequence = -1;
  for (const event of events) {
    if (open === undefined) {
      if (event.type === 'error') continue;
      expect(event.type).toBe('response.created');
      open = event.response.id;
      sequence = event.sequence_number;
      continue;
    }
    if (event.type === 'error') {
      // A cancel finding nothing running is answered between turns, never inside one.
      expect(event.error?.code).not.toBe('no_active_response');
      open = undefined;
      continue;
    }
    expect(event.type).not.toBe('response.created');
    if (event.response) expect(event.response.id).toBe(open);
    expect(event.sequence_number).toBeGreaterThan(sequence);
    sequence = event.sequence_number;
    if (TERMINAL.has(event.type)) open = undefined;
  }
  expect(open).toBeUndefined();
}
