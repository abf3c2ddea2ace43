import Anthropic from '@anthropic-ai/sdk';
import fc from 'fast-check';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageRecord } from '../../src/usage/ledger.js';
import { startFakeServer } from '../fakes/fake-server.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { send } from '../helpers/send.js';
import { parseSse, type SseFrame } from '../helpers/sse-frames.js';
import { addBackend, setRoute, UPSTREAM_KEY } from './support.js';

/**
 * Same-format forwarding is lossless by construction: whatever a Chat, Messages or Responses upstream sends
 * (unknown top-level keys, unknown usage sub-fields, server-tool blocks, citations, odd spacing),
 * its client receives the upstream's bytes but for the model name and svc_meta, and the ledger
 * records exactly the usage the upstream reported. The upstream here is a real HTTP server that
 * writes generated replies and streams byte for byte, streams in generated slices.
 */

const RUNS = 40;
const UPSTREAM_MODEL = 'upstream-model-x';
const SKUS = { chat: 'svc.fw-chat', messages: 'svc.fw-messages', responses: 'svc.fw-responses' } as const;

/** What the upstream sends on its next call: a JSON text, or an event stream in slices of bytes. */
let next: { json: string } | { stream: string; slice: number } = { json: '{}' };

let router: TestRouter;
let upstream: { origin: string; close(): Promise<void> };
const records: UsageRecord[] = [];

beforeAll(async () => {
  upstream = await startFakeServer(async (_request, res) => {
    const reply = next;
    if ('json' in reply) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(reply.json)) });
      res.end(reply.json);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const bytes = Buffer.from(reply.stream, 'utf8');
    for (let at = 0; at < bytes.length; at += reply.slice) {
      res.write(bytes.subarray(at, at + reply.slice));
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    res.end();
  });
  router = await startRouter({ capTokens: 1e15 });
  addBackend(router, 'fw-chat', 'openai-chat', `${upstream.origin}/v1`);
  addBackend(router, 'fw-anthropic', 'anthropic', upstream.origin);
  setRoute(router, SKUS.chat, [`fw-chat:${UPSTREAM_MODEL}`]);
  setRoute(router, SKUS.messages, [`fw-anthropic:${UPSTREAM_MODEL}`]);
  addBackend(router, 'fw-responses', 'openai-responses', `${upstream.origin}/v1`);
  setRoute(router, SKUS.responses, [`fw-responses:${UPSTREAM_MODEL}`]);
  // The ledger as the pipeline writes it: every record, to compare with what the upstream reported.
  const ledger = router.app.ledger;
  const record = ledger.record.bind(ledger);
  ledger.record = (entry) => {
    records.push(entry);
    record(entry);
  };
});

afterAll(async () => {
  await router?.close();
  await upstream?.close();
});

// ---- Generators -------------------------------------------------------------------------------

/** Keys no decoder reads: what a provider may add tomorrow. */
const unknownKey = fc.stringMatching(/^[a-z][a-z_]{2,12}$/).map((key) => `x_${key}`);
// As JSON carries them: fc.jsonValue may give -0, which JSON text writes as 0.
const unknownFields = fc.dictionary(unknownKey, fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.parse(JSON.stringify(value)) as unknown), { maxKeys: 3 });
/** Text with what JSON must escape and what UTF-8 needs several bytes for. */
const text = fc.string({ unit: fc.oneof(fc.constantFrom('a', ' ', '"', '\\', '\n', '\u2028', 'é', '😀', '}', '{', '"model":'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })), maxLength: 40 });
const count = fc.nat({ max: 100_000 });
/** JSON.stringify's spacing: compact, as providers send, or pretty-printed (odd but valid). */
const spacing = fc.constantFrom(undefined, 2);

const chatUsage = fc.record({
  prompt_tokens: count,
  completion_tokens: count,
  total_tokens: count,
  prompt_tokens_details: fc.option(fc.record({ cached_tokens: count, audio_tokens: count }), { nil: undefined }),
  completion_tokens_details: fc.option(fc.record({ reasoning_tokens: count, accepted_prediction_tokens: count }), { nil: undefined }),
  extra: unknownFields,
}).map(({ extra, ...usage }) => ({ ...stripUndefined(usage), ...extra }));

const chatReply = fc
  .record({
    content: fc.option(text, { nil: null }),
    finish: fc.constantFrom('stop', 'length', 'tool_calls', 'content_filter'),
    usage: chatUsage,
    extra: unknownFields,
    messageExtra: unknownFields,
    space: spacing,
  })
  .map(({ content, finish, usage, extra, messageExtra, space }) => ({
    reply: {
      id: 'chatcmpl-upstream-1',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: UPSTREAM_MODEL,
      choices: [{ index: 0, message: { role: 'assistant', content, refusal: null, ...messageExtra }, logprobs: null, finish_reason: finish }],
      usage,
      system_fingerprint: 'fp_x',
      ...extra,
    },
    space,
  }));

const chatStream = fc.record({
  deltas: fc.array(text, { minLength: 1, maxLength: 6 }),
  finish: fc.constantFrom('stop', 'length', 'tool_calls'),
  usage: chatUsage,
  extra: unknownFields,
  includeUsage: fc.boolean(),
  slice: fc.integer({ min: 1, max: 300 }),
});

const anthropicUsage = fc.record({
  input_tokens: count,
  output_tokens: count,
  cache_creation_input_tokens: fc.option(count, { nil: undefined }),
  cache_read_input_tokens: fc.option(count, { nil: undefined }),
  cache_creation: fc.option(fc.record({ ephemeral_5m_input_tokens: count, ephemeral_1h_input_tokens: count }), { nil: undefined }),
  server_tool_use: fc.option(fc.record({ web_search_requests: count }), { nil: undefined }),
  service_tier: fc.option(fc.constantFrom('standard', 'priority'), { nil: undefined }),
  extra: unknownFields,
}).map(({ extra, ...usage }) => ({ ...stripUndefined(usage), ...extra }));

/** Content blocks, server tools and citations included: none of them has a canonical form to lose. */
const anthropicBlock = fc.oneof(
  text.map((t) => ({ type: 'text', text: t, citations: null })),
  text.map((t) => ({ type: 'text', text: t, citations: [{ type: 'web_search_result_location', url: 'https://example.com/a', title: t, encrypted_index: 'Eo8B', cited_text: t }] })),
  text.map((t) => ({ type: 'thinking', thinking: t, signature: 'EqQBCkYIBxgCKkAsig' })),
  fc.constant({ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'weather' } }),
  fc.constant({ type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: 'https://example.com/a', title: 'A', encrypted_content: 'Eq', page_age: null }] }),
  fc.constant({ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }),
);

const messagesReply = fc
  .record({
    content: fc.array(anthropicBlock, { maxLength: 4 }),
    stop: fc.constantFrom('end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal'),
    stopSequence: fc.option(text, { nil: null }),
    usage: anthropicUsage,
    extra: unknownFields,
    space: spacing,
  })
  .map(({ content, stop, stopSequence, usage, extra, space }) => ({
    reply: { id: 'msg_upstream_1', type: 'message', role: 'assistant', model: UPSTREAM_MODEL, content, stop_reason: stop, stop_sequence: stopSequence, usage, ...extra },
    space,
  }));

const messagesStream = fc.record({
  blocks: fc.array(anthropicBlock, { maxLength: 4 }),
  startUsage: anthropicUsage,
  endUsage: fc.oneof(anthropicUsage, fc.record({ output_tokens: count })),
  deltaExtra: unknownFields,
  eventExtra: unknownFields,
  stop: fc.constantFrom('end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal'),
  slice: fc.integer({ min: 1, max: 300 }),
});

const responsesUsage = fc.record({
  input_tokens: count,
  output_tokens: count,
  input_tokens_details: fc.record({ cached_tokens: count }),
  output_tokens_details: fc.record({ reasoning_tokens: count }),
  total_tokens: count,
  extra: unknownFields,
}).map(({ extra, ...usage }) => ({ ...usage, ...extra }));

/** Output items, hosted tools and annotations included: none of them has a canonical form to lose. */
const responsesItem = fc.oneof(
  fc.tuple(text, unknownFields).map(([t, extra]) => ({ id: 'msg_up', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: t, annotations: [{ type: 'url_citation', url: 'https://example.com/a', title: t, start_index: 0, end_index: 1 }], logprobs: [], ...extra }] })),
  text.map((t) => ({ id: 'rs_up', type: 'reasoning', summary: [{ type: 'summary_text', text: t }] })),
  text.map((t) => ({ id: 'fc_up', type: 'function_call', status: 'completed', call_id: 'call_1', name: 'get_weather', arguments: JSON.stringify({ city: t }) })),
  fc.constant({ id: 'ws_up', type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'weather' } }),
);

const responsesStatusGen = fc.constantFrom('completed', 'incomplete');

const responsesReply = fc
  .record({ output: fc.array(responsesItem, { maxLength: 4 }), status: responsesStatusGen, usage: responsesUsage, extra: unknownFields, space: spacing })
  .map(({ output, status, usage, extra, space }) => ({
    reply: {
      id: 'resp_up',
      object: 'response',
      created_at: 1_700_000_000,
      status,
      error: null,
      incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
      model: UPSTREAM_MODEL,
      output,
      store: false,
      usage,
      ...extra,
    },
    space,
  }));

const responsesStream = fc.record({
  deltas: fc.array(text, { minLength: 1, maxLength: 5 }),
  items: fc.array(responsesItem, { maxLength: 2 }),
  status: responsesStatusGen,
  usage: responsesUsage,
  eventExtra: unknownFields,
  responseExtra: unknownFields,
  slice: fc.integer({ min: 1, max: 300 }),
});

// ---- Expectations -----------------------------------------------------------------------------

/** The client's body must be the upstream's, model renamed, with svc_meta added last and nothing else changed. */
function expectForwardedJson(clientText: string, upstreamRenamed: string): Record<string, any> {
  const client = JSON.parse(clientText) as Record<string, any>;
  expect(client.svc_meta, clientText).toBeDefined();
  const close = upstreamRenamed.lastIndexOf('}');
  const expected = `${upstreamRenamed.slice(0, close)},"svc_meta":${JSON.stringify(client.svc_meta)}${upstreamRenamed.slice(close)}`;
  expect(clientText).toBe(expected);
  return client;
}

/** The usage record the pipeline wrote for this request (exactly one). */
function recordFor(requestId: string | null): UsageRecord {
  const mine = records.filter((record) => record.requestId === requestId);
  expect(mine).toHaveLength(1);
  return mine[0]!;
}

const chatHeaders = () => ({ authorization: `Bearer ${router.key}`, 'content-type': 'application/json' });
const messagesHeaders = () => ({ 'x-api-key': router.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' });

function sse(frames: Array<{ event?: string; data: unknown }>): string {
  return frames.map(({ event, data }) => `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`).join('');
}

describe('same-format forwarding passes the upstream reply as it came', () => {
  it('chat → openai-chat, JSON: the upstream body, renamed, plus svc_meta; the ledger has its usage', async () => {
    await fc.assert(
      fc.asyncProperty(chatReply, async ({ reply, space }) => {
        next = { json: JSON.stringify(reply, null, space) };
        const answer = await send(router, '/v1/chat/completions', { headers: chatHeaders(), body: { model: SKUS.chat, messages: [{ role: 'user', content: 'hi' }] } });
        expect(answer.status, answer.text).toBe(200);
        const client = expectForwardedJson(answer.text, JSON.stringify({ ...reply, model: SKUS.chat }, null, space));
        const record = recordFor(answer.headers.get('x-request-id'));
        expect([record.inputTokens, record.outputTokens]).toEqual([reply.usage.prompt_tokens, reply.usage.completion_tokens]);
        expect(client.svc_meta.usage).toMatchObject({ input_tokens: reply.usage.prompt_tokens, output_tokens: reply.usage.completion_tokens });
        expect(client.svc_meta).toMatchObject({ backend: 'fw-chat', upstream_model: UPSTREAM_MODEL, sku: SKUS.chat, attempts: 1 });
      }),
      { numRuns: RUNS },
    );
  });

  it('chat → openai-chat, streamed: every chunk as sent, renamed; usage chunk only when asked; svc_meta on the last', async () => {
    await fc.assert(
      fc.asyncProperty(chatStream, async ({ deltas, finish, usage, extra, includeUsage, slice }) => {
        const head = { id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1_700_000_000, model: UPSTREAM_MODEL, system_fingerprint: 'fp_x' };
        const chunks = [
          { ...head, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] },
          ...deltas.map((delta) => ({ ...head, choices: [{ index: 0, delta: { content: delta }, logprobs: null, finish_reason: null }], ...extra })),
          { ...head, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: finish }] },
          { ...head, choices: [], usage },
        ];
        next = { stream: sse([...chunks.map((data) => ({ data })), { data: '[DONE]' }]), slice };
        const body = { model: SKUS.chat, messages: [{ role: 'user', content: 'hi' }], stream: true, ...(includeUsage ? { stream_options: { include_usage: true } } : {}) };
        const answer = await send(router, '/v1/chat/completions', { headers: chatHeaders(), body });
        expect(answer.status, answer.text).toBe(200);
        const frames = parseSse(answer.text);
        expect(frames.at(-1)).toEqual({ data: '[DONE]' });
        const renamed = chunks.map((chunk) => JSON.stringify({ ...chunk, model: SKUS.chat }));
        // Without include_usage the client never asked for the usage chunk: it is not sent, and svc_meta rides on the finish chunk.
        const sent = includeUsage ? renamed : renamed.slice(0, -1);
        const last = frames.at(-2)!;
        const meta = JSON.parse(last.data).svc_meta;
        expect(meta).toBeDefined();
        const withMeta = (data: string) => `${data.slice(0, -1)},"svc_meta":${JSON.stringify(meta)}}`;
        expect(frames.slice(0, -1).map((frame: SseFrame) => frame.data)).toEqual([...sent.slice(0, -1), withMeta(sent.at(-1)!)]);
        const record = recordFor(answer.headers.get('x-request-id'));
        expect([record.inputTokens, record.outputTokens]).toEqual([usage.prompt_tokens, usage.completion_tokens]);
        expect(meta.usage).toMatchObject({ input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens });
      }),
      { numRuns: RUNS },
    );
  });

  it('messages → anthropic, JSON: server tools, citations, cache usage and unknown keys survive; the ledger has its usage', async () => {
    await fc.assert(
      fc.asyncProperty(messagesReply, async ({ reply, space }) => {
        next = { json: JSON.stringify(reply, null, space) };
        const answer = await send(router, '/v1/messages', { headers: messagesHeaders(), body: { model: SKUS.messages, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] } });
        expect(answer.status, answer.text).toBe(200);
        const client = expectForwardedJson(answer.text, JSON.stringify({ ...reply, model: SKUS.messages }, null, space));
        const usage = reply.usage as unknown as Record<string, number>;
        const input = usage.input_tokens! + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
        const record = recordFor(answer.headers.get('x-request-id'));
        expect([record.inputTokens, record.outputTokens]).toEqual([input, usage.output_tokens]);
        expect(client.svc_meta.usage).toMatchObject({ input_tokens: input, output_tokens: usage.output_tokens });
      }),
      { numRuns: RUNS },
    );
  });

  it('messages → anthropic, streamed: every event byte for byte (safeguard_results and all), message_start renamed', async () => {
    await fc.assert(
      fc.asyncProperty(messagesStream, async ({ blocks, startUsage, endUsage, deltaExtra, eventExtra, stop, slice }) => {
        const { start, events } = messagesEvents({ blocks, startUsage, endUsage, deltaExtra, eventExtra, stop });
        next = { stream: sse(events), slice };
        const body = { model: SKUS.messages, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], stream: true };
        const answer = await send(router, '/v1/messages', { headers: messagesHeaders(), body });
        expect(answer.status, answer.text).toBe(200);
        const expected = events.map(({ event, data }, index) => ({
          event,
          data: JSON.stringify(index === 0 ? { ...start, message: { ...start.message, model: SKUS.messages } } : data),
        }));
        expect(parseSse(answer.text)).toEqual(expected);
        // message_delta's usage is cumulative: its input count, when it gives one, stands with its own cache counts.
        const usage = { ...(startUsage as unknown as Record<string, number>), ...(endUsage as unknown as Record<string, number>) };
        const inputSide = (endUsage as unknown as Record<string, number>).input_tokens === undefined ? usage : (endUsage as unknown as Record<string, number>);
        const input = inputSide.input_tokens! + (inputSide.cache_read_input_tokens ?? 0) + (inputSide.cache_creation_input_tokens ?? 0);
        const record = recordFor(answer.headers.get('x-request-id'));
        expect([record.inputTokens, record.outputTokens]).toEqual([input, usage.output_tokens]);
      }),
      { numRuns: RUNS },
    );
  });

  it('responses → openai-responses, JSON: hosted tools, annotations and unknown keys survive; the ledger has its usage', async () => {
    await fc.assert(
      fc.asyncProperty(responsesReply, async ({ reply, space }) => {
        next = { json: JSON.stringify(reply, null, space) };
        const answer = await send(router, '/v1/responses', { headers: chatHeaders(), body: { model: SKUS.responses, input: 'hi' } });
        expect(answer.status, answer.text).toBe(200);
        const client = expectForwardedJson(answer.text, JSON.stringify({ ...reply, model: SKUS.responses }, null, space));
        const record = recordFor(answer.headers.get('x-request-id'));
        expect([record.inputTokens, record.outputTokens]).toEqual([reply.usage.input_tokens, reply.usage.output_tokens]);
        expect(client.svc_meta).toMatchObject({ backend: 'fw-responses', upstream_model: UPSTREAM_MODEL, sku: SKUS.responses, attempts: 1 });
      }),
      { numRuns: RUNS },
    );
  });

  it('responses → openai-responses, streamed: every event byte for byte, lifecycle events renamed, svc_meta in the terminal response', async () => {
    await fc.assert(
      fc.asyncProperty(responsesStream, fc.boolean(), async (generated, eventLines) => {
        const events = responsesEvents(generated);
        next = { stream: sse(events.map(({ event, data }) => ({ ...(eventLines ? { event } : {}), data }))), slice: generated.slice };
        const answer = await send(router, '/v1/responses', { headers: chatHeaders(), body: { model: SKUS.responses, input: 'hi', stream: true } });
        expect(answer.status, answer.text).toBe(200);
        const frames = parseSse(answer.text);
        const meta = JSON.parse(frames.at(-1)!.data).response.svc_meta;
        expect(meta).toMatchObject({ backend: 'fw-responses', usage: { input_tokens: generated.usage.input_tokens, output_tokens: generated.usage.output_tokens } });
        const expected = events.map(({ event, data }, index) => {
          const renamed = 'response' in data ? { ...data, response: { ...(data.response as object), model: SKUS.responses, ...(index === events.length - 1 ? { svc_meta: meta } : {}) } } : data;
          return { ...(eventLines ? { event } : {}), data: JSON.stringify(renamed) };
        });
        expect(frames).toEqual(expected);
        const record = recordFor(answer.headers.get('x-request-id'));
        expect([record.inputTokens, record.outputTokens]).toEqual([generated.usage.input_tokens, generated.usage.output_tokens]);
      }),
      { numRuns: RUNS },
    );
  });

  it('responses: an upstream failure mid-stream is the translated response.failed, redacted, numbered after the upstream', async () => {
    const created = { type: 'response.created', sequence_number: 0, response: { id: 'resp_up', object: 'response', status: 'in_progress', model: UPSTREAM_MODEL, output: [] } };
    const delta = { type: 'response.output_text.delta', sequence_number: 1, item_id: 'msg_up', output_index: 0, content_index: 0, delta: 'Hel' };
    const failed = { type: 'response.failed', sequence_number: 2, response: { id: 'resp_up', status: 'failed', error: { code: 'server_error', message: `upstream broke with key ${UPSTREAM_KEY}` } } };
    next = { stream: sse([created, delta, failed].map((data) => ({ event: data.type, data }))), slice: 7 };
    const answer = await send(router, '/v1/responses', { headers: chatHeaders(), body: { model: SKUS.responses, input: 'hi', stream: true } });
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain(UPSTREAM_KEY);
    const frames = parseSse(answer.text);
    expect(frames.slice(0, 2).map((frame) => JSON.parse(frame.data).type)).toEqual(['response.created', 'response.output_text.delta']);
    const last = JSON.parse(frames.at(-1)!.data);
    expect(frames.at(-1)!.event).toBe('response.failed');
    expect(last).toMatchObject({ type: 'response.failed', sequence_number: 2, response: { id: 'resp_up', status: 'failed', model: SKUS.responses, error: { code: 'server_error' } } });
    expect(last.response.error.message).toContain('upstream broke');
  });

  it('responses: a stream cut off before response.completed ends in response.failed, and bills what was seen', async () => {
    const created = { type: 'response.created', sequence_number: 0, response: { id: 'resp_up', object: 'response', status: 'in_progress', model: UPSTREAM_MODEL, output: [] } };
    const delta = { type: 'response.output_text.delta', sequence_number: 1, item_id: 'msg_up', output_index: 0, content_index: 0, delta: 'Hello there, a long enough answer' };
    next = { stream: sse([created, delta].map((data) => ({ event: data.type, data }))), slice: 11 };
    const answer = await send(router, '/v1/responses', { headers: chatHeaders(), body: { model: SKUS.responses, input: 'hi', stream: true } });
    const last = parseSse(answer.text).at(-1)!;
    expect(JSON.parse(last.data)).toMatchObject({ type: 'response.failed', sequence_number: 2, response: { status: 'failed' } });
    expect(recordFor(answer.headers.get('x-request-id')).outputTokens).toBeGreaterThan(0);
  });

  it('responses: a target that fails before its first byte falls back to the next, whose stream is forwarded', async () => {
    const failing = await startFakeServer(async (_request, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `overloaded, key ${UPSTREAM_KEY}`, type: 'server_error', code: null } }));
    });
    try {
      addBackend(router, 'fw-responses-down', 'openai-responses', `${failing.origin}/v1`);
      setRoute(router, 'svc.fw-responses-fallback', [`fw-responses-down:${UPSTREAM_MODEL}`, `fw-responses:${UPSTREAM_MODEL}`]);
      const usage = { input_tokens: 3, output_tokens: 4, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 7 };
      const events = responsesEvents({ deltas: ['Hello'], items: [], status: 'completed', usage, eventExtra: { x_kept: 1 }, responseExtra: {} });
      next = { stream: sse(events), slice: 50 };
      const answer = await send(router, '/v1/responses', { headers: chatHeaders(), body: { model: 'svc.fw-responses-fallback', input: 'hi', stream: true } });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.text).not.toContain(UPSTREAM_KEY);
      const frames = parseSse(answer.text);
      expect(frames.map((frame) => JSON.parse(frame.data).type)).toEqual(events.map((event) => event.data.type));
      expect(JSON.parse(frames.find((frame) => frame.data.includes('"x_kept"'))!.data).x_kept).toBe(1);
      expect(JSON.parse(frames.at(-1)!.data).response.svc_meta).toMatchObject({ backend: 'fw-responses', attempts: 2 });
      expect(failing.requests).toHaveLength(1);
      const record = recordFor(answer.headers.get('x-request-id'));
      expect([record.inputTokens, record.outputTokens]).toEqual([3, 4]);
    } finally {
      await failing.close();
    }
  });

  it('every format: a frame that is no event, anywhere after the first, ends the stream there with its format\u2019s error event, as a translated stream ends', async () => {
    /** Each format's upstream events (data as JSON text), the path its client posts to, and what its error event is. */
    const streams = {
      chat: chatStream.map(({ deltas, finish, usage, slice }) => {
        const head = { id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1_700_000_000, model: UPSTREAM_MODEL };
        const chunks = [
          { ...head, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] },
          ...deltas.map((delta) => ({ ...head, choices: [{ index: 0, delta: { content: delta }, logprobs: null, finish_reason: null }] })),
          { ...head, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: finish }] },
          { ...head, choices: [], usage },
        ];
        return { events: chunks.map((data): { event?: string; data: string } => ({ data: JSON.stringify(data) })), slice };
      }),
      messages: messagesStream.map((generated) => ({ events: messagesEvents(generated).events.map(({ event, data }) => ({ event, data: JSON.stringify(data) })), slice: generated.slice })),
      responses: responsesStream.map((generated) => ({ events: responsesEvents(generated).map(({ event, data }) => ({ event, data: JSON.stringify(data) })), slice: generated.slice })),
    };
    const request = {
      chat: { path: '/v1/chat/completions', headers: chatHeaders, body: { model: SKUS.chat, messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } } },
      messages: { path: '/v1/messages', headers: messagesHeaders, body: { model: SKUS.messages, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], stream: true } },
      responses: { path: '/v1/responses', headers: chatHeaders, body: { model: SKUS.responses, input: 'hi', stream: true } },
    };
    /** A frame made no event: a stray comma inside it (its braces intact), its type taken out, or another JSON value in its place. */
    const breakFrame = (data: string, how: number): string =>
      how === 0 ? `${data.slice(0, -1)},}` : how === 1 ? data.replace(/^\{"type":"[^"]*",?/, '{') : how === 2 ? `[${data}]` : JSON.stringify(data);
    for (const format of ['chat', 'messages', 'responses'] as const) {
      await fc.assert(
        fc.asyncProperty(streams[format], fc.nat(), fc.constantFrom(0, 1, 2, 3), async ({ events, slice }, at, how) => {
          // Chat chunks carry no type: taking it out leaves a chunk, so they get another break.
          const broken = format === 'chat' && how === 1 ? 0 : how;
          const k = 1 + (at % (events.length - 1));
          const sent = [...events.slice(0, k), { ...events[k]!, data: breakFrame(events[k]!.data, broken) }, ...events.slice(k + 1)];
          next = { stream: sent.map(({ event, data }) => `${event !== undefined ? `event: ${event}\n` : ''}data: ${data}\n\n`).join('') + (format === 'chat' ? 'data: [DONE]\n\n' : ''), slice };
          const { path, headers, body } = request[format];
          const answer = await send(router, path, { headers: headers(), body });
          expect(answer.status, answer.text).toBe(200);
          const frames = parseSse(answer.text);
          // The frames before the broken one, as forwarded (each still one JSON event of the upstream's), then the error event, then nothing.
          expect(frames.length, answer.text).toBe(k + 1);
          expect(frames.slice(0, k).map((frame) => (JSON.parse(frame.data) as { type?: string }).type)).toEqual(events.slice(0, k).map((event) => (JSON.parse(event.data) as { type?: string }).type));
          const last = frames.at(-1)!;
          const error = JSON.parse(last.data);
          const message = /not valid JSON|not a JSON object|type is missing/;
          if (format === 'chat') expect(error.error.message).toMatch(message);
          if (format === 'messages') expect([last.event, error.type, error.error.type, error.error.message]).toEqual(['error', 'error', 'api_error', expect.stringMatching(message)]);
          if (format === 'responses') expect([last.event, error.response.status, error.response.error.message]).toEqual(['response.failed', 'failed', expect.stringMatching(message)]);
          // Billed once, for what was seen.
          expect(recordFor(answer.headers.get('x-request-id'))).toBeDefined();
        }),
        { numRuns: RUNS / 2 },
      );
    }
  });

  it('responses: a reply that must be sealed or echo previous_response_id is translated, not forwarded', async () => {
    const reply = {
      id: 'resp_up',
      object: 'response',
      status: 'completed',
      model: UPSTREAM_MODEL,
      output: [{ id: 'rs_up', type: 'reasoning', summary: [{ type: 'summary_text', text: 'thought' }], encrypted_content: 'gAAAA-upstream-secret-reasoning' }, { id: 'msg_up', type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok', annotations: [] }] }],
      usage: { input_tokens: 5, output_tokens: 7 },
      x_unknown: 1,
    };
    next = { json: JSON.stringify(reply) };
    const sealed = await send(router, '/v1/responses', { headers: chatHeaders(), body: { model: SKUS.responses, input: 'hi', reasoning: { effort: 'low' }, include: ['reasoning.encrypted_content'] } });
    expect(sealed.status, sealed.text).toBe(200);
    const body = JSON.parse(sealed.text);
    expect(body.id).not.toBe('resp_up');
    expect(body.x_unknown).toBeUndefined();
    expect(body.output[0].encrypted_content).toMatch(/^svcr2\./);
    expect(sealed.text).not.toContain('gAAAA-upstream-secret-reasoning');

    next = { json: JSON.stringify(reply) };
    const chained = await send(router, '/v1/responses', { headers: chatHeaders(), body: { model: SKUS.responses, input: 'hi', previous_response_id: 'resp_earlier' } });
    expect(chained.status, chained.text).toBe(200);
    expect(JSON.parse(chained.text)).toMatchObject({ previous_response_id: 'resp_earlier' });
    expect(JSON.parse(chained.text).x_unknown).toBeUndefined();
  });
});

/** A Responses event stream: lifecycle events, one message streamed as deltas, whole items, the terminal event with usage. */
function responsesEvents({ deltas, items, status, usage, eventExtra, responseExtra }: { deltas: string[]; items: Array<Record<string, unknown>>; status: string; usage: unknown; eventExtra: Record<string, unknown>; responseExtra: Record<string, unknown> }) {
  let sequence = 0;
  const events: Array<{ event: string; data: Record<string, unknown> }> = [];
  const push = (type: string, payload: Record<string, unknown>) => events.push({ event: type, data: { type, sequence_number: sequence++, ...payload } });
  const base = { id: 'resp_up', object: 'response', created_at: 1_700_000_000, status: 'in_progress', model: UPSTREAM_MODEL, output: [] as unknown[], usage: null as unknown, ...responseExtra };
  push('response.created', { response: base });
  push('response.in_progress', { response: base });
  const message = { id: 'msg_up', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: deltas.join(''), annotations: [] }] };
  const where = { item_id: 'msg_up', output_index: 0, content_index: 0 };
  push('response.output_item.added', { output_index: 0, item: { ...message, status: 'in_progress', content: [] } });
  push('response.content_part.added', { ...where, part: { type: 'output_text', text: '', annotations: [] } });
  for (const delta of deltas) push('response.output_text.delta', { ...where, delta, logprobs: [], ...eventExtra });
  push('response.output_text.done', { ...where, text: deltas.join(''), logprobs: [] });
  push('response.content_part.done', { ...where, part: message.content[0] });
  push('response.output_item.done', { output_index: 0, item: message });
  items.forEach((item, index) => {
    push('response.output_item.added', { output_index: index + 1, item });
    push('response.output_item.done', { output_index: index + 1, item, ...eventExtra });
  });
  const incomplete = status === 'incomplete' ? { incomplete_details: { reason: 'max_output_tokens' } } : {};
  push(`response.${status}`, { response: { ...base, status, ...incomplete, output: [message, ...items], usage } });
  return events;
}

/** An Anthropic event stream for the given blocks: each block started, its text in one delta, stopped. */
function messagesEvents({ blocks, startUsage, endUsage, deltaExtra, eventExtra, stop }: { blocks: Array<Record<string, unknown>>; startUsage: unknown; endUsage: unknown; deltaExtra: Record<string, unknown>; eventExtra: Record<string, unknown>; stop: string }) {
  const start = { type: 'message_start', message: { id: 'msg_up', type: 'message', role: 'assistant', model: UPSTREAM_MODEL, content: [], stop_reason: null, stop_sequence: null, usage: startUsage } };
  const events: Array<{ event: string; data: unknown }> = [{ event: 'message_start', data: start }, { event: 'ping', data: { type: 'ping' } }];
  blocks.forEach((block, index) => {
    // A text block starts empty and gets its text as a delta, as Anthropic streams it.
    const opened = block.type === 'text' ? { ...block, text: '' } : block;
    events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: opened } });
    if (block.type === 'text') events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } } });
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  const delta = { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null, ...deltaExtra, safeguard_results: { flagged: false } }, usage: endUsage, ...eventExtra };
  events.push({ event: 'message_delta', data: delta }, { event: 'message_stop', data: { type: 'message_stop' } });
  return { start, events };
}

describe('the official SDKs read a forwarded reply whole', () => {
  it('Anthropic SDK: the stream helper builds the upstream\'s message, server tools and citations included, with our model', async () => {
    const client = new Anthropic({ apiKey: router.key, baseURL: router.origin, maxRetries: 0 });
    await fc.assert(
      fc.asyncProperty(messagesStream, async ({ blocks, startUsage, endUsage, deltaExtra, eventExtra, stop, slice }) => {
        next = { stream: sse(messagesEvents({ blocks, startUsage, endUsage, deltaExtra, eventExtra, stop }).events), slice };
        const message = await client.messages.stream({ model: SKUS.messages, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
        expect(message.model).toBe(SKUS.messages);
        expect(message.content).toEqual(blocks);
        expect(message.stop_reason).toBe(stop);
        expect(message.usage.output_tokens).toBe((endUsage as { output_tokens: number }).output_tokens);
      }),
      { numRuns: 15 },
    );
  });

  it('OpenAI SDK: a forwarded completion and a forwarded stream, svc_meta and usage as the upstream gave them', async () => {
    const client = new OpenAI({ apiKey: router.key, baseURL: router.baseURL, maxRetries: 0 });
    await fc.assert(
      fc.asyncProperty(chatReply, chatStream, async ({ reply, space }, { deltas, finish, usage, slice }) => {
        next = { json: JSON.stringify(reply, null, space) };
        const completion = await client.chat.completions.create({ model: SKUS.chat, messages: [{ role: 'user', content: 'hi' }] });
        expect(completion.model).toBe(SKUS.chat);
        expect(completion.choices).toEqual(reply.choices);
        expect(completion.usage).toEqual(reply.usage);
        expect((completion as unknown as { svc_meta: { backend: string } }).svc_meta.backend).toBe('fw-chat');

        const head = { id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1_700_000_000, model: UPSTREAM_MODEL };
        next = {
          stream: sse([
            ...deltas.map((delta) => ({ data: { ...head, choices: [{ index: 0, delta: { content: delta }, logprobs: null, finish_reason: null }] } })),
            { data: { ...head, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: finish }] } },
            { data: { ...head, choices: [], usage } },
            { data: '[DONE]' },
          ]),
          slice,
        };
        let text = '';
        let seenUsage: unknown;
        for await (const chunk of await client.chat.completions.create({ model: SKUS.chat, messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } })) {
          expect(chunk.model).toBe(SKUS.chat);
          text += chunk.choices[0]?.delta.content ?? '';
          if (chunk.usage) seenUsage = chunk.usage;
        }
        expect(text).toBe(deltas.join(''));
        expect(seenUsage).toEqual(usage);
      }),
      { numRuns: 15 },
    );
  });

  it('OpenAI SDK: responses.create and its stream helper read a forwarded response whole, with our model', async () => {
    const client = new OpenAI({ apiKey: router.key, baseURL: router.baseURL, maxRetries: 0 });
    await fc.assert(
      fc.asyncProperty(responsesReply, responsesStream, async ({ reply, space }, generated) => {
        next = { json: JSON.stringify(reply, null, space) };
        const response = await client.responses.create({ model: SKUS.responses, input: 'hi' });
        expect(response.model).toBe(SKUS.responses);
        expect(response.output).toEqual(reply.output);
        expect(response.usage).toEqual(reply.usage);

        const events = responsesEvents({ ...generated, status: 'completed' });
        next = { stream: sse(events), slice: generated.slice };
        const streamed = await client.responses.stream({ model: SKUS.responses, input: 'hi' }).finalResponse();
        expect(streamed.model).toBe(SKUS.responses);
        // The helper adds its own `parsed` to each output_text part; everything the upstream sent is there.
        expect(streamed.output).toMatchObject((events.at(-1)!.data.response as { output: unknown[] }).output);
        expect(streamed.usage).toEqual(generated.usage);
        expect(streamed.output_text).toBe(generated.deltas.join('') + generated.items.map((item) => (item.type === 'message' ? (item as { content: Array<{ text: string }> }).content[0]!.text : '')).join(''));
      }),
      { numRuns: 15 },
    );
  });
});

function stripUndefined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}
