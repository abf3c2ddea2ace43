/**
 * A zero-think-time upstream, run as its own process: `node fake-upstream.js`.
 *
 *   POST /v1/chat/completions   OpenAI Chat Completions (JSON, or a 20-chunk SSE stream)
 *   POST /v1/messages           Anthropic Messages (JSON, or a 20-delta SSE stream)
 *   POST /v1/responses          OpenAI Responses (JSON, or a stream of 20 output_text deltas)
 *   POST /slow/v1/...           the same endpoints, streaming one chunk every 100 ms (30 chunks)
 *   POST /big/v1/chat/completions      a 50 MiB streamed answer (4 KiB of text per chunk), as fast as it is read
 *   POST /bigevent/v1/chat/completions a stream with one 16 MiB event (a line just under the router's cap)
 *   GET  /_stats                {"slow_active", "slow_peak"}; `?reset` zeroes the peak
 *
 * Replies are precomputed bytes; a request is streamed when its body holds `"stream":true`.
 * Prints `READY <port>` once listening.
 */
import http, { type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bigAnswerStream, bigEventStream, buildReplies, type Replies, type StreamReply } from './upstream-replies.js';

const SLOW_TICK_MS = 100;
const STREAM_MARK = Buffer.from('"stream":true');

const replies: Record<string, Replies> = {
  '/v1/chat/completions': buildReplies('openai-chat'),
  '/v1/messages': buildReplies('anthropic'),
  '/v1/responses': buildReplies('openai-responses'),
};
const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };

/** Big answers for the memory test, built on first use (they cost the other measurements nothing). */
const bigReplies = new Map<string, StreamReply>();
const BIG: Record<string, () => StreamReply> = { '/big/v1/chat/completions': bigAnswerStream, '/bigevent/v1/chat/completions': bigEventStream };
const big = (url: string): StreamReply | undefined => {
  const build = BIG[url];
  if (!build) return undefined;
  let reply = bigReplies.get(url);
  if (!reply) bigReplies.set(url, (reply = build()));
  return reply;
};

let slowActive = 0;
let slowPeak = 0;

const server = http.createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => respond(req.method ?? 'GET', req.url ?? '/', chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), res));
});
server.keepAliveTimeout = 65_000;
server.headersTimeout = 70_000;

function respond(method: string, url: string, body: Buffer, res: ServerResponse): void {
  if (method === 'GET' && url.startsWith('/_stats')) return sendStats(url, res);
  const bigReply = method === 'POST' ? big(url) : undefined;
  if (bigReply) return void streamBig(bigReply, res);
  const slow = url.startsWith('/slow/');
  const reply = replies[slow ? url.slice('/slow'.length) : url];
  if (method !== 'POST' || !reply) {
    res.writeHead(404, JSON_HEADERS);
    res.end('{"error":{"type":"not_found_error","message":"Not Found"}}');
    return;
  }
  if (!body.includes(STREAM_MARK)) {
    res.writeHead(200, { ...JSON_HEADERS, 'content-length': reply.json.length });
    res.end(reply.json);
    return;
  }
  res.writeHead(200, SSE_HEADERS);
  if (slow) return streamSlowly(reply.slow, res);
  // After writeHead the body goes out chunked; end() sends headers, body and terminator in one write.
  res.end(reply.stream);
}

function streamSlowly(reply: StreamReply, res: ServerResponse): void {
  slowActive++;
  slowPeak = Math.max(slowPeak, slowActive);
  res.write(reply.head);
  let next = 0;
  const timer = setInterval(() => {
    if (res.destroyed) return finish();
    res.write(reply.pieces[next++]!);
    if (next === reply.pieces.length) {
      res.end(reply.tail);
      finish();
    }
  }, SLOW_TICK_MS);
  let done = false;
  function finish() {
    if (done) return;
    done = true;
    clearInterval(timer);
    slowActive--;
  }
  res.on('close', finish);
}

/** Writes the whole stream as fast as the reader takes it: a write waits for 'drain' when the socket is full. */
async function streamBig(reply: StreamReply, res: ServerResponse): Promise<void> {
  res.writeHead(200, SSE_HEADERS);
  res.on('error', () => {});
  for (const piece of [reply.head, ...reply.pieces]) {
    if (res.destroyed) return;
    if (!res.write(piece)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  }
  res.end(reply.tail);
}

function sendStats(url: string, res: ServerResponse): void {
  const body = JSON.stringify({ slow_active: slowActive, slow_peak: slowPeak });
  if (url.includes('reset')) slowPeak = slowActive;
  res.writeHead(200, JSON_HEADERS);
  res.end(body);
}

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
