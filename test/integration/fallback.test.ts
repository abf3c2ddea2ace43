import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { addBackend, closedPortUrl, Fakes, metaOf, parseSse, setRoute, SKU, UPSTREAM_KINDS } from './support.js';

let router: TestRouter;
let openai: OpenAI;
let anthropic: Anthropic;
const fakes = new Fakes();

beforeAll(async () => {
  router = await startRouter();
  openai = new OpenAI({ apiKey: router.key, baseURL: router.baseURL, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: router.key, baseURL: router.origin, maxRetries: 0 });
});
afterEach(() => fakes.closeAll());
afterAll(() => router.close());

const ANSWER = 'Served by the second target.';

/** A chain of a refusing backend, then a working openai-chat fake. */
async function deadThenGood() {
  addBackend(router, 'dead', 'openai-chat', await closedPortUrl());
  const good = await fakes.start('openai-chat', [{ text: ANSWER, chunkSize: 4, usage: { input: 20, output: 6 } }]);
  addBackend(router, 'good', 'openai-chat', good.url);
  setRoute(router, SKU, ['dead:model-dead', 'good:model-good']);
  return good;
}

/** A chain whose first target answers with `status`, then a working anthropic fake. */
async function failingThenGood(status: number, firstKind: (typeof UPSTREAM_KINDS)[number] = 'openai-chat', errorBody?: unknown) {
  const first = await fakes.start(firstKind, [{ status, ...(errorBody !== undefined ? { errorBody } : {}) }]);
  addBackend(router, 'first', firstKind, first.url);
  const second = await fakes.start('anthropic', [{ text: ANSWER, chunkSize: 4, usage: { input: 20, output: 6 } }]);
  addBackend(router, 'second', 'anthropic', second.url);
  setRoute(router, SKU, ['first:model-first', 'second:model-second']);
  return { first, second };
}

async function chatChunks(): Promise<ChatCompletionChunk[]> {
  const stream = await openai.chat.completions.create({
    model: SKU,
    messages: [{ role: 'user', content: 'hello' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

/** Checks a chat stream is one clean answer: a single beginning, the whole text once, one end. */
function expectOneCleanChatStream(chunks: ChatCompletionChunk[]): void {
  expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
  expect(chunks.filter((chunk) => chunk.choices[0]?.delta.role !== undefined)).toHaveLength(1);
  expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(ANSWER);
  expect(chunks.filter((chunk) => chunk.choices[0]?.finish_reason)).toHaveLength(1);
}

/** Posts a raw messages stream and returns its frames. */
async function rawMessagesStream(): Promise<Array<{ event?: string; data: string }>> {
  const response = await fetch(`${router.origin}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': router.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: SKU, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'hello' }] }),
  });
  expect(response.status).toBe(200);
  return parseSse(await response.text());
}

function expectOneCleanMessagesStream(frames: Array<{ event?: string; data: string }>): void {
  const events = frames.map((frame) => JSON.parse(frame.data) as { type: string; delta?: { type?: string; text?: string } });
  expect(events.filter((event) => event.type === 'message_start')).toHaveLength(1);
  expect(events.filter((event) => event.type === 'message_stop')).toHaveLength(1);
  expect(events.some((event) => event.type === 'error')).toBe(false);
  expect(events.map((event) => (event.delta?.type === 'text_delta' ? event.delta.text : '')).join('')).toBe(ANSWER);
}

describe('fallback to the next target', () => {
  it('serves a chat request from the second target when the first refuses connections', async () => {
    const good = await deadThenGood();
    const completion = await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'hello' }] });
    expect(completion.choices[0]!.message.content).toBe(ANSWER);
    expect(metaOf(completion)).toMatchObject({ backend: 'good', upstream_model: 'model-good', attempts: 2, usage: { input_tokens: 20, output_tokens: 6 } });
    expect(good.requests).toHaveLength(1);
    expect(good.requests[0]!.body.model).toBe('model-good');
  });

  it('streams one clean chat answer from the second target when the first refuses connections', async () => {
    const good = await deadThenGood();
    const chunks = await chatChunks();
    expectOneCleanChatStream(chunks);
    expect(metaOf(chunks.at(-1)!)).toMatchObject({ backend: 'good', upstream_model: 'model-good', attempts: 2 });
    expect(good.requests).toHaveLength(1);
  });

  it('serves a messages request from the second target when the first refuses connections, streaming or not', async () => {
    const good = await deadThenGood();
    const message = await anthropic.messages.create({ model: SKU, max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] });
    expect(message.content).toEqual([{ type: 'text', text: ANSWER }]);
    expect(metaOf(message)).toMatchObject({ backend: 'good', attempts: 2 });

    expectOneCleanMessagesStream(await rawMessagesStream());
    const final = await anthropic.messages.stream({ model: SKU, max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] }).finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: ANSWER }]);
    expect(good.requests).toHaveLength(3);
  });

  it.each(UPSTREAM_KINDS)('falls back when a first %s target answers 503', async (kind) => {
    const { first, second } = await failingThenGood(503, kind);
    const completion = await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'hello' }] });
    expect(completion.choices[0]!.message.content).toBe(ANSWER);
    expect(metaOf(completion)).toMatchObject({ backend: 'second', upstream_model: 'model-second', attempts: 2 });

    const chunks = await chatChunks();
    expectOneCleanChatStream(chunks);
    expect(metaOf(chunks.at(-1)!)).toMatchObject({ backend: 'second', attempts: 2 });

    expectOneCleanMessagesStream(await rawMessagesStream());
    // Each request tried the first target once, then the second.
    expect(first.requests).toHaveLength(3);
    expect(second.requests).toHaveLength(3);
  });

  it('falls back when a first anthropic target is overloaded (529)', async () => {
    const { first, second } = await failingThenGood(529, 'anthropic');
    const message = await anthropic.messages.create({ model: SKU, max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] });
    expect(message.content).toEqual([{ type: 'text', text: ANSWER }]);
    expect(metaOf(message)).toMatchObject({ backend: 'second', attempts: 2 });
    expect(first.requests).toHaveLength(1);
    expect(second.requests).toHaveLength(1);
  });
});

describe("a target whose own key is refused, or that lacks the model, is the route's to replace", () => {
  const refusedKey = { error: { message: 'Incorrect API key provided.', type: 'authentication_error', code: 'invalid_api_key' } };

  it.each([
    [401, 'openai-chat'],
    [403, 'anthropic'],
    [404, 'openai-responses'],
  ] as const)('falls through to the next target when the first answers %i (%s)', async (status, kind) => {
    const { first, second } = await failingThenGood(status, kind, refusedKey);
    const completion = await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'hello' }] });
    expect(completion.choices[0]!.message.content).toBe(ANSWER);
    expect(metaOf(completion)).toMatchObject({ backend: 'second', upstream_model: 'model-second', attempts: 2 });

    const chunks = await chatChunks();
    expectOneCleanChatStream(chunks);
    expect(metaOf(chunks.at(-1)!)).toMatchObject({ backend: 'second', attempts: 2 });

    expectOneCleanMessagesStream(await rawMessagesStream());
    // Each request asked the first target once (no retry on the same key), then the second.
    expect(first.requests).toHaveLength(3);
    expect(second.requests).toHaveLength(3);
  });

  it('answers 502 naming the backend when the last target refuses its key', async () => {
    const fake = await fakes.start('openai-chat', [{ status: 401, errorBody: refusedKey }]);
    addBackend(router, 'only', 'openai-chat', fake.url);
    setRoute(router, SKU, ['only:model-only']);
    const error = await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'hello' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ status: 502, type: 'upstream_error' });
    expect((error as Error).message).toContain("Backend 'only' rejected its API key (HTTP 401)");
    expect(fake.requests).toHaveLength(1);
  });
});

describe('errors that are not retried', () => {
  const rejection = { error: { message: "Invalid value for 'temperature'.", type: 'invalid_request_error', param: 'temperature', code: null } };

  it('answers a chat client with a 400 in its own shape when the first target rejects the request', async () => {
    const { first, second } = await failingThenGood(400, 'openai-chat', rejection);
    const error = await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'hello' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, type: 'invalid_request_error' });
    expect((error as Error).message).toContain("Invalid value for 'temperature'.");

    const streamed = await chatChunks().catch((e: unknown) => e);
    expect(streamed).toBeInstanceOf(OpenAI.BadRequestError);

    expect(first.requests).toHaveLength(2);
    expect(second.requests).toHaveLength(0);
  });

  it('answers a messages client with a 400 in its own shape when the first target rejects the request', async () => {
    const { first, second } = await failingThenGood(400, 'openai-responses', rejection);
    const error = await anthropic.messages.create({ model: SKU, max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining("Invalid value for 'temperature'.") },
    });

    const streamed = await anthropic.messages.stream({ model: SKU, max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] }).finalMessage().catch((e: unknown) => e);
    expect(streamed).toBeInstanceOf(Anthropic.BadRequestError);

    expect(first.requests).toHaveLength(2);
    expect(second.requests).toHaveLength(0);
  });
});

describe('upstream keys stay secret', () => {
  const SECRET = 'sk-upstream-secret-xyz';

  /** An upstream that refuses the key and, carelessly, quotes it back. */
  async function refusingUpstream(kind: (typeof UPSTREAM_KINDS)[number], status = 401) {
    const fake = await fakes.start(
      kind,
      [{ status, errorBody: { type: 'error', error: { message: `Incorrect API key provided: ${SECRET}.`, type: 'authentication_error', code: 'invalid_api_key' } } }],
      { apiKey: SECRET },
    );
    addBackend(router, 'keyed', kind, fake.url, SECRET);
    setRoute(router, SKU, ['keyed:model-keyed']);
    return fake;
  }

  const chatRequest = (stream: boolean) =>
    fetch(`${router.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${router.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: SKU, stream, messages: [{ role: 'user', content: 'hello' }] }),
    });
  const messagesRequest = (stream: boolean) =>
    fetch(`${router.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': router.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: SKU, max_tokens: 50, stream, messages: [{ role: 'user', content: 'hello' }] }),
    });

  describe.each(UPSTREAM_KINDS)('over an %s backend', (kind) => {
    it.each([false, true])('answers a rejected key with a 502 that never shows it (streaming: %s)', async (stream) => {
      const fake = await refusingUpstream(kind);

      const chat = await chatRequest(stream);
      const chatText = await chat.text();
      expect(chat.status).toBe(502);
      expect(JSON.parse(chatText)).toMatchObject({ error: { type: 'upstream_error', message: expect.stringContaining("'keyed'") } });
      expect(chatText).not.toContain(SECRET);
      expect(chatText).not.toContain('upstream-secret');

      const messages = await messagesRequest(stream);
      const messagesText = await messages.text();
      expect(messages.status).toBe(502);
      expect(JSON.parse(messagesText)).toMatchObject({ type: 'error', error: { type: 'api_error' } });
      expect(messagesText).not.toContain(SECRET);
      expect(messagesText).not.toContain('upstream-secret');

      // The key did travel upstream, so there was something to leak.
      expect(JSON.stringify(fake.requests[0]!.headers)).toContain(SECRET);
    });
  });

  it.each([400, 500])('scrubs the key from an upstream %s message passed on to the client', async (status) => {
    await refusingUpstream('openai-chat', status);
    const chat = await chatRequest(false);
    const text = await chat.text();
    expect(chat.status).toBe(status === 400 ? 400 : 502);
    expect(text).toContain('Incorrect API key provided');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('upstream-secret');

    const error = await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'hello' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(JSON.stringify(error)).not.toContain(SECRET);
    expect((error as Error).message).not.toContain(SECRET);
  });
});
