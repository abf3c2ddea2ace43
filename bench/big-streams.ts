import fs from 'node:fs';
import { request as httpRequest } from 'undici';
import { SUT_CPU, type Pinning } from './cpu-pinning.js';
import { ANTHROPIC_VERSION, type ClientFormat } from './paths.js';
import { BIG_MODELS } from './router-home.js';
import { startServer, type Server } from './processes.js';
import { BIG_ANSWER_BYTES, BIG_EVENT_BYTES } from './upstream-replies.js';

export type BigKind = 'answer' | 'event';

export interface BigStreamResult {
  /** `router chat`, `router messages`, … or `bare proxy`. */
  through: string;
  kind: BigKind;
  /** Size of the upstream's answer (50 MiB) or of its one event (16 MiB). */
  upstream_mb: number;
  /** Bytes the client received. */
  received_mb: number;
  /** The stream ended as its format ends a complete stream. */
  complete: boolean;
  /** Peak RSS during the one stream (VmHWM) minus RSS just before it, in a fresh process. */
  peak_rss_delta_mb: number;
}

export interface BigStreamsSetup {
  routerCommand: string[];
  routerEnv: NodeJS.ProcessEnv;
  bareCommand: string[];
  key: string;
  pinning: Pinning;
  clients?: ClientFormat[];
}

/**
 * The largest single event the client gets, in MB: 16 MiB for the big event; for the big answer
 * 4 KiB deltas, except that a Responses client gets the whole answer again in each done event.
 */
export function largestEventMb(result: Pick<BigStreamResult, 'through' | 'kind' | 'upstream_mb'>): number {
  return result.kind === 'event' || result.through === 'router responses' ? result.upstream_mb : 0;
}

/** Peak memory the router may add for one big stream: what the bare proxy needs, 4 × the largest event, and 32 MB. */
export function bigStreamLimitMb(result: BigStreamResult, all: BigStreamResult[]): number {
  const bare = all.find((other) => other.through === 'bare proxy' && other.kind === result.kind)?.peak_rss_delta_mb ?? 0;
  return bare + 4 * largestEventMb(result) + 32;
}

const ENDPOINT: Record<ClientFormat, string> = { chat: '/v1/chat/completions', messages: '/v1/messages', responses: '/v1/responses' };
const ENDS: Record<ClientFormat, string> = { chat: 'data: [DONE]', messages: 'event: message_stop', responses: 'event: response.completed' };
const ROUTER_READY = /listening on http:\/\/127\.0\.0\.1:(\d+)/;
const MiB = 1024 * 1024;

/**
 * Memory for big answers: one stream at a time, each through a fresh process, the peak of its RSS
 * during the stream (VmHWM after clearing it) over its RSS just before. The client reads as fast
 * as it can. Router, per client format, against the bare proxy, which holds no more than a socket's
 * worth: the router should hold a small multiple of the largest event, never the answer.
 */
export async function runBigStreams(setup: BigStreamsSetup, log: (line: string) => void = () => {}): Promise<BigStreamResult[]> {
  const results: BigStreamResult[] = [];
  for (const kind of ['answer', 'event'] as const) {
    const bare = await startServer({ name: 'bare proxy', command: [...setup.pinning.prefix(SUT_CPU), ...setup.bareCommand] });
    try {
      results.push(await measure(bare, `bare proxy`, kind, 'chat', upstreamRequest(kind)));
    } finally {
      await bare.stop();
    }
    for (const client of setup.clients ?? (['chat', 'messages', 'responses'] as const)) {
      const router = await startServer({ name: 'svc-router', command: [...setup.pinning.prefix(SUT_CPU), ...setup.routerCommand], env: setup.routerEnv, ready: ROUTER_READY });
      try {
        // One small stream first, so the peak is the big stream's and not the first request's set-up.
        await read(router.origin, routerRequest(client, BIG_MODELS.small, setup.key), client);
        results.push(await measure(router, `router ${client}`, kind, client, routerRequest(client, BIG_MODELS[kind], setup.key)));
      } finally {
        await router.stop();
      }
    }
    log(`big ${kind}: ${results.filter((r) => r.kind === kind).map((r) => `${r.through} +${r.peak_rss_delta_mb.toFixed(0)} MB`).join(' · ')}`);
  }
  return results;
}

interface Call {
  path: string;
  headers: Record<string, string>;
  body: string;
}

function upstreamRequest(kind: BigKind): Call {
  return { path: `/${kind === 'answer' ? 'big' : 'bigevent'}/v1/chat/completions`, headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'Write a lot.' }], stream: true }) };
}

function routerRequest(client: ClientFormat, model: string, key: string): Call {
  const json = { 'content-type': 'application/json' };
  const prompt = 'Write a lot.';
  switch (client) {
    case 'chat':
      return { path: ENDPOINT.chat, headers: { ...json, authorization: `Bearer ${key}` }, body: JSON.stringify({ model, messages: [{ role: 'user', content: prompt }], stream: true, stream_options: { include_usage: true } }) };
    case 'messages':
      return { path: ENDPOINT.messages, headers: { ...json, 'x-api-key': key, 'anthropic-version': ANTHROPIC_VERSION }, body: JSON.stringify({ model, max_tokens: 64, messages: [{ role: 'user', content: prompt }], stream: true }) };
    case 'responses':
      return { path: ENDPOINT.responses, headers: { ...json, authorization: `Bearer ${key}` }, body: JSON.stringify({ model, input: prompt, stream: true }) };
  }
}

async function measure(server: Server, through: string, kind: BigKind, client: ClientFormat, call: Call): Promise<BigStreamResult> {
  const before = status(server.pid).rss;
  // Writing 5 to clear_refs sets the peak (VmHWM) back to the current RSS.
  fs.writeFileSync(`/proc/${server.pid}/clear_refs`, '5');
  const { bytes, complete } = await read(server.origin, call, client);
  const peak = status(server.pid).hwm;
  return { through, kind, upstream_mb: (kind === 'answer' ? BIG_ANSWER_BYTES : BIG_EVENT_BYTES) / MiB, received_mb: bytes / MiB, complete, peak_rss_delta_mb: (peak - before) / 1024 };
}

async function read(origin: string, call: Call, client: ClientFormat): Promise<{ bytes: number; complete: boolean }> {
  const response = await httpRequest(origin + call.path, { method: 'POST', headers: call.headers, body: call.body, headersTimeout: 120_000, bodyTimeout: 120_000 });
  // The terminal event may itself be big (a Responses stream repeats the whole output in it): look for its start anywhere.
  const end = Buffer.from(ENDS[client]);
  let bytes = 0;
  let seen = false;
  let carry: Buffer = Buffer.alloc(0);
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (!seen) seen = Buffer.concat([carry, chunk.subarray(0, end.length)]).includes(end) || chunk.includes(end);
    carry = chunk.subarray(Math.max(0, chunk.length - end.length));
  }
  return { bytes, complete: response.statusCode === 200 && seen };
}

/** VmRSS and VmHWM in kB. */
function status(pid: number): { rss: number; hwm: number } {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return { rss: Number(/^VmRSS:\s+(\d+)/m.exec(text)?.[1]), hwm: Number(/^VmHWM:\s+(\d+)/m.exec(text)?.[1]) };
}
