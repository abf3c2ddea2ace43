import fs from 'node:fs';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initialise } from '../../src/cli/commands/init.js';
import { ConfigStore } from '../../src/config/store.js';
import { createApp } from '../../src/handlers/app.js';
import { createHttpServer, type ServerLimits } from '../../src/server/http-server.js';
import { tempHome } from '../helpers/router.js';
import { makeTestCa, type TestCa } from '../helpers/test-ca.js';

/**
 * The same server over TLS keeps the same promises: a connection past server.maxConnections is
 * answered 503 (inside TLS, where the client reads it) and closed; a client that never finishes
 * its headers gets its 408; a request gets its answer. Real TLS sockets, a CA made for the test.
 */
let ca: TestCa;
beforeAll(() => {
  ca = makeTestCa();
});
afterAll(() => ca.remove());

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(limits: Partial<ServerLimits>): Promise<{ port: number; key: string }> {
  const home = tempHome();
  const config = new ConfigStore(home);
  const { key } = initialise(config, { developer: 'alice', org: 'acme', tier: 'pro' });
  const app = createApp({ config });
  const server = createHttpServer(app, { limits, tls: { cert: fs.readFileSync(ca.cert), key: fs.readFileSync(ca.key) } });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await app.close();
    fs.rmSync(home, { recursive: true, force: true });
  });
  return { port: (server.address() as AddressInfo).port, key };
}

/** A TLS connection trusting only the test CA; resolves once the handshake is done. */
async function connect(port: number): Promise<tls.TLSSocket> {
  const socket = tls.connect({ host: '127.0.0.1', port, ca: fs.readFileSync(ca.caCert), servername: 'localhost' });
  await once(socket, 'secureConnect');
  cleanups.push(() => void socket.destroy());
  return socket;
}

/** Everything the server sends until it closes the connection (or `ms` pass). */
function readAll(socket: tls.TLSSocket, ms = 5_000): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    let text = '';
    const timer = setTimeout(() => resolve({ text, closed: false }), ms);
    socket.setEncoding('latin1').on('data', (chunk: string) => (text += chunk));
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
  });
}

describe('createHttpServer with tls', () => {
  it('answers a request, and refuses a connection past maxConnections with a 503 read over TLS', async () => {
    const { port, key } = await start({ maxConnections: 1 });
    const first = await connect(port);
    first.write(`GET /whoami HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${key}\r\n\r\n`);
    const [chunk] = (await once(first, 'data')) as [Buffer];
    expect(chunk.toString('latin1')).toMatch(/^HTTP\/1\.1 200 /);

    const second = await connect(port);
    const refused = await readAll(second);
    expect(refused.closed).toBe(true);
    expect(refused.text).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(refused.text).toContain('"code":"too_many_connections"');
  });

  it('cuts headers that never finish with a 408 over TLS', async () => {
    const { port } = await start({ headersTimeoutMs: 300 });
    const socket = await connect(port);
    socket.write('GET /whoami HTTP/1.1\r\nhost: local');
    const answer = await readAll(socket);
    expect(answer.closed).toBe(true);
    expect(answer.text).toMatch(/^HTTP\/1\.1 408 /);
  });
});

describe('Responses over WebSocket on the TLS server', () => {
  it('opens a wss:// socket and answers a turn (offline SKU) with its events', async () => {
    const { default: WebSocket } = await import('ws');
    const { port, key } = await start({});
    const ws = new WebSocket(`wss://localhost:${port}/v1/responses`, { headers: { authorization: `Bearer ${key}` }, ca: fs.readFileSync(ca.caCert) });
    cleanups.push(() => ws.terminate());
    await once(ws, 'open');
    const types: string[] = [];
    const done = new Promise<void>((resolve) =>
      ws.on('message', (data) => {
        const event = JSON.parse(data.toString()) as { type: string };
        types.push(event.type);
        if (event.type === 'response.completed' || event.type === 'error') resolve();
      }),
    );
    ws.send(JSON.stringify({ type: 'response.create', model: 'svc.intelligent-basic', input: 'hi' }));
    await done;
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
  });
});
