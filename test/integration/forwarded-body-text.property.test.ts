import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writtenMembers } from '../../src/core/body-text.js';
import { withMembers } from '../../src/core/json-members.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { SKU, UPSTREAM_KEY } from './support.js';
import { chatCompletionBody } from '../reliability/support.js';

/**
 * A Messages request forwarded to an Anthropic upstream, and a Chat request forwarded to a Chat
 * upstream, go as the client's own text with the members the router sets set in place
 * (src/core/body-text.ts), not written out again. Whatever the client's
 * spacing, key order, escapes and numbers, the upstream must read the very request it read when
 * the body was written out (`{...body, model, stream}`); and a body with a key given twice, which
 * JSON.parse reads once, must never reach it with both (the router checked only one of them).
 */

const REPLY = JSON.stringify({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'upstream-model',
  content: [{ type: 'text', text: 'ok' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 3, output_tokens: 1 },
});

const CHAT_REPLY = JSON.stringify(chatCompletionBody('ok'));
const CHAT_STREAM = [
  { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'upstream-model', choices: [{ index: 0, delta: { role: 'assistant', content: 'ok' }, finish_reason: null }] },
  { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'upstream-model', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
  { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'upstream-model', choices: [], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } },
]
  .map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
  .concat('data: [DONE]\n\n')
  .join('');
const CHAT_SKU = 'svc.intelligent-lite';

let router: TestRouter;
let upstream: http.Server;
const received: string[] = [];

beforeAll(async () => {
  upstream = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      received.push(text);
      if (request.url?.endsWith('/chat/completions')) {
        if ((JSON.parse(text) as { stream?: boolean }).stream === true) response.writeHead(200, { 'content-type': 'text/event-stream' }).end(CHAT_STREAM);
        else response.writeHead(200, { 'content-type': 'application/json' }).end(CHAT_REPLY);
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(REPLY);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  router = await startRouter();
  const { port } = upstream.address() as AddressInfo;
  router.config.update((draft) => {
    draft.backends.an = { type: 'anthropic', baseUrl: `http://127.0.0.1:${port}`, apiKey: UPSTREAM_KEY };
    draft.backends.oa = { type: 'openai-chat', baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: UPSTREAM_KEY };
    draft.routes[SKU] = ['an:upstream-model'];
    draft.routes[CHAT_SKU] = ['oa:upstream-model'];
  });
});
afterAll(async () => {
  await router.close();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

function post(text: string, path = '/v1/messages'): Promise<{ status: number; text: string }> {
  const url = new URL(path, router.origin);
  const headers = { 'content-type': 'application/json', 'x-api-key': router.key, authorization: `Bearer ${router.key}`, 'anthropic-version': '2023-06-01' };
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(text);
  });
}

/** Object members of a parsed value, at every depth. */
function parsedMembers(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + parsedMembers(item), 0);
  return Object.values(value).reduce((sum: number, item) => sum + 1 + parsedMembers(item), 0);
}

const space = fc.constantFrom('', ' ', '\n  ', '\t');
/** Text a model reads, with what JSON may escape. */
const words = fc.string({ unit: fc.constantFrom('a', 'é', '"', '\\', '/', '\n', '\u2028', '😀', ' ', ':', '{', ','), minLength: 1, maxLength: 12 });
/** A number as a client may write it (JSON.parse reads them all; writing out again changes their form). */
const number = fc.constantFrom('1', '1.0', '1e2', '-0', '0.1', '12345678901234567890');

/** A member as written: its key (escaped or not) and its value's text. */
type Written = [key: string, value: string];

const extraMember: fc.Arbitrary<Written> = fc.oneof(
  fc.tuple(fc.constantFrom('"x_a"', '"x_b"', '"x\\u005fc"'), fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value))),
  fc.tuple(fc.constant('"x_number"'), number),
  fc.tuple(fc.constant('"metadata"'), words.map((id) => JSON.stringify({ user_id: id }))),
  fc.constantFrom<Written>(['"model"', JSON.stringify(SKU)], ['"stream"', 'false'], ['"str\\u0065am"', 'false']),
);

/** A body written member by member: the required members, extra ones (possibly a key twice), and chosen spacing. */
const body = fc
  .record({
    content: words,
    maxTokens: fc.integer({ min: 1, max: 4096 }),
    extra: fc.array(extraMember, { maxLength: 5 }),
    duplicateInMessage: fc.boolean(),
    before: space,
    after: space,
    order: fc.integer({ min: 0, max: 1000 }),
  })
  .map(({ content, maxTokens, extra, duplicateInMessage, before, after, order }) => {
    const message = duplicateInMessage ? `{"role":"user","content":"hidden","content":${JSON.stringify(content)}}` : `{"role":"user","content":${JSON.stringify(content)}}`;
    const members: Written[] = [['"model"', JSON.stringify(SKU)], ['"max_tokens"', String(maxTokens)], ['"messages"', `[${message}]`], ...extra];
    // Rotated, so the model is not always first.
    const turn = order % members.length;
    const ordered = [...members.slice(turn), ...members.slice(0, turn)];
    return `${before}{${ordered.map(([key, value]) => `${before}${key}${after}:${after}${value}`).join(',')}${before}}${after}`;
  });

describe('a forwarded Messages body sent as the client wrote it', () => {
  it('reaches the upstream as the request written out would, and never with a key twice', async () => {
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const parsed = JSON.parse(text) as Record<string, unknown>;
        // The router's own model must be the one it routes (a later duplicate wins, as in JSON.parse).
        fc.pre(parsed.model === SKU);
        const before = received.length;
        const reply = await post(text);
        expect(reply.status, reply.text).toBe(200);
        expect(received).toHaveLength(before + 1);
        const sent = received[before]!;
        // Read as JSON readers read it (-0 and 0 alike, as any JSON number reader takes them): the same request, key order included.
        const read = (json: string): unknown => JSON.parse(JSON.stringify(JSON.parse(json)));
        expect(JSON.stringify(read(sent))).toBe(JSON.stringify({ ...parsed, model: 'upstream-model', stream: false }));
        expect(writtenMembers(sent), sent).toBe(parsedMembers(JSON.parse(sent)));
        // A body with no key twice goes as the client's own bytes, only the model and stream set.
        if (writtenMembers(text) === parsedMembers(parsed)) expect(sent).toBe(withMembers(text, ['model', 'stream'], ['"upstream-model"', 'false']));
      }),
      { numRuns: 60 },
    );
  });

  const chatExtra: fc.Arbitrary<Written> = fc.oneof(
    fc.tuple(fc.constantFrom('"x_a"', '"x\\u005fc"'), fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value))),
    fc.tuple(fc.constant('"x_number"'), number),
    fc.constantFrom<Written>(['"stream"', 'true'], ['"stream"', 'false'], ['"stream_options"', '{"include_usage":false,"x":1}'], ['"stream_options"', 'null'], ['"user"', '"u"']),
  );
  const chatBody = fc
    .record({ content: words, extra: fc.array(chatExtra, { maxLength: 4 }), before: space, after: space, order: fc.integer({ min: 0, max: 1000 }) })
    .map(({ content, extra, before, after, order }) => {
      const members: Written[] = [['"model"', JSON.stringify(CHAT_SKU)], ['"messages"', `[{"role":"user","content":${JSON.stringify(content)}}]`], ...extra];
      const turn = order % members.length;
      const ordered = [...members.slice(turn), ...members.slice(0, turn)];
      return `${before}{${ordered.map(([key, value]) => `${before}${key}${after}:${after}${value}`).join(',')}${before}}${after}`;
    });

  it('a Chat body, streamed or not, reaches its upstream as the request written out would', async () => {
    await fc.assert(
      fc.asyncProperty(chatBody, async (text) => {
        const parsed = JSON.parse(text) as Record<string, unknown>;
        const stream = parsed.stream === true;
        const before = received.length;
        const reply = await post(text, '/v1/chat/completions');
        expect(reply.status, reply.text).toBe(200);
        expect(received).toHaveLength(before + 1);
        const sent = received[before]!;
        // What encodeChatRequest writes: the model set; streamed, stream and include_usage set; else neither member.
        const expected: Record<string, unknown> = { ...parsed, model: 'upstream-model' };
        if (stream) {
          expected.stream = true;
          expected.stream_options = { ...(parsed.stream_options as object | null), include_usage: true };
        } else {
          delete expected.stream;
          delete expected.stream_options;
        }
        const read = (json: string): unknown => JSON.parse(JSON.stringify(JSON.parse(json)));
        expect(JSON.stringify(read(sent))).toBe(JSON.stringify(expected));
        expect(writtenMembers(sent), sent).toBe(parsedMembers(JSON.parse(sent)));
        // A call with nothing to remove goes as the client's own bytes, only the model set.
        if (!stream && parsed.stream === undefined && parsed.stream_options === undefined && writtenMembers(text) === parsedMembers(parsed)) expect(sent).toBe(withMembers(text, ['model'], ['"upstream-model"']));
      }),
      { numRuns: 60 },
    );
  });
});
