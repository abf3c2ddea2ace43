import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import type { ApiRequest, ApiResponse } from '../../src/handlers/api.js';
import { SocketSession } from '../../src/server/responses-socket/socket-session.js';

/**
 * A socket session over a real WebSocket, with the turn served by a stand-in for the server's
 * pipeline: what the session does when that stream misbehaves, which the real pipeline never lets
 * happen, so the socket's own promise (every turn ends) does not rest on it.
 */

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function sessionServing(stream: () => AsyncIterable<string>): Promise<WebSocket> {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await once(server, 'listening');
  server.on('connection', (ws) => {
    new SocketSession(ws, {
      headers: {},
      messageLimitBytes: 1024,
      authenticate: () => undefined,
      async serveTurn(_request: ApiRequest, deliver: (response: ApiResponse) => Promise<void>) {
        await deliver({ status: 200, sse: stream() });
      },
    });
  });
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
  closers.push(() => client.terminate());
  await once(client, 'open');
  return client;
}

const frame = (payload: object) => `event: x\ndata: ${JSON.stringify(payload)}\n\n`;

describe('SocketSession', () => {
  it('closes the socket (1011) when a stream breaks off after its first event, so the client never waits on a turn that cannot end', async () => {
    const client = await sessionServing(async function* () {
      yield frame({ type: 'response.created' });
      throw new Error('broke off');
    });
    const received: string[] = [];
    client.on('message', (data) => received.push(JSON.parse(data.toString()).type));
    client.send(JSON.stringify({ type: 'response.create', model: 'm', input: 'hi' }));
    const [code] = (await once(client, 'close')) as [number];
    expect(code).toBe(1011);
    expect(received).toEqual(['response.created']);
  });

  it('answers with an error event when a stream fails before its first event, and takes the next turn', async () => {
    let calls = 0;
    const client = await sessionServing(async function* () {
      calls++;
      if (calls === 1) throw new Error('failed at once');
      yield frame({ type: 'response.completed', response: { id: 'resp_1', output: [] } });
    });
    const received: any[] = [];
    client.on('message', (data) => received.push(JSON.parse(data.toString())));
    client.send(JSON.stringify({ type: 'response.create', model: 'm', input: 'hi' }));
    client.send(JSON.stringify({ type: 'response.create', model: 'm', input: 'again' }));
    while (received.length < 2) await once(client, 'message');
    expect(received[0]).toMatchObject({ type: 'error', status: 500, error: { type: 'server_error' } });
    expect(JSON.stringify(received[0])).not.toContain('failed at once');
    expect(received[1]).toMatchObject({ type: 'response.completed' });
  });
});
