import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

/** Headers about one connection, not the message (RFC 9110, section 7.6.1): each side of the proxy has its own. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);
const endToEnd = (headers: http.IncomingHttpHeaders) => Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));

/** One request as it passed to the server and what the server answered, bytes as sent. */
export interface Exchange {
  method: string;
  path: string;
  requestBody: string;
  status: number;
  responseBody: string;
  /** The server's answer ended whole (false: cut off, by either side, or not yet over). */
  complete: boolean;
  /** Settles once the exchange is over, whole or cut off (a client may have its answer before the server has ended its response). */
  done: Promise<void>;
}

export interface RecordingProxy {
  /** http://127.0.0.1:PORT */
  origin: string;
  exchanges: Exchange[];
  close(): Promise<void>;
}

/**
 * A pass-through in front of the real server that keeps a copy of each exchange, so a test can
 * read what the server itself counted (its usage and cache figures) beside what the router told its
 * client. It streams as it receives, and a side that goes away takes the other down with it: a
 * client that hangs up ends the server's request (which frees its slot), a server that dies cuts the
 * client's response.
 */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const exchanges: Exchange[] = [];
  const upstream = new URL(target);
  // A connection per request to the server: a pooled one it closed while idle (after its 5 s) would
  // fail the next request here, and the router would be blamed for the proxy's reuse.
  const agent = new http.Agent({ keepAlive: false });
  const server = http.createServer((request, response) => {
    const requestChunks: Buffer[] = [];
    let over!: () => void;
    const done = new Promise<void>((resolve) => (over = resolve));
    const exchange: Exchange = { method: request.method ?? 'GET', path: request.url ?? '/', requestBody: '', status: 0, responseBody: '', complete: false, done };
    const responseChunks: Buffer[] = [];
    const outgoing = http.request({ agent, host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers: { ...endToEnd(request.headers), host: upstream.host } }, (answer) => {
      exchange.status = answer.statusCode ?? 0;
      response.writeHead(exchange.status, endToEnd(answer.headers));
      answer.on('data', (chunk: Buffer) => {
        responseChunks.push(chunk);
        response.write(chunk);
      });
      answer.on('end', () => {
        exchange.complete = true;
        exchange.responseBody = Buffer.concat(responseChunks).toString('utf8');
        response.end();
        over();
      });
      answer.on('aborted', () => response.destroy());
      answer.on('error', () => response.destroy());
    });
    outgoing.on('error', () => {
      exchange.responseBody = Buffer.concat(responseChunks).toString('utf8');
      response.destroy();
      over();
    });
    request.on('data', (chunk: Buffer) => {
      requestChunks.push(chunk);
      outgoing.write(chunk);
    });
    request.on('end', () => {
      exchange.requestBody = Buffer.concat(requestChunks).toString('utf8');
      exchanges.push(exchange);
      outgoing.end();
    });
    // The client went away before the answer ended: so does the request to the server.
    response.on('close', () => {
      if (!exchange.complete) {
        exchange.responseBody = Buffer.concat(responseChunks).toString('utf8');
        outgoing.destroy();
      }
      over();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exchanges,
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
