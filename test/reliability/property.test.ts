import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeAnthropicRequest } from '../../src/backends/anthropic/encode-request.js';
import { decodeSse, type SseFrame } from '../../src/backends/http/sse-decoder.js';
import { encodeChatRequest } from '../../src/backends/openai-chat/encode-request.js';
import type { CanonicalRequest, Message, Part, TextPart, ToolCallPart, ToolChoice, ToolResultPart, ToolSpec } from '../../src/core/request.js';
import { chatFormat } from '../../src/formats/chat/chat-format.js';
import { messagesFormat } from '../../src/formats/messages/messages-format.js';
import { MAX_MESSAGES, MAX_TOOLS } from '../../src/policies/request-bounds.js';
import { MAX_DEPTH } from '../../src/server/read-body.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { CLIENT_FORMATS, hasErrorShape, headersFor, PATHS, send, type ClientFormatName, type Reply } from './support.js';

const MODEL = 'svc.intelligent-basic';
/** Per request: long enough for a slow CI machine, short enough that a hang fails fast. */
const REQUEST_TIMEOUT_MS = 5_000;

// ---------------------------------------------------------------------------------------------
// Hostile bodies over HTTP

/** Valid bodies that use most of each format's fields, as the starting point for mutations. */
const VALID_BODIES: Record<ClientFormatName, Record<string, unknown>> = {
  chat: {
    model: MODEL,
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'What is the weather in Paris?' }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'Sunny' },
    ],
    tools: [{ type: 'function', function: { name: 'weather', description: 'Weather by city', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
    tool_choice: 'auto',
    temperature: 0.5,
    max_tokens: 64,
    stop: ['END'],
    stream: false,
    stream_options: { include_usage: true },
  },
  messages: {
    model: MODEL,
    max_tokens: 64,
    system: [{ type: 'text', text: 'Be brief.' }],
    messages: [
      { role: 'user', content: 'What is the weather in Paris?' },
      { role: 'assistant', content: [{ type: 'text', text: 'Checking.' }, { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'Sunny' }] }] },
    ],
    tools: [{ name: 'weather', description: 'Weather by city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
    tool_choice: { type: 'auto' },
    temperature: 0.5,
    stop_sequences: ['END'],
    metadata: { user_id: 'u1' },
    stream: false,
  },
  responses: {
    model: MODEL,
    instructions: 'Be brief.',
    input: [
      { role: 'user', content: [{ type: 'input_text', text: 'What is the weather in Paris?' }] },
      { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'Sunny' },
    ],
    tools: [{ type: 'function', name: 'weather', description: 'Weather by city', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
    tool_choice: 'auto',
    temperature: 0.5,
    max_output_tokens: 64,
    reasoning: { effort: 'low' },
    stream: false,
  },
};

type Path = Array<string | number>;

/** Every location in a JSON value, the root included. */
function pathsOf(value: unknown, prefix: Path = []): Path[] {
  const paths: Path[] = [prefix];
  if (Array.isArray(value)) value.forEach((item, index) => paths.push(...pathsOf(item, [...prefix, index])));
  else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) paths.push(...pathsOf(item, [...prefix, key]));
  return paths;
}

type Mutation = { path: Path; op: 'delete' } | { path: Path; op: 'set'; value: unknown };

/** Applies mutations in order to a copy; a path an earlier mutation removed is skipped. Undefined: no body at all. */
function mutate(body: unknown, mutations: Mutation[]): unknown {
  let root: unknown = structuredClone(body);
  for (const mutation of mutations) {
    if (mutation.path.length === 0) {
      root = mutation.op === 'delete' ? undefined : mutation.value;
      continue;
    }
    let parent: any = root;
    for (const key of mutation.path.slice(0, -1)) parent = parent === null || typeof parent !== 'object' ? undefined : parent[key];
    if (parent === null || typeof parent !== 'object') continue;
    const key = mutation.path.at(-1)!;
    if (mutation.op === 'set') parent[key] = mutation.value;
    else if (Array.isArray(parent) && typeof key === 'number') parent.splice(key, 1);
    else delete parent[key];
  }
  return root;
}

/** A value of any JSON type, small: what a wrong-typed field looks like. */
const anyJson = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, '', 'x', [], {}, [null], { type: 'text' }, { role: 'user' }),
  fc.string({ unit: 'binary', maxLength: 30 }),
);

function mutationsFor(format: ClientFormatName): fc.Arbitrary<Mutation[]> {
  const paths = pathsOf(VALID_BODIES[format]);
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    fc.record({ path: fc.constantFrom(...paths), op: fc.constant('delete' as const) }),
    fc.record({ path: fc.constantFrom(...paths), op: fc.constant('set' as const), value: anyJson }),
  );
  return fc.array(mutation, { minLength: 1, maxLength: 4 });
}

let router: TestRouter;

beforeAll(async () => {
  router = await startRouter();
});
afterAll(() => router?.close());

/** Posts raw text (or nothing) to a format's endpoint, with that format's headers. */
function post(format: ClientFormatName, text: string | undefined): Promise<Reply> {
  return send(router, PATHS[format], { method: 'POST', headers: headersFor(format, router.key), ...(text !== undefined ? { body: text } : {}), timeoutMs: REQUEST_TIMEOUT_MS });
}

/** The invariant for any body: an answer (never a hang), never a 5xx, and any error in the format's own shape. */
function expectWellBehaved(format: ClientFormatName, reply: Reply, sent: string | undefined): void {
  const context = `sent ${sent?.slice(0, 500)}\ngot ${reply.status} ${reply.text.slice(0, 500)}`;
  expect(reply.status, context).toBeLessThan(500);
  if (reply.status >= 400) expect(hasErrorShape(format, reply.json), context).toBe(true);
  else expect(reply.status, context).toBe(200);
}

const RUNS = 100;

/** Values of every JSON type, each wrong for most fields. */
const WRONG_VALUES: unknown[] = [null, 0, -1, 1.5, '', 'x', true, [], [null], {}, { type: 'text' }];

describe.each(CLIENT_FORMATS)('%s endpoint under hostile bodies', (format) => {
  it('answers the valid base body', async () => {
    const reply = await post(format, JSON.stringify(VALID_BODIES[format]));
    expect(reply.status, reply.text).toBe(200);
  });

  it('never answers 5xx for any one field deleted or given a value of the wrong type (every field, every type)', async () => {
    const base = VALID_BODIES[format];
    const variants: Mutation[] = pathsOf(base)
      .filter((path) => path.length > 0)
      .flatMap((path): Mutation[] => [{ path, op: 'delete' }, ...WRONG_VALUES.map((value): Mutation => ({ path, op: 'set', value }))]);
    // A few at a time: concurrent requests also exercise the server under load.
    for (let i = 0; i < variants.length; i += 16) {
      await Promise.all(
        variants.slice(i, i + 16).map(async (variant) => {
          const text = JSON.stringify(mutate(base, [variant]));
          expectWellBehaved(format, await post(format, text), text);
        }),
      );
    }
  });

  it('never answers 5xx, never hangs, and shapes every error, for mutated valid bodies', async () => {
    await fc.assert(
      fc.asyncProperty(mutationsFor(format), async (mutations) => {
        const body = mutate(VALID_BODIES[format], mutations);
        const text = body === undefined ? undefined : JSON.stringify(body);
        expectWellBehaved(format, await post(format, text), text);
      }),
      { numRuns: RUNS },
    );
  });

  it('never answers 5xx for random text or random JSON as the body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value))), async (text) => {
        const reply = await post(format, text);
        expectWellBehaved(format, reply, text);
        expect(reply.status).toBeGreaterThanOrEqual(400);
      }),
      { numRuns: RUNS },
    );
  });

  it(`refuses JSON nested deeper than ${MAX_DEPTH} levels with a 400, and never 5xx at any depth`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 400 }), fc.constantFrom('array', 'object'), async (depth, kind) => {
        let nested: unknown = 'leaf';
        for (let i = 0; i < depth; i++) nested = kind === 'array' ? [nested] : { content: nested };
        // Placed one level under the root object, so the whole body is depth + 1 deep.
        const text = JSON.stringify({ ...VALID_BODIES[format], metadata: nested });
        const reply = await post(format, text);
        expectWellBehaved(format, reply, text);
        if (depth + 1 > MAX_DEPTH) {
          expect(reply.status, reply.text).toBe(400);
          expect(reply.json.error.message).toMatch(/nests deeper/);
        }
      }),
      { numRuns: 40 },
    );
  });

  it(`refuses more than ${MAX_MESSAGES} messages with a 413 in the format's shape`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: MAX_MESSAGES + 1, max: MAX_MESSAGES + 2_000 }), async (count) => {
        const turns = Array.from({ length: count }, (_, i) => (i % 2 === 0 ? { role: 'user', content: 'hi' } : { role: 'assistant', content: 'ok' }));
        const body =
          format === 'responses'
            ? { model: MODEL, input: turns.map((turn) => ({ role: turn.role, content: turn.content })) }
            : format === 'messages'
              ? { model: MODEL, max_tokens: 16, messages: turns }
              : { model: MODEL, messages: turns };
        const reply = await post(format, JSON.stringify(body));
        expectWellBehaved(format, reply, `${count} messages`);
        expect(reply.status, reply.text).toBe(413);
        expect(reply.json.error.type).toBe(format === 'messages' ? 'request_too_large' : 'invalid_request_error');
        if (format !== 'messages') expect(reply.json.error.code).toBe('too_many_messages');
      }),
      { numRuns: 3 },
    );
  });

  it(`refuses more than ${MAX_TOOLS} tools with a 400 in the format's shape`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: MAX_TOOLS + 1, max: MAX_TOOLS + 500 }), async (count) => {
        const parameters = { type: 'object', properties: {} };
        const tools = Array.from({ length: count }, (_, i) =>
          format === 'chat'
            ? { type: 'function', function: { name: `tool_${i}`, parameters } }
            : format === 'messages'
              ? { name: `tool_${i}`, input_schema: parameters }
              : { type: 'function', name: `tool_${i}`, parameters },
        );
        const reply = await post(format, JSON.stringify({ ...VALID_BODIES[format], tools }));
        expectWellBehaved(format, reply, `${count} tools`);
        expect(reply.status, reply.text).toBe(400);
        if (format !== 'messages') expect(reply.json.error.code).toBe('too_many_tools');
      }),
      { numRuns: 3 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Canonical conversations survive a backend encoder and the matching client decoder

const nonEmptyText = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 24 });
const textPart: fc.Arbitrary<TextPart> = nonEmptyText.map((text) => ({ type: 'text', text }));
const identifier = fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 16 });
const argumentsJson = fc
  .dictionary(
    fc.string({ maxLength: 8 }).filter((key) => key !== '__proto__'),
    fc.jsonValue({ maxDepth: 2 }),
    { maxKeys: 4 },
  )
  .map((value) => JSON.stringify(value));
const toolCall: fc.Arbitrary<ToolCallPart> = fc.record({ type: fc.constant('tool-call' as const), id: identifier, name: identifier, arguments: argumentsJson });
const toolResult: fc.Arbitrary<ToolResultPart> = fc.record({
  type: fc.constant('tool-result' as const),
  callId: identifier,
  content: fc.array(textPart, { maxLength: 2 }),
});

const userMessage: fc.Arbitrary<Message> = fc.array(textPart, { minLength: 1, maxLength: 3 }).map((content) => ({ role: 'user', content }));
const assistantMessage: fc.Arbitrary<Message> = fc
  .array(fc.oneof(textPart, toolCall) as fc.Arbitrary<Part>, { minLength: 1, maxLength: 4 })
  .map((content) => ({ role: 'assistant', content }));
const toolMessage: fc.Arbitrary<Message> = fc.array(toolResult, { minLength: 1, maxLength: 3 }).map((content) => ({ role: 'tool', content }));

const toolSpec: fc.Arbitrary<ToolSpec> = fc.record(
  {
    name: identifier,
    description: nonEmptyText,
    parameters: fc.dictionary(identifier, fc.constantFrom({ type: 'string' }, { type: 'number' }, { type: 'boolean' }), { maxKeys: 3 }).map((properties) => ({ type: 'object', properties })),
  },
  { requiredKeys: ['name', 'parameters'] },
);

const canonicalRequest: fc.Arbitrary<CanonicalRequest> = fc
  .record(
    {
      system: fc.array(textPart, { maxLength: 2 }),
      first: userMessage,
      rest: fc.array(fc.oneof(userMessage, assistantMessage, toolMessage), { maxLength: 8 }),
      tools: fc.array(toolSpec, { maxLength: 3 }),
      toolChoice: fc.oneof(fc.constantFrom<ToolChoice>('auto', 'none', 'required'), identifier.map((name): ToolChoice => ({ name }))),
      maxOutputTokens: fc.integer({ min: 1, max: 100_000 }),
      temperature: fc.integer({ min: 0, max: 100 }).map((n) => n / 100),
      stop: fc.array(nonEmptyText, { minLength: 1, maxLength: 3 }),
    },
    { requiredKeys: ['system', 'first', 'rest', 'tools'] },
  )
  .map(({ first, rest, toolChoice, ...fields }) => {
    const request: CanonicalRequest = { model: MODEL, system: fields.system, messages: [first, ...rest], tools: fields.tools };
    // A tool choice means something only with tools; neither encoder sends one without.
    if (toolChoice !== undefined && fields.tools.length) request.toolChoice = toolChoice;
    if (fields.maxOutputTokens !== undefined) request.maxOutputTokens = fields.maxOutputTokens;
    if (fields.temperature !== undefined) request.temperature = fields.temperature;
    if (fields.stop !== undefined) request.stop = fields.stop;
    return request;
  });

interface Run {
  side: 'user' | 'assistant';
  /** The run's text parts, joined as a Chat body joins them. */
  text: string;
  calls: Array<{ id: string; name: string; args: unknown }>;
  results: Array<{ callId: string; text: string }>;
}

/**
 * What a conversation means, independent of how a wire format groups it. Equivalent conversations
 * have equal views:
 * - the system prompt is its text parts joined by blank lines (Chat sends one system message);
 * - consecutive messages on the same side form one run: user and tool messages are the user side
 *   (Anthropic puts tool results into the user turn, first, and merges adjacent turns; its
 *   decoder splits them back into a tool message and a user message);
 * - within a run, text parts are joined by blank lines (Chat joins a message's parts into one
 *   string), and tool calls and tool results keep their own order, apart from the text;
 * - tool call arguments are compared as JSON values (Anthropic sends them as an object);
 * - messages that carry nothing are left out.
 */
function conversationView(request: CanonicalRequest) {
  const runs: Run[] = [];
  const pending: Array<{ side: Run['side']; texts: string[]; calls: Run['calls']; results: Run['results'] }> = [];
  for (const message of request.messages) {
    if (message.role === 'system') throw new Error('mid-conversation system messages are not generated');
    const side = message.role === 'assistant' ? 'assistant' : 'user';
    const texts = message.content.flatMap((part) => (part.type === 'text' && part.text !== '' ? [part.text] : []));
    const calls = message.content.flatMap((part) => (part.type === 'tool-call' ? [{ id: part.id, name: part.name, args: JSON.parse(part.arguments) as unknown }] : []));
    const results = message.content.flatMap((part) =>
      part.type === 'tool-result' ? [{ callId: part.callId, text: part.content.flatMap((inner) => (inner.type === 'text' ? [inner.text] : [])).join('\n\n') }] : [],
    );
    if (!texts.length && !calls.length && !results.length) continue;
    let last = pending.at(-1);
    if (!last || last.side !== side) pending.push((last = { side, texts: [], calls: [], results: [] }));
    last.texts.push(...texts);
    last.calls.push(...calls);
    last.results.push(...results);
  }
  for (const run of pending) runs.push({ side: run.side, text: run.texts.join('\n\n'), calls: run.calls, results: run.results });
  return {
    system: request.system.map((part) => part.text).filter((text) => text !== '').join('\n\n'),
    runs,
    tools: request.tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })),
    toolChoice: request.toolChoice,
    temperature: request.temperature,
    stop: request.stop,
  };
}

describe('canonical conversations survive encode → decode', () => {
  it('through the openai-chat backend encoder and the chat client decoder', () => {
    fc.assert(
      fc.property(canonicalRequest, fc.boolean(), (request, stream) => {
        const body = JSON.parse(JSON.stringify(encodeChatRequest(request, MODEL, stream)));
        const decoded = chatFormat.decode(body, { secret: 's' });
        expect(decoded.stream).toBe(stream);
        expect(conversationView(decoded.request)).toEqual(conversationView(request));
        expect(decoded.request.maxOutputTokens).toBe(request.maxOutputTokens);
      }),
      { numRuns: 300 },
    );
  });

  it('through the anthropic backend encoder and the messages client decoder', () => {
    fc.assert(
      fc.property(canonicalRequest, fc.boolean(), (request, stream) => {
        const body = JSON.parse(JSON.stringify(encodeAnthropicRequest(request, MODEL, stream)));
        const decoded = messagesFormat.decode(body, { secret: 's' });
        expect(decoded.stream).toBe(stream);
        expect(conversationView(decoded.request)).toEqual(conversationView(request));
        // Anthropic requires max_tokens, so a request without one gets the default.
        if (request.maxOutputTokens !== undefined) expect(decoded.request.maxOutputTokens).toBe(request.maxOutputTokens);
        // Anthropic requires strict alternation, starting with the user.
        const roles = (body.messages as Array<{ role: string }>).map((message) => message.role);
        roles.forEach((role, index) => expect(role).toBe(index % 2 === 0 ? 'user' : 'assistant'));
      }),
      { numRuns: 300 },
    );
  });

  it('decoding what a client would send again is stable (decode ∘ encode is idempotent)', () => {
    fc.assert(
      fc.property(canonicalRequest, (request) => {
        const once = messagesFormat.decode(JSON.parse(JSON.stringify(encodeAnthropicRequest(request, MODEL, false))), { secret: 's' }).request;
        delete once.passthrough;
        const twice = messagesFormat.decode(JSON.parse(JSON.stringify(encodeAnthropicRequest(once, MODEL, false))), { secret: 's' }).request;
        delete twice.passthrough;
        expect(twice).toEqual(once);
      }),
      { numRuns: 200 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// The upstream SSE decoder does not depend on where the bytes were split

describe('decodeSse', () => {
  const lineText = fc.string({ unit: 'grapheme', maxLength: 30 }).filter((text) => !/[\r\n]/.test(text));
  const frame = fc.record({
    event: fc.option(lineText.filter((text) => text !== ''), { nil: undefined }),
    data: fc.array(lineText, { minLength: 1, maxLength: 3 }),
    comment: fc.boolean(),
  });

  async function collect(chunks: Uint8Array[]): Promise<SseFrame[]> {
    async function* source() {
      for (const chunk of chunks) yield chunk;
    }
    const frames: SseFrame[] = [];
    for await (const decoded of decodeSse(source())) frames.push(...decoded);
    return frames;
  }

  it('gives the same frames however the stream is cut into chunks, with any line ending', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 6 }), fc.constantFrom('\n', '\r\n', '\r'), fc.array(fc.integer({ min: 0, max: 10_000 }), { maxLength: 12 }), async (frames, eol, cuts) => {
        const text = frames
          .map((f) => (f.comment ? `: keep-alive${eol}` : '') + (f.event !== undefined ? `event: ${f.event}${eol}` : '') + f.data.map((line) => `data: ${line}${eol}`).join('') + eol)
          .join('');
        const bytes = new TextEncoder().encode(text);
        const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
        const chunks: Uint8Array[] = [];
        let start = 0;
        for (const point of [...points, bytes.length]) {
          chunks.push(bytes.slice(start, point));
          start = point;
        }
        const expected = frames.map((f) => ({ ...(f.event !== undefined ? { event: f.event } : {}), data: f.data.join('\n') }));
        expect(await collect(chunks)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
