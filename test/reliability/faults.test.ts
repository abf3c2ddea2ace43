import { createHook } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackendTimeouts } from '../../src/config/settings.js';
import { MAX_RETRY_WAIT_MS } from '../../src/handlers/call-chain.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import {
  addRoutes,
  bodyFor,
  callFormat,
  chatCompletionBody,
  CLIENT_FORMATS,
  closedPortUrl,
  closingFrames,
  expectErrorReply,
  expectMidStreamError,
  expectSuccess,
  HEALTHY_SKU,
  openingFrames,
  brokenFrame,
  startEventStream,
  textFrame,
  startFaultUpstream,
  UPSTREAM_KINDS,
  type ClientFormatName,
  type ErrorKindName,
  type FaultUpstream,
  type Served,
  type UpstreamKind,
  type UpstreamCall,
} from './support.js';

/** What the client must see: a JSON error of this status and kind, a stream that fails after it started, or a success. */
type Outcome =
  | { status: number; kind: ErrorKindName; code?: string; retryAfter?: string; message?: RegExp }
  | { midStream: true; message?: RegExp }
  | { success: true };

interface Fault {
  name: string;
  /** How the upstream misbehaves; `kind` is the backend type it is configured as. */
  handle?: (call: UpstreamCall, kind: UpstreamKind) => void | Promise<void>;
  /** Point the backend at a port where nothing listens instead. */
  refused?: true;
  timeouts?: BackendTimeouts;
  nonStream: Outcome;
  stream: Outcome;
  /** Upstream requests one client request must cause (no hidden retries, and the documented one). */
  upstreamRequests?: number;
  /** The answer must come back faster than this (the router did not wait for what it should not). */
  withinMs?: number;
}

const sendRaw = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
};

const rateLimited = (res: ServerResponse, retryAfter: string): void =>
  sendRaw(res, 429, JSON.stringify({ error: { message: 'Rate limit reached; slow down.', type: 'requests', code: 'rate_limit_exceeded' } }), { 'retry-after': retryAfter });

/**
 * Writes `head`, then `size` bytes of filler (no line end), then `tail`, honouring backpressure and
 * stopping quietly if the router hangs up first (which it should, once past its limit).
 */
async function writeHuge(res: ServerResponse, head: string, size: number, tail: string): Promise<void> {
  const slab = Buffer.alloc(1024 * 1024, 'a');
  if (!res.write(head)) await drained(res);
  for (let written = 0; written < size && !res.destroyed; written += slab.length) {
    if (!res.write(slab)) await drained(res);
  }
  if (!res.destroyed) res.end(tail);
}

const drained = (res: ServerResponse): Promise<void> =>
  new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });

/** A well-formed answer in the openai-chat wire format, streamed when the request asked for it. */
function answerOk({ res, body }: UpstreamCall): void {
  if (body?.stream) {
    startEventStream(res);
    res.end(openingFrames('openai-chat', 'Recovered') + closingFrames('openai-chat'));
  } else {
    sendRaw(res, 200, JSON.stringify(chatCompletionBody('Recovered')));
  }
}

/** Writes the opening frames of a stream, then calls `then` once they reached the socket. */
function openThen(call: UpstreamCall, kind: UpstreamKind, then: (res: ServerResponse) => void): void {
  startEventStream(call.res);
  call.res.write(openingFrames(kind), () => then(call.res));
}

const FAULTS: Fault[] = [
  {
    name: 'refuses connections',
    refused: true,
    nonStream: { status: 502, kind: 'upstream', code: 'upstream_unreachable', message: /refused the connection/ },
    stream: { status: 502, kind: 'upstream', code: 'upstream_unreachable', message: /refused the connection/ },
  },
  {
    name: 'resets the connection mid-body',
    handle: (call, kind) => openThen(call, kind, (res) => res.socket?.destroy()),
    nonStream: { status: 502, kind: 'upstream', code: 'upstream_reset', message: /closed the connection/ },
    stream: { midStream: true, message: /closed the connection/ },
    upstreamRequests: 1,
  },
  {
    name: 'stalls before sending headers',
    handle: () => undefined,
    timeouts: { firstByteMs: 300 },
    nonStream: { status: 504, kind: 'upstream', code: 'upstream_timeout', message: /did not answer in time/ },
    stream: { status: 504, kind: 'upstream', code: 'upstream_timeout', message: /did not answer in time/ },
    upstreamRequests: 1,
    withinMs: 5_000,
  },
  {
    name: 'stalls mid-stream',
    handle: (call, kind) => openThen(call, kind, () => undefined),
    timeouts: { idleMs: 300 },
    nonStream: { status: 504, kind: 'upstream', code: 'upstream_timeout', message: /stopped sending/ },
    stream: { midStream: true, message: /stopped sending/ },
    upstreamRequests: 1,
    withinMs: 5_000,
  },
  {
    name: 'answers 429 with retry-after: 0 (retried once on the same target)',
    handle: ({ res }) => rateLimited(res, '0'),
    nonStream: { status: 429, kind: 'rate_limit', code: 'upstream_rate_limited', retryAfter: '0' },
    stream: { status: 429, kind: 'rate_limit', code: 'upstream_rate_limited', retryAfter: '0' },
    upstreamRequests: 2,
  },
  {
    name: 'answers 429 with retry-after: 0, then succeeds on the retry',
    handle: (call) => (call.index === 0 ? rateLimited(call.res, '0') : answerOk(call)),
    nonStream: { success: true },
    stream: { success: true },
    upstreamRequests: 2,
  },
  {
    name: 'answers 429 with retry-after: 60 (not waited for)',
    handle: ({ res }) => rateLimited(res, '60'),
    nonStream: { status: 429, kind: 'rate_limit', code: 'upstream_rate_limited', retryAfter: '60' },
    stream: { status: 429, kind: 'rate_limit', code: 'upstream_rate_limited', retryAfter: '60' },
    upstreamRequests: 1,
    withinMs: MAX_RETRY_WAIT_MS,
  },
  {
    name: 'answers 500',
    handle: ({ res }) => sendRaw(res, 500, JSON.stringify({ error: { message: 'The server had an error.' } })),
    nonStream: { status: 502, kind: 'upstream', code: 'upstream_error', message: /HTTP 500/ },
    stream: { status: 502, kind: 'upstream', code: 'upstream_error', message: /HTTP 500/ },
    upstreamRequests: 1,
  },
  {
    name: 'answers 503',
    handle: ({ res }) => sendRaw(res, 503, JSON.stringify({ error: { message: 'Engine overloaded.' } })),
    nonStream: { status: 503, kind: 'overloaded', code: 'upstream_overloaded', message: /overloaded/ },
    stream: { status: 503, kind: 'overloaded', code: 'upstream_overloaded', message: /overloaded/ },
    upstreamRequests: 1,
  },
  {
    name: 'answers 200 with malformed JSON',
    handle: ({ res }) => sendRaw(res, 200, '{not json'),
    nonStream: { status: 502, kind: 'upstream', message: /not valid JSON/ },
    stream: { status: 502, kind: 'upstream', message: /ended the stream/ },
    upstreamRequests: 1,
  },
  {
    name: 'sends broken SSE (invalid JSON in a data line)',
    handle: (call, kind) => openThen(call, kind, (res) => res.end('data: {"broken": \n\n')),
    nonStream: { status: 502, kind: 'upstream', message: /not valid JSON/ },
    stream: { midStream: true, message: /not valid JSON/ },
    upstreamRequests: 1,
  },
  {
    name: 'sends a frame that is not valid JSON (a stray comma, braces intact), then more',
    handle: (call, kind) => openThen(call, kind, (res) => res.end(brokenFrame(kind, 'not JSON').frame + textFrame(kind, ' after') + closingFrames(kind))),
    nonStream: { status: 502, kind: 'upstream', message: /not valid JSON/ },
    stream: { midStream: true, message: /not valid JSON/ },
    upstreamRequests: 1,
  },
  {
    name: 'sends valid JSON that is not an event of its format, then more',
    handle: (call, kind) => openThen(call, kind, (res) => res.end(brokenFrame(kind, 'not an event').frame + textFrame(kind, ' after') + closingFrames(kind))),
    nonStream: { status: 502, kind: 'upstream', message: /not valid JSON/ },
    stream: { midStream: true, message: /not a JSON object|type is missing/ },
    upstreamRequests: 1,
  },
  {
    name: 'ends an SSE stream without its terminal event',
    handle: (call, kind) => openThen(call, kind, (res) => res.end()),
    nonStream: { status: 502, kind: 'upstream', message: /not valid JSON/ },
    stream: { midStream: true, message: /ended the stream before/ },
    upstreamRequests: 1,
  },
  {
    name: 'sends an error event mid-stream',
    handle: (call, kind) =>
      openThen(call, kind, (res) =>
        res.end(
          kind === 'anthropic'
            ? 'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"boom"}}\n\n'
            : kind === 'openai-responses'
              ? 'event: response.failed\ndata: {"type":"response.failed","response":{"id":"resp_fault","status":"failed","error":{"code":"server_error","message":"boom"}}}\n\n'
              : 'data: {"error":{"message":"boom","type":"server_error"}}\n\n',
        ),
      ),
    nonStream: { status: 502, kind: 'upstream', message: /not valid JSON/ },
    stream: { midStream: true, message: /boom/ },
    upstreamRequests: 1,
  },
  {
    name: 'answers 200 with an error body and no choices',
    handle: ({ res }) => sendRaw(res, 200, JSON.stringify({ error: { message: 'model is warming up', type: 'server_error' } })),
    nonStream: { status: 502, kind: 'upstream', message: /without a choice.*model is warming up/ },
    stream: { status: 502, kind: 'upstream', message: /ended the stream/ },
    upstreamRequests: 1,
  },
  {
    name: 'sends a body past the reply cap (65 MiB of JSON, one line)',
    handle: async ({ res }) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      await writeHuge(res, '{"choices":[{"message":{"content":"', 65 * 1024 * 1024, '"}}]}');
    },
    nonStream: { status: 502, kind: 'upstream', message: /larger than 67108864 bytes/ },
    stream: { status: 502, kind: 'upstream', message: /event line larger than 16 MiB/ },
    upstreamRequests: 1,
    withinMs: 5_000,
  },
  {
    name: 'sends a 17 MiB event line mid-stream',
    handle: (call, kind) => openThen(call, kind, (res) => void writeHuge(res, 'data: "', 17 * 1024 * 1024, '"\n\n')),
    nonStream: { status: 502, kind: 'upstream', message: /not valid JSON/ },
    stream: { midStream: true, message: /event line larger than 16 MiB/ },
    upstreamRequests: 1,
    withinMs: 5_000,
  },
];

/** The faults that happen after a stream started, also run against the other upstream kinds (Gemini's translated, the rest forwarded to their own format). */
const MID_STREAM_FAULTS = FAULTS.filter((fault) => 'midStream' in fault.stream);
const OTHER_KINDS = UPSTREAM_KINDS.filter((kind) => kind !== 'openai-chat');

/** Handle kinds counted before and after: listening servers and open sockets. */
const before = new Map<string, number>();
const WATCHED = ['TCPSocketWrap', 'TCPServerWrap', 'PipeWrap'];

function resourceCounts(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const name of process.getActiveResourcesInfo()) counts.set(name, (counts.get(name) ?? 0) + 1);
  return counts;
}

/**
 * Timers are tracked one by one rather than counted, since the test runner keeps timers of its own:
 * every timer created while the suite runs is noted, and forgotten when it fires or is cleared.
 */
const timers = new Map<number, NodeJS.Timeout>();
let recordingTimers = false;
const timerHook = createHook({
  init(id, type, _trigger, resource) {
    if (recordingTimers && type === 'Timeout') timers.set(id, resource as NodeJS.Timeout);
  },
  destroy(id) {
    timers.delete(id);
  },
});

// Taken inside a test, like the check at the end, so the runner's own per-test handles match.
it('notes the handles in use before the suite', () => {
  for (const [name, count] of resourceCounts()) before.set(name, count);
  expect(before.get('TCPServerWrap') ?? 0).toBe(0);
  timerHook.enable();
  recordingTimers = true;
});

interface Case {
  id: number;
  fault: Fault;
  kind: UpstreamKind;
  sku: string;
  served?: Served;
}

/** Every case gets its own SKU, backend and upstream model, so the cases can run concurrently. */
const cases: Case[] = [];
function caseOf(fault: Fault, kind: UpstreamKind): Case {
  const id = cases.length;
  const entry: Case = { id, fault, kind, sku: `svc.fault-${id}` };
  cases.push(entry);
  return entry;
}

describe.concurrent('fault injection', () => {
  let router: TestRouter;
  let upstream: FaultUpstream;

  beforeAll(async () => {
    router = await startRouter();
    upstream = await startFaultUpstream();
    const refusedUrl = await closedPortUrl();
    addRoutes(
      router,
      cases.map((entry) => ({
        sku: entry.sku,
        backend: `fault-${entry.id}`,
        type: entry.kind,
        baseUrl: entry.fault.refused ? refusedUrl : upstream.url,
        upstreamModel: `upstream-${entry.id}`,
        ...(entry.fault.timeouts ? { timeouts: entry.fault.timeouts } : {}),
      })),
    );
    for (const entry of cases) {
      const { fault, kind } = entry;
      if (!fault.refused) entry.served = upstream.serve(`upstream-${entry.id}`, (call) => fault.handle?.(call, kind));
    }
  });
  afterAll(async () => {
    await router?.close();
    await upstream?.close();
    recordingTimers = false;
  });

  async function run(entry: Case, format: ClientFormatName, stream: boolean): Promise<void> {
    const { fault } = entry;
    const countBefore = entry.served?.count ?? 0;
    const reply = await callFormat(router, format, bodyFor(format, entry.sku, stream));
    const outcome = stream ? fault.stream : fault.nonStream;
    if ('success' in outcome) {
      expectSuccess(format, reply, stream);
    } else if ('midStream' in outcome) {
      expectMidStreamError(format, reply, outcome.message);
    } else {
      expectErrorReply(format, reply, outcome.status, outcome.kind, outcome.code);
      if (outcome.message) expect(reply.json.error.message).toMatch(outcome.message);
      if (outcome.retryAfter !== undefined) expect(reply.headers.get('retry-after')).toBe(outcome.retryAfter);
      expect(reply.headers.get('x-request-id')).toMatch(/^req_/);
    }
    if (fault.upstreamRequests !== undefined) {
      // Requests are counted on arrival, so the count is final once the client has its answer.
      expect(entry.served!.count - countBefore).toBe(fault.upstreamRequests);
    }
    if (fault.withinMs !== undefined) expect(reply.elapsedMs).toBeLessThan(fault.withinMs);

    // The router is still up and serving.
    const probe = await callFormat(router, format, bodyFor(format, HEALTHY_SKU, stream));
    expectSuccess(format, probe, stream);
  }

  // Cases are made while the tests are collected (before beforeAll routes them), one per client
  // request, so each upstream count belongs to exactly one request.
  describe.each(FAULTS)('an openai-chat upstream that $name', (fault) => {
    for (const stream of [false, true]) {
      for (const format of CLIENT_FORMATS) {
        const entry = caseOf(fault, 'openai-chat');
        it(`${format} client, ${stream ? 'streamed' : 'not streamed'}`, () => run(entry, format, stream));
      }
    }
  });

  describe.each(OTHER_KINDS)('a %s upstream', (kind) => {
    describe.each(MID_STREAM_FAULTS)('that $name', (fault) => {
      for (const format of CLIENT_FORMATS) {
        const entry = caseOf(fault, kind);
        it(`${format} client, streamed`, () => run(entry, format, true));
      }
    });
  });

  const mixedFaults = ['resets the connection mid-body', 'stalls mid-stream', 'answers 500', 'sends broken SSE (invalid JSON in a data line)', 'ends an SSE stream without its terminal event'].map(
    (name) => FAULTS.find((fault) => fault.name === name)!,
  );
  const mixed = caseOf(
    { name: 'mixed', timeouts: { firstByteMs: 300, idleMs: 300 }, handle: (call, kind) => mixedFaults[call.index % mixedFaults.length]!.handle!(call, kind), nonStream: { success: true }, stream: { success: true } },
    'openai-chat',
  );

  it('answers many concurrent faulty requests without hanging, then still serves', async () => {
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) => {
        const format = CLIENT_FORMATS[i % 3]!;
        return callFormat(router, format, bodyFor(format, mixed.sku, i % 2 === 0));
      }),
    );
    for (const reply of replies) expect([200, 502, 504]).toContain(reply.status);
    expect(mixed.served!.count).toBe(30);
    expectSuccess('chat', await callFormat(router, 'chat', bodyFor('chat', HEALTHY_SKU, false)), false);
  });
});

it('leaves no socket, server or timer behind once the router and upstream are closed', async () => {
  const leaks = (): string[] => {
    const now = resourceCounts();
    const handles = WATCHED.filter((name) => (now.get(name) ?? 0) > (before.get(name) ?? 0)).map((name) => `${name}: ${before.get(name) ?? 0} → ${now.get(name)}`);
    // An unref'd timer (undici's clock, AbortSignal.timeout) cannot keep the process alive; a ref'd one can.
    const live = [...timers.values()].filter((timer) => timer.hasRef()).map((timer) => `Timeout of ${(timer as unknown as { _idleTimeout: number })._idleTimeout} ms`);
    return [...handles, ...live];
  };
  // Closing finishes asynchronously on the far side of each connection: let it settle (bounded),
  // polling on setImmediate so the poll itself adds no timer.
  const deadline = performance.now() + 3_000;
  while (leaks().length && performance.now() < deadline) await new Promise<void>((resolve) => setImmediate(resolve));
  timerHook.disable();
  expect(leaks()).toEqual([]);
});
