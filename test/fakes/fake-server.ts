import http, { type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

/** One request as the fake received it. `body` is parsed JSON, the raw text if it was not JSON, or undefined if empty. */
export interface RecordedRequest<Body = any> {
  method: string;
  /** The request target as sent, including any query string. */
  path: string;
  /** Node's lower-cased header map. */
  headers: IncomingHttpHeaders;
  body: Body;
  /** The body's text as it arrived, for tests of what was sent byte for byte. */
  rawBody?: string;
}

export interface FakeUpstream<Body = any> {
  url: string;
  requests: Array<RecordedRequest<Body>>;
  close(): Promise<void>;
}

export interface FakeServerOptions {
  /**
   * Writes each streamed frame in slices of this many bytes, yielding between slices, so slices
   * can end inside an SSE line or a multi-byte UTF-8 character and clients must reassemble both.
   */
  fragmentBytes?: number;
}

type Handler = (request: RecordedRequest, res: ServerResponse) => Promise<void>;

/** Thrown inside a handler when the client has gone away mid-stream; ends the handler quietly. */
class ClientGone extends Error {}

/** A real HTTP server on 127.0.0.1, port 0, that records every request before handing it on. */
export async function startFakeServer(handle: Handler): Promise<{ origin: string; requests: RecordedRequest[]; close(): Promise<void> }> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: parseBody(raw), rawBody: raw };
      requests.push(recorded);
      await handle(recorded, res);
    } catch (error) {
      if (error instanceof ClientGone) return;
      // A broken script or fake should fail the test loudly, not hang it.
      if (!res.headersSent) sendJson(res, 500, { error: { message: `fake upstream failed: ${(error as Error).message}` } });
      else res.destroy(error as Error);
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closed: Promise<void> | undefined;
  return {
    origin,
    requests,
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

function parseBody(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

export function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sends a JSON body, or a string verbatim (for scripting non-JSON error pages). */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const contentType = typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json';
  res.writeHead(status, { 'content-type': contentType, 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

export interface EventStream {
  /** Writes one complete SSE frame (text ending in a blank line). */
  frame(text: string): Promise<void>;
  end(): void;
}

/** Starts a text/event-stream response; frames are flushed one at a time, yielding in between. */
export function openEventStream(res: ServerResponse, headers: Record<string, string>, options: FakeServerOptions): EventStream {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', ...headers });
  res.flushHeaders();
  const slice = options.fragmentBytes && options.fragmentBytes > 0 ? Math.floor(options.fragmentBytes) : Infinity;
  return {
    async frame(text) {
      const bytes = Buffer.from(text, 'utf8');
      for (let start = 0; start < bytes.length; start += slice) {
        if (res.destroyed || res.writableEnded) throw new ClientGone();
        res.write(bytes.subarray(start, start + slice));
        // Let the socket flush so the client sees separate reads rather than one coalesced body.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    },
    end() {
      if (!res.destroyed) res.end();
    },
  };
}
