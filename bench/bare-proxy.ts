/**
 * The floor: the least a Node proxy can do. Forwards each request's bytes to the upstream through
 * an undici Pool and the response's bytes back, untouched, with no parsing (undici's `stream` API
 * writes the upstream body straight into the client's response).
 *
 * Run as its own process: `node bare-proxy.js <upstream origin>`; prints `READY <port>`.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

const upstream = process.argv[2];
if (!upstream) throw new Error('usage: bare-proxy <upstream origin>');

// As many keep-alive connections as the router's own upstream agent allows.
const pool = new Pool(upstream, { connections: 256, keepAliveTimeout: 30_000 });

const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-connection', 'host'];

function forwardable(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const copy = { ...headers } as Record<string, string | string[]>;
  for (const name of HOP_BY_HOP) delete copy[name];
  return copy;
}

const server = http.createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  // Request bodies are small: collecting them first is cheaper than undici's streamed-body path.
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    pool
      .stream({ method: req.method as 'POST', path: req.url ?? '/', headers: forwardable(req.headers), body }, ({ statusCode, headers }) => {
        res.writeHead(statusCode, forwardable(headers as IncomingHttpHeaders));
        return res;
      })
      .catch(() => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
  });
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
