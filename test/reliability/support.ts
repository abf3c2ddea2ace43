import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { expect } from 'vitest';
import type { BackendTimeouts, BackendType } from '../../src/config/settings.js';
import type { TestRouter } from '../helpers/router.js';
import { send, type Reply } from '../helpers/send.js';
import { parseSse } from '../helpers/sse-frames.js';

export { parseSse };
export { send, type Reply };
export { closedPortUrl } from '../helpers/unused-port.js';

/** The three client wire formats the router accepts. */
export const CLIENT_FORMATS = ['chat', 'messages', 'responses'] as const;
export type ClientFormatName = (typeof CLIENT_FORMATS)[number];

/**
 * Every backend type, each an upstream wire format: the first three are forwarded to a client of
 * their own format and translated for the others; Gemini is forwarded only to a Gemini client
 * (test/integration/gemini-door-over-backends.test.ts), which these matrices do not include.
 */
export const UPSTREAM_KINDS = ['openai-chat', 'anthropic', 'openai-responses', 'gemini'] as const satisfies readonly BackendType[];
export type UpstreamKind = (typeof UPSTREAM_KINDS)[number];

/** A SKU left unrouted, so the built-in offline backend serves it: the "is the router still up" probe. */
export const HEALTHY_SKU = 'svc.intelligent-lite';

export const PATHS: Record<ClientFormatName, string> = {
  chat: '/v1/chat/completions',
  messages: '/v1/messages',
  responses: '/v1/responses',
};

/** A minimal valid body of the client's format. */
export function bodyFor(format: ClientFormatName, model: string, stream: boolean, text = 'hello'): Record<string, unknown> {
  switch (format) {
    case 'chat':
      return { model, messages: [{ role: 'user', content: text }], ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) };
    case 'messages':
      return { model, max_tokens: 256, messages: [{ role: 'user', content: text }], ...(stream ? { stream: true } : {}) };
    case 'responses':
      return { model, input: text, ...(stream ? { stream: true } : {}) };
  }
}

export function headersFor(format: ClientFormatName, key: string): Record<string, string> {
  return format === 'messages'
    ? { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }
    : { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
}

/** Posts a body in the client's format. */
export function callFormat(router: Pick<TestRouter, 'origin' | 'key'>, format: ClientFormatName, body: unknown, timeoutMs?: number): Promise<Reply> {
  return send(router, PATHS[format], { headers: headersFor(format, router.key), body, ...(timeoutMs ? { timeoutMs } : {}) });
}

/** The error `type` each format names for a router error kind. */
export type ErrorKindName = 'upstream' | 'overloaded' | 'rate_limit' | 'invalid_request' | 'too_large';
const OPENAI_TYPES: Record<ErrorKindName, string> = {
  upstream: 'upstream_error',
  overloaded: 'server_error',
  rate_limit: 'rate_limit_error',
  invalid_request: 'invalid_request_error',
  too_large: 'invalid_request_error',
};
const ANTHROPIC_TYPES: Record<ErrorKindName, string> = {
  upstream: 'api_error',
  overloaded: 'overloaded_error',
  rate_limit: 'rate_limit_error',
  invalid_request: 'invalid_request_error',
  too_large: 'request_too_large',
};

/** True when `body` is exactly the error shape of the format (and nothing else). */
export function hasErrorShape(format: ClientFormatName, body: any): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  if (format === 'messages') {
    return (
      sameKeys(body, ['error', 'request_id', 'type']) &&
      body.type === 'error' &&
      typeof body.request_id === 'string' &&
      sameKeys(body.error, ['message', 'type']) &&
      typeof body.error.type === 'string' &&
      typeof body.error.message === 'string' &&
      body.error.message.length > 0
    );
  }
  return (
    sameKeys(body, ['error']) &&
    sameKeys(body.error, ['code', 'message', 'param', 'type']) &&
    typeof body.error.type === 'string' &&
    typeof body.error.message === 'string' &&
    body.error.message.length > 0
  );
}

function sameKeys(value: unknown, keys: string[]): boolean {
  return value !== null && typeof value === 'object' && JSON.stringify(Object.keys(value).sort()) === JSON.stringify(keys);
}

/** Asserts a JSON error answer: status, the format's exact shape, the type for `kind`, and optionally the code. */
export function expectErrorReply(format: ClientFormatName, reply: Reply, status: number, kind: ErrorKindName, code?: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  expect(hasErrorShape(format, reply.json), `error shape of ${format}: ${reply.text}`).toBe(true);
  expect(reply.json.error.type).toBe(format === 'messages' ? ANTHROPIC_TYPES[kind] : OPENAI_TYPES[kind]);
  if (code !== undefined && format !== 'messages') expect(reply.json.error.code).toBe(code);
}

/**
 * Asserts a stream that started and then failed: status 200 as an event stream, some content
 * before the failure, the format's error event as the very last frame (nothing after it, no
 * normal ending), and the body ended (the text was read to its end).
 */
export function expectMidStreamError(format: ClientFormatName, reply: Reply, message?: RegExp): void {
  expect(reply.status, reply.text).toBe(200);
  expect(reply.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const frames = parseSse(reply.text);
  expect(frames.length, reply.text).toBeGreaterThan(1);
  const last = frames.at(-1)!;
  const data = JSON.parse(last.data);
  switch (format) {
    case 'chat':
      expect(last.event).toBeUndefined();
      expect(hasErrorShape('chat', data), last.data).toBe(true);
      expect(frames.some((frame) => frame.data === '[DONE]')).toBe(false);
      expect(frames.some((frame) => frame.data.includes('"finish_reason":"'))).toBe(false);
      expect(JSON.parse(frames[0]!.data).choices[0].delta.role).toBe('assistant');
      if (message) expect(data.error.message).toMatch(message);
      break;
    case 'messages':
      expect(last.event).toBe('error');
      expect(hasErrorShape('messages', data), last.data).toBe(true);
      expect(frames[0]!.event).toBe('message_start');
      expect(frames.some((frame) => frame.event === 'message_stop' || frame.event === 'message_delta')).toBe(false);
      if (message) expect(data.error.message).toMatch(message);
      break;
    case 'responses':
      expect(last.event).toBe('response.failed');
      expect(data.type).toBe('response.failed');
      expect(data.response.status).toBe('failed');
      expect(typeof data.response.error?.message).toBe('string');
      expect(frames[0]!.event).toBe('response.created');
      expect(frames.some((frame) => frame.event === 'response.completed' || frame.event === 'response.incomplete')).toBe(false);
      if (message) expect(data.response.error.message).toMatch(message);
      break;
  }
}

/** Asserts a successful answer in the client's format, streamed or not. */
export function expectSuccess(format: ClientFormatName, reply: Reply, stream: boolean): void {
  expect(reply.status, reply.text).toBe(200);
  if (!stream) {
    expect(reply.json, reply.text).toBeDefined();
    if (format === 'chat') expect(reply.json.object).toBe('chat.completion');
    if (format === 'messages') expect(reply.json.type).toBe('message');
    if (format === 'responses') expect(reply.json.status).toBe('completed');
    return;
  }
  const frames = parseSse(reply.text);
  if (format === 'chat') expect(frames.at(-1)!.data).toBe('[DONE]');
  if (format === 'messages') expect(frames.at(-1)!.event).toBe('message_stop');
  if (format === 'responses') expect(frames.at(-1)!.event).toBe('response.completed');
}

export interface RouteSpec {
  /** The model name clients ask for (an svc.* name). */
  sku: string;
  /** The backend's name; the route sends `upstreamModel` to it. */
  backend: string;
  type: BackendType;
  baseUrl: string;
  upstreamModel: string;
  timeouts?: BackendTimeouts;
}

/** Registers backends and routes each SKU to its backend alone, in one config write. */
export function addRoutes(router: Pick<TestRouter, 'config'>, specs: RouteSpec[]): void {
  router.config.update((settings) => {
    for (const spec of specs) {
      settings.backends[spec.backend] = { type: spec.type, baseUrl: spec.baseUrl, apiKey: 'sk-upstream-test-0000', ...(spec.timeouts ? { timeouts: spec.timeouts } : {}) };
      settings.routes[spec.sku] = [`${spec.backend}:${spec.upstreamModel}`];
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Upstream wire frames

const chatChunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-fault', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'upstream-model', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;

const event = (type: string, payload: Record<string, unknown>): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`;

/** A streamGenerateContent chunk: text of the first candidate, and its finish reason and usage when given. */
const geminiChunk = (text: string, finish?: string, usage?: Record<string, number>): string =>
  `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ text }], role: 'model' }, ...(finish ? { finishReason: finish } : {}), index: 0 }], ...(usage ? { usageMetadata: usage } : {}), modelVersion: 'upstream-model', responseId: 'gemini-fault' })}\n\n`;

/** Input tokens the opening frames of an Anthropic stream report (message_start usage). */
export const ANTHROPIC_OPENING_INPUT_TOKENS = 11;

/** The first frames of a well-formed stream of each upstream kind: the stream has started and carries some text. */
export function openingFrames(kind: UpstreamKind, text = 'Hello'): string {
  switch (kind) {
    case 'openai-chat':
      return chatChunk({ role: 'assistant', content: '' }) + chatChunk({ content: text });
    case 'anthropic':
      return (
        event('message_start', {
          message: { id: 'msg_fault', type: 'message', role: 'assistant', model: 'upstream-model', content: [], usage: { input_tokens: ANTHROPIC_OPENING_INPUT_TOKENS, output_tokens: 1 } },
        }) +
        event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
        event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } })
      );
    case 'openai-responses':
      return (
        event('response.created', { response: { id: 'resp_fault', object: 'response', status: 'in_progress', output: [] } }) +
        event('response.output_item.added', { output_index: 0, item: { id: 'msg_fault', type: 'message', role: 'assistant', status: 'in_progress', content: [] } }) +
        event('response.output_text.delta', { item_id: 'msg_fault', output_index: 0, content_index: 0, delta: text })
      );
    case 'gemini':
      return geminiChunk('') + geminiChunk(text);
  }
}

/** More text in the middle of a stream of each kind. */
export function textFrame(kind: UpstreamKind, text: string): string {
  switch (kind) {
    case 'openai-chat':
      return chatChunk({ content: text });
    case 'anthropic':
      return event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
    case 'openai-responses':
      return event('response.output_text.delta', { item_id: 'msg_fault', output_index: 0, content_index: 0, delta: text });
    case 'gemini':
      return geminiChunk(text);
  }
}

/**
 * A frame of each kind that is no event: one in the kind's own shape that is not valid JSON (a stray
 * comma, its braces intact), or valid JSON that the kind's grammar has no event for (not an object;
 * for Anthropic and Responses, an object without the `type` every event leads with). The words the
 * router's error uses for it are `message`.
 */
export function brokenFrame(kind: UpstreamKind, how: 'not JSON' | 'not an event'): { frame: string; message: RegExp } {
  if (how === 'not JSON') {
    const message = /not valid JSON/;
    switch (kind) {
      case 'openai-chat':
        return { frame: 'data: {"id":"chatcmpl-fault","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" broken"},}]}\n\n', message };
      case 'anthropic':
        return { frame: 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" broken"},}\n\n', message };
      case 'openai-responses':
        return { frame: 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":"msg_fault","output_index":0,"content_index":0,"delta":" broken",}\n\n', message };
      case 'gemini':
        return { frame: 'data: {"candidates":[{"content":{"parts":[{"text":" broken"}],"role":"model"},"index":0},]}\n\n', message };
    }
  }
  switch (kind) {
    case 'openai-chat':
      return { frame: 'data: [{"delta":{"content":" broken"}}]\n\n', message: /stream chunk that is not a JSON object/ };
    case 'anthropic':
      return { frame: 'event: content_block_delta\ndata: {"index":0,"delta":{"type":"text_delta","text":" broken"}}\n\n', message: /stream event whose type is missing/ };
    case 'openai-responses':
      return { frame: 'event: response.output_text.delta\ndata: {"item_id":"msg_fault","output_index":0,"content_index":0,"delta":" broken"}\n\n', message: /stream event whose type is missing/ };
    case 'gemini':
      return { frame: 'data: [{"candidates":[]}]\n\n', message: /Gemini reply whose body is not a JSON object/ };
  }
}

/** The frames that end a well-formed stream of each kind. */
export function closingFrames(kind: UpstreamKind, usage = { input: 11, output: 5 }): string {
  switch (kind) {
    case 'openai-chat':
      return (
        chatChunk({}, 'stop') +
        `data: ${JSON.stringify({ id: 'chatcmpl-fault', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'upstream-model', choices: [], usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } })}\n\n` +
        'data: [DONE]\n\n'
      );
    case 'anthropic':
      return (
        event('content_block_stop', { index: 0 }) +
        event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.output } }) +
        event('message_stop', {})
      );
    case 'openai-responses':
      return (
        event('response.output_item.done', { output_index: 0, item: { id: 'msg_fault', type: 'message', role: 'assistant', status: 'completed', content: [] } }) +
        event('response.completed', {
          response: { id: 'resp_fault', object: 'response', status: 'completed', output: [], usage: { input_tokens: usage.input, output_tokens: usage.output, total_tokens: usage.input + usage.output } },
        })
      );
    case 'gemini':
      return geminiChunk('', 'STOP', { promptTokenCount: usage.input, candidatesTokenCount: usage.output, totalTokenCount: usage.input + usage.output });
  }
}

/** A complete, valid non-streamed Chat Completions body. */
export function chatCompletionBody(text: string): Record<string, unknown> {
  return {
    id: 'chatcmpl-fault',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'upstream-model',
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 },
  };
}

export function startEventStream(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.flushHeaders();
}

// ---------------------------------------------------------------------------------------------
// A scriptable fault upstream

export interface UpstreamCall {
  req: IncomingMessage;
  res: ServerResponse;
  /** The parsed request body (undefined if it was not JSON). */
  body: any;
  /** 0-based number of this request among those for the same model. */
  index: number;
  /** Resolves when the response is finished or its connection closed (the router hung up). */
  closed: Promise<void>;
}

export type UpstreamHandler = (call: UpstreamCall) => void | Promise<void>;

/** Whether the router asked for a stream: `stream: true` in the body, or Gemini's streaming method in the URL. */
export const asksForStream = ({ body, req }: Pick<UpstreamCall, 'body' | 'req'>): boolean => body?.stream === true || (req.url ?? '').includes(':streamGenerateContent');

export interface Served {
  /** Requests received for this model so far. */
  readonly count: number;
}

export interface FaultUpstream {
  /** Base URL ending in /v1 (backends append their own path; the handler ignores it). */
  url: string;
  /**
   * Answers requests whose body names `model` (the upstream model a route sends) with `handler`,
   * so concurrent tests each get their own behaviour and count.
   */
  serve(model: string, handler: UpstreamHandler): Served;
  close(): Promise<void>;
}

/**
 * A bare node:http upstream that does whatever a handler says, including never answering or
 * destroying its socket. Every connection is tracked and destroyed on close, so a stalled handler
 * cannot keep the suite alive.
 */
export async function startFaultUpstream(): Promise<FaultUpstream> {
  const handlers = new Map<string, { handler: UpstreamHandler; count: number }>();
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      // Gemini names the model in the URL (`…/models/{model}:streamGenerateContent`), the others in the body.
      const entry = handlers.get(String(body?.model ?? /\/models\/([^/:]+):/.exec(req.url ?? '')?.[1]));
      if (!entry) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no handler for model ${String(body?.model)}` } }));
        return;
      }
      const closed = new Promise<void>((resolve) => res.once('close', () => resolve()));
      const index = entry.count++;
      Promise.resolve(entry.handler({ req, res, body, index, closed })).catch(() => res.destroy());
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/v1`,
    serve(model, handler) {
      const entry = { handler, count: 0 };
      handlers.set(model, entry);
      return {
        get count() {
          return entry.count;
        },
      };
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

/**
 * Waits until `check` returns a value other than undefined, trying again after each turn of the
 * event loop (and a short timer, so I/O can progress), for at most `timeoutMs`.
 */
export async function eventually<T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 5));
  }
}
