import Anthropic from '@anthropic-ai/sdk';
import fc from 'fast-check';
import { expectNoKey, upstreamTextArb } from './key-texts.js';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequestLog, type RequestLog } from '../../src/server/request-log.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import {
  addRoutes,
  asksForStream,
  bodyFor,
  callFormat,
  CLIENT_FORMATS,
  openingFrames,
  startEventStream,
  startFaultUpstream,
  UPSTREAM_KINDS,
  type ClientFormatName,
  type FaultUpstream,
  type UpstreamCall,
  type UpstreamKind,
} from './support.js';

/**
 * An upstream may quote its own key in anything it says about an error. Whatever it says, and
 * however the client asks (chat, messages or responses; streamed or not; raw HTTP or an official
 * SDK), the key must not reach the client, nor either request log (default, or with bodies).
 * Each upstream kind errs in its own shape: Gemini's is `{"error":{"code","message","status"}}`,
 * also as an event mid-stream (its stream has no terminal event of its own).
 */

const RUNS = 25;
const SKU = (kind: UpstreamKind) => `svc.redact-${kind}`;

type Path = 'status-4xx' | 'status-5xx' | 'ok-with-error' | 'mid-stream';

interface Scenario {
  path: Path;
  text: string;
  status: number;
  /** The error body is not JSON (a proxy's HTML page, a plain-text gateway error). */
  plain: boolean;
  /** For Anthropic mid-stream errors: overloaded_error takes another route through the decoder. */
  overloaded: boolean;
  /** For Responses mid-stream errors: `error` rather than `response.failed`. */
  bareError: boolean;
}

/** What the current run has the upstream say; each upstream kind is its own model. */
const scenarios = new Map<UpstreamKind, Scenario>();

function answer(kind: UpstreamKind, call: UpstreamCall): void {
  const { res } = call;
  const scenario = scenarios.get(kind)!;
  const { text } = scenario;
  const json = (status: number, payload: unknown) => {
    const raw = JSON.stringify(payload);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(raw)) });
    res.end(raw);
  };
  const errorPayload = () =>
    kind === 'anthropic'
      ? { type: 'error', error: { type: `${text.slice(0, 20)}_error`, message: text } }
      : kind === 'gemini'
        ? { error: { code: scenario.status, message: text, status: text } }
        : { error: { message: text, type: text, param: text, code: text } };
  switch (scenario.path) {
    case 'status-4xx':
    case 'status-5xx':
      if (scenario.plain) {
        res.writeHead(scenario.status, { 'content-type': 'text/plain' });
        res.end(text);
      } else json(scenario.status, errorPayload());
      return;
    case 'ok-with-error':
      if (kind === 'openai-responses') json(200, { id: 'resp_x', object: 'response', status: 'failed', output: [], error: { code: text, message: text } });
      else json(200, errorPayload());
      return;
    case 'mid-stream': {
      if (!asksForStream(call)) {
        json(500, errorPayload());
        return;
      }
      startEventStream(res);
      let frame: string;
      if (kind === 'openai-chat') frame = `data: ${JSON.stringify({ error: { message: text, type: text, code: text } })}\n\n`;
      else if (kind === 'gemini') frame = `data: ${JSON.stringify(errorPayload())}\r\n\r\n`;
      else if (kind === 'anthropic') frame = `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: scenario.overloaded ? 'overloaded_error' : 'api_error', message: text } })}\n\n`;
      else if (scenario.bareError) frame = `event: error\ndata: ${JSON.stringify({ type: 'error', code: text, message: text, param: text })}\n\n`;
      else frame = `event: response.failed\ndata: ${JSON.stringify({ type: 'response.failed', response: { id: 'resp_x', status: 'failed', error: { code: text, message: text } } })}\n\n`;
      res.end(openingFrames(kind) + frame);
      return;
    }
  }
}

const scenarioArb = (path: Path) =>
  fc.record({
    upstream: upstreamTextArb,
    status: path === 'status-4xx' ? fc.constantFrom(400, 401, 403, 404, 409, 413, 422) : fc.constantFrom(500, 502, 503, 504, 529, 429),
    plain: fc.boolean(),
    overloaded: fc.boolean(),
    bareError: fc.boolean(),
    stream: path === 'mid-stream' ? fc.constant(true) : fc.boolean(),
  });

let router: TestRouter;
let upstream: FaultUpstream;
/** Everything both request logs wrote since the last check. */
let logged = '';
let logs: { plain: RequestLog; bodies: RequestLog };

beforeAll(async () => {
  const write = (text: string) => void (logged += text);
  logs = { plain: createRequestLog({ format: 'text', write }), bodies: createRequestLog({ format: 'json', logBodies: true, write }) };
  // One server, two logs: the default one (no bodies) and one with bodies, as `--log-bodies` writes it.
  const requestLog: RequestLog = {
    logBodies: true,
    record(entry) {
      logs.plain.record({ ...entry, requestBody: undefined, responseBody: undefined });
      logs.bodies.record(entry);
    },
    flush() {
      logs.plain.flush();
      logs.bodies.flush();
    },
  };
  [router, upstream] = await Promise.all([startRouter({ http: { requestLog } }), startFaultUpstream()]);
  addRoutes(
    router,
    UPSTREAM_KINDS.map((kind) => ({ sku: SKU(kind), backend: `redact-${kind}`, type: kind, baseUrl: upstream.url, upstreamModel: `redact-${kind}` })),
  );
  for (const kind of UPSTREAM_KINDS) upstream.serve(`redact-${kind}`, (call) => answer(kind, call));
});

afterAll(async () => {
  await upstream?.close();
  await router?.close();
});

function useKey(kind: UpstreamKind, key: string): void {
  router.config.update((settings) => {
    settings.backends[`redact-${kind}`]!.apiKey = key;
  });
}

/** Every way a client may receive the answer: raw HTTP (body or stream) and the official SDK (result, events, or the error it throws). */
async function everythingTheClientSaw(format: ClientFormatName, kind: UpstreamKind, stream: boolean): Promise<string> {
  const seen: string[] = [];
  const raw = await callFormat(router, format, bodyFor(format, SKU(kind), stream, 'hi'), 10_000);
  seen.push(raw.text, JSON.stringify([...raw.headers]));
  try {
    if (format === 'messages') {
      const client = new Anthropic({ apiKey: router.key, baseURL: router.origin, maxRetries: 0 });
      const params = { model: SKU(kind), max_tokens: 64, messages: [{ role: 'user' as const, content: 'hi' }] };
      if (stream) for await (const event of await client.messages.create({ ...params, stream: true })) seen.push(JSON.stringify(event));
      else seen.push(JSON.stringify(await client.messages.create(params)));
    } else {
      const client = new OpenAI({ apiKey: router.key, baseURL: router.baseURL, maxRetries: 0 });
      if (format === 'chat') {
        const params = { model: SKU(kind), messages: [{ role: 'user' as const, content: 'hi' }] };
        if (stream) for await (const chunk of await client.chat.completions.create({ ...params, stream: true })) seen.push(JSON.stringify(chunk));
        else seen.push(JSON.stringify(await client.chat.completions.create(params)));
      } else if (stream) for await (const event of await client.responses.create({ model: SKU(kind), input: 'hi', stream: true })) seen.push(JSON.stringify(event));
      else seen.push(JSON.stringify(await client.responses.create({ model: SKU(kind), input: 'hi' })));
    }
  } catch (error) {
    const e = error as Error & { error?: unknown; status?: unknown };
    seen.push(String(e.message), JSON.stringify(e.error ?? null), String(e.stack ?? ''));
  }
  return seen.join('\n');
}


describe('upstream keys never reach a client or the request log', () => {
  for (const kind of UPSTREAM_KINDS) {
    for (const path of ['status-4xx', 'status-5xx', 'ok-with-error', 'mid-stream'] as const) {
      it(`${kind} upstream, ${path}`, { timeout: 120_000 }, async () => {
        await fc.assert(
          fc.asyncProperty(scenarioArb(path), async ({ upstream: { key, text }, status, plain, overloaded, bareError, stream }) => {
            useKey(kind, key);
            scenarios.set(kind, { path, text, status, plain, overloaded, bareError });
            for (const format of CLIENT_FORMATS) {
              const seen = await everythingTheClientSaw(format, kind, stream);
              expectNoKey(seen, key, `what a ${format} client saw`);
            }
            logs.plain.flush();
            logs.bodies.flush();
            expectNoKey(logged, key, 'the request log');
            logged = '';
          }),
          { numRuns: RUNS },
        );
      });
    }
  }
});
