import fs from 'node:fs';
import { once } from 'node:events';
import type http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { initialise } from '../../src/cli/commands/init.js';
import { ConfigStore } from '../../src/config/store.js';
import { createApp } from '../../src/handlers/app.js';
import { createHttpServer, type ServerLimits } from '../../src/server/http-server.js';
import { tempHome } from '../helpers/router.js';

/**
 * Clients that hold sockets: a body trickled after full headers is cut at server.bodyTimeoutMs
 * with a 408 in the endpoint's format and the socket closed; headers trickled past
 * server.headersTimeoutMs get Node's 408; connections past server.maxConnections get a 503 and
 * are closed, and a slot frees up when a socket closes. All with real sockets and small limits.
 */

interface Live {
  port: number;
  key: string;
  server: http.Server;
  /** The server's side of every connection, in the order they arrived, and when it closed. */
  accepted: Array<{ socket: net.Socket; closed: Promise<unknown> }>;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(limits: Partial<ServerLimits> = {}, server: Partial<ServerLimits> = {}): Promise<Live> {
  const home = tempHome();
  const config = new ConfigStore(home);
  const { key } = initialise(config, { developer: 'alice', org: 'acme', tier: 'pro' });
  if (Object.keys(server).length > 0) config.update((settings) => Object.assign(settings.server, server));
  const app = createApp({ config });
  const httpServer = createHttpServer(app, { limits });
  const accepted: Live['accepted'] = [];
  httpServer.on('connection', (socket: net.Socket) => accepted.push({ socket, closed: new Promise((resolve) => socket.once('close', resolve)) }));
  httpServer.listen(0, '127.0.0.1');
  await once(httpServer, 'listening');
  cleanups.push(async () => {
    httpServer.closeAllConnections();
    for (const { socket } of accepted) socket.destroy();
    await new Promise((resolve) => httpServer.close(resolve));
    await app.close();
    fs.rmSync(home, { recursive: true, force: true });
  });
  return { port: (httpServer.address() as AddressInfo).port, key, server: httpServer, accepted };
}

interface Outcome {
  /** Everything the server sent, as Latin-1 text. */
  text: string;
  status: number;
  headers: string;
  body: string;
  /** Whether the server closed the connection before `giveUpMs`. */
  closed: boolean;
  elapsedMs: number;
}

/**
 * Opens a socket, sends `head` at once, then `trickle` one byte every `everyMs` until the server
 * closes the connection (or `giveUpMs` passes: then `closed` is false).
 */
async function slowClient(port: number, head: string, trickle: string, options: { everyMs?: number; giveUpMs?: number } = {}): Promise<Outcome> {
  const { everyMs = 20, giveUpMs = 4_000 } = options;
  const socket = net.connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const started = performance.now();
  const chunks: Buffer[] = [];
  socket.on('data', (chunk) => chunks.push(chunk));
  socket.on('error', () => {});
  socket.write(head);
  let sent = 0;
  const drip = setInterval(() => {
    if (sent < trickle.length && socket.writable) socket.write(trickle[sent++]!);
  }, everyMs);
  const giveUp = new Promise<false>((resolve) => setTimeout(() => resolve(false), giveUpMs).unref());
  // Not events.once: it rejects at an 'error' (a reset while the client still writes), and the close follows that anyway.
  const closed = await Promise.race([new Promise<true>((resolve) => socket.once('close', () => resolve(true))), giveUp]);
  clearInterval(drip);
  const elapsedMs = performance.now() - started;
  socket.destroy();
  const text = Buffer.concat(chunks).toString('latin1');
  const split = text.indexOf('\r\n\r\n');
  const headers = split === -1 ? text : text.slice(0, split);
  return { text, status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1] ?? 0), headers, body: split === -1 ? '' : text.slice(split + 4), closed, elapsedMs };
}

const BODY = JSON.stringify({ model: 'svc.intelligent-basic', max_tokens: 10, messages: [{ role: 'user', content: 'a body long enough to trickle for a while' }] });

const postHead = (path: string, headers: Record<string, string>, length = BODY.length) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;

describe('a body trickled after full headers', () => {
  const BODY_TIMEOUT_MS = 300;

  it('is cut at server.bodyTimeoutMs with a 408 in OpenAI shape on chat, and the socket closed', async () => {
    const live = await start({ bodyTimeoutMs: BODY_TIMEOUT_MS });
    const outcome = await slowClient(live.port, postHead('/v1/chat/completions', { authorization: `Bearer ${live.key}` }), BODY);
    expect(outcome.closed, outcome.text).toBe(true);
    expect(outcome.status).toBe(408);
    expect(outcome.headers.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(outcome.body)).toEqual({
      error: { message: expect.stringContaining('server.bodyTimeoutMs'), type: 'invalid_request_error', param: 'body', code: 'request_timeout' },
    });
    expect(outcome.elapsedMs).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 20);
  });

  it('is answered in Anthropic shape on messages and count_tokens', async () => {
    const live = await start({ bodyTimeoutMs: BODY_TIMEOUT_MS });
    for (const path of ['/v1/messages', '/v1/messages/count_tokens']) {
      const outcome = await slowClient(live.port, postHead(path, { 'x-api-key': live.key, 'anthropic-version': '2023-06-01' }), BODY);
      expect(outcome.closed, outcome.text).toBe(true);
      expect(outcome.status).toBe(408);
      const body = JSON.parse(outcome.body);
      expect(body.type).toBe('error');
      expect(body.error).toEqual({ type: 'invalid_request_error', message: expect.stringContaining('did not arrive within 300 ms') });
    }
  });

  it('cuts twenty slow sockets at once, each with its 408', async () => {
    const live = await start({ bodyTimeoutMs: BODY_TIMEOUT_MS });
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () => slowClient(live.port, postHead('/v1/responses', { authorization: `Bearer ${live.key}` }), BODY, { everyMs: 100 })),
    );
    for (const outcome of outcomes) {
      expect(outcome.closed).toBe(true);
      expect(outcome.status).toBe(408);
    }
  });

  it('closes the socket at the deadline when the answer came first and nobody reads the body', async () => {
    const live = await start({ bodyTimeoutMs: BODY_TIMEOUT_MS });
    for (const head of [
      postHead('/v1/chat/completions', { authorization: 'Bearer svc_alice_wrongwrongwrongwrongwrongwrongwrong' }),
      postHead('/no/such/path', {}),
      postHead('/v1/models', { authorization: `Bearer ${live.key}` }),
    ]) {
      const outcome = await slowClient(live.port, head, BODY);
      expect(outcome.closed, head).toBe(true);
      expect([401, 404, 405]).toContain(outcome.status);
    }
  });

  it('leaves a body that arrives in time alone, however it is split', async () => {
    const live = await start({ bodyTimeoutMs: 2_000 });
    const outcome = await slowClient(live.port, postHead('/v1/messages/count_tokens', { 'x-api-key': live.key, 'anthropic-version': '2023-06-01', connection: 'close' }), BODY, {
      everyMs: 1,
    });
    expect(outcome.closed).toBe(true);
    expect(outcome.status, outcome.text).toBe(200);
    expect(JSON.parse(outcome.body).input_tokens).toBeGreaterThan(0);
  });
});

describe('headers trickled in', () => {
  it('are cut at server.headersTimeoutMs with a 408 and the socket closed', async () => {
    const live = await start({ headersTimeoutMs: 300 });
    const outcome = await slowClient(live.port, 'GET /whoami HTTP/1.1\r\n', `Host: 127.0.0.1\r\nx-padding: ${'a'.repeat(400)}\r\n\r\n`, { everyMs: 20 });
    expect(outcome.closed).toBe(true);
    expect(outcome.status).toBe(408);
  });
});

/** A connection that the server has accepted and answered once, kept alive. */
async function keptAlive(live: Live): Promise<{ client: net.Socket; server: Live['accepted'][number] }> {
  const client = net.connect(live.port, '127.0.0.1');
  client.on('error', () => {});
  await once(client, 'connect');
  client.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await once(client, 'data');
  return { client, server: live.accepted.at(-1)! };
}

describe('connections past server.maxConnections', () => {
  it('get a 503 with a short body and connection: close, not a silent drop, and a slot frees when a socket closes', async () => {
    const live = await start({}, { maxConnections: 3 });
    const held = [await keptAlive(live), await keptAlive(live), await keptAlive(live)];

    const refused = await slowClient(live.port, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', '');
    expect(refused.closed).toBe(true);
    expect(refused.status).toBe(503);
    expect(refused.headers.toLowerCase()).toContain('connection: close');
    expect(refused.headers.toLowerCase()).toContain('retry-after: 1');
    expect(refused.headers.toLowerCase()).toContain('x-should-retry: true');
    expect(refused.body.length).toBeLessThan(300);
    expect(JSON.parse(refused.body).error).toMatchObject({ type: 'server_error', code: 'too_many_connections', message: expect.stringContaining('server.maxConnections') });

    // One kept-alive client leaves: once the server has seen its socket close, the next one is served.
    const leaving = held.pop()!;
    leaving.client.destroy();
    await leaving.server.closed;
    const served = await slowClient(live.port, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', '');
    expect(served.status, served.text).toBe(200);
    expect(JSON.parse(served.body)).toEqual({ status: 'ok' });
    for (const { client } of held) client.destroy();
  });

  it('refuses while a slow client holds the last slot, and serves again after its body deadline', async () => {
    const live = await start({ bodyTimeoutMs: 300, maxConnections: 1 });
    const slow = slowClient(live.port, postHead('/v1/chat/completions', { authorization: `Bearer ${live.key}` }), BODY, { everyMs: 50 });
    await new Promise((resolve) => live.server.once('request', resolve));
    const refused = await slowClient(live.port, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', '');
    expect(refused.status).toBe(503);
    expect((await slow).status).toBe(408);
    await live.accepted[0]!.closed;
    const served = await slowClient(live.port, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', '');
    expect(served.status).toBe(200);
  });

  it('keeps the defaults when a hand-edited config holds values that are not positive whole numbers', async () => {
    const live = await start({}, { bodyTimeoutMs: 'soon' as unknown as number, headersTimeoutMs: -1, maxConnections: 0 });
    const served = await slowClient(
      live.port,
      postHead('/v1/messages/count_tokens', { 'x-api-key': live.key, 'anthropic-version': '2023-06-01', connection: 'close' }),
      BODY,
      { everyMs: 1 },
    );
    expect(served.status, served.text).toBe(200);
  });
});
