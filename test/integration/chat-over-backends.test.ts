import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeServerOptions } from '../fakes/fake-server.js';
import type { Script } from '../fakes/scripted-turn.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import {
  expectOneBriefRequestUpstream,
  expectToolResultsUpstream,
  Fakes,
  metaOf,
  setRoute,
  SKU,
  streamedUpstream,
  toolExchangeOf,
  upstreamCallId,
  UPSTREAM_KINDS,
  WEATHER_SCHEMA,
  type UpstreamKind,
} from './support.js';

let router: TestRouter;
let client: OpenAI;
const fakes = new Fakes();

beforeAll(async () => {
  router = await startRouter();
  client = new OpenAI({ apiKey: router.key, baseURL: router.baseURL, maxRetries: 0 });
});
afterEach(() => fakes.closeAll());
afterAll(() => router.close());

const TOOLS: ChatCompletionFunctionTool[] = [
  { type: 'function', function: { name: 'get_weather', description: 'Current weather for a city', parameters: { ...WEATHER_SCHEMA } } },
];

const over = (kind: UpstreamKind, script: Script, options?: FakeServerOptions) => fakes.routeSku(router, kind, script, options);

async function collect(params: Omit<ChatCompletionCreateParamsNonStreaming, 'stream'> & { stream_options?: { include_usage: boolean } }) {
  const stream = await client.chat.completions.create({ ...params, stream: true });
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

const contentOf = (chunks: ChatCompletionChunk[]): string[] =>
  chunks.map((chunk) => chunk.choices[0]?.delta.content).filter((piece): piece is string => !!piece);

const reasoningOf = (value: unknown): string | undefined => (value as { reasoning_content?: string } | undefined)?.reasoning_content;

describe.each(UPSTREAM_KINDS)('chat client (openai SDK) over an %s backend', (kind) => {
  it('answers a non-streaming create with the upstream text, its usage and svc_meta', async () => {
    const { fake, backend, upstreamModel } = await over(kind, [{ text: 'Hello from upstream', usage: { input: 120, output: 9, cached: 80 } }]);
    const completion = await client.chat.completions.create({
      model: SKU,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello' },
      ],
    });

    expect(completion).toMatchObject({ object: 'chat.completion', model: SKU });
    expect(completion.choices[0]).toMatchObject({ message: { role: 'assistant', content: 'Hello from upstream' }, finish_reason: 'stop' });
    expect(completion.usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 9, total_tokens: 129, prompt_tokens_details: { cached_tokens: 80 } });
    expect(metaOf(completion)).toMatchObject({
      sku: SKU,
      backend,
      upstream_model: upstreamModel,
      attempts: 1,
      usage: { input_tokens: 120, output_tokens: 9, total_tokens: 129 },
    });
    expect(metaOf(completion).offline).toBeUndefined();

    // The router presents the backend's key, never the client's.
    expectOneBriefRequestUpstream(kind, fake, upstreamModel, router.key);
  });

  it('streams through chat.completions.stream().finalChatCompletion()', async () => {
    const text = 'Streaming works fine, thanks for asking.';
    const { fake } = await over(kind, [{ text, chunkSize: 3, usage: { input: 30, output: 6 } }]);
    const runner = client.chat.completions.stream({ model: SKU, messages: [{ role: 'user', content: 'Stream please' }] });
    const deltas: string[] = [];
    runner.on('content', (delta) => deltas.push(delta));
    const final = await runner.finalChatCompletion();

    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(text);
    expect(final.model).toBe(SKU);
    expect(final.choices[0]).toMatchObject({ message: { role: 'assistant', content: text }, finish_reason: 'stop' });
    expect(fake.requests).toHaveLength(1);
    expect(streamedUpstream(fake.requests[0]!)).toBe(true);
  });

  it('streams chunks for `for await`: one role chunk, the text, the finish, usage and svc_meta', async () => {
    const text = 'Chunk by chunk.';
    const { backend, upstreamModel } = await over(kind, [{ text, chunkSize: 2, usage: { input: 44, output: 5 } }]);
    const chunks = await collect({ model: SKU, messages: [{ role: 'user', content: 'Stream please' }], stream_options: { include_usage: true } });

    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === SKU)).toBe(true);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.role).length).toBe(1);
    expect(contentOf(chunks).join('')).toBe(text);
    expect(contentOf(chunks).length).toBeGreaterThan(1);

    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 44, completion_tokens: 5, total_tokens: 49 });
    expect(metaOf(last)).toMatchObject({ backend, upstream_model: upstreamModel, attempts: 1, usage: { input_tokens: 44, output_tokens: 5 } });
  });

  it.each([false, true])('runs a two-turn loop with two parallel tool calls whose ids round-trip (streaming: %s)', async (streaming) => {
    const answer = 'Paris is 18°C and 東京 is 24°C.';
    const { fake } = await over(kind, [
      {
        toolCalls: [
          { name: 'get_weather', arguments: { city: 'Paris' } },
          { name: 'get_weather', arguments: { city: '東京' } },
        ],
        chunkSize: 4,
      },
      { text: answer },
    ]);
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris and Tokyo?' }];
    const ask = (): Promise<ChatCompletion> =>
      streaming
        ? client.chat.completions.stream({ model: SKU, messages, tools: TOOLS }).finalChatCompletion()
        : client.chat.completions.create({ model: SKU, messages, tools: TOOLS });

    const first = await ask();
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const calls = (choice.message.tool_calls ?? []).map((call) => {
      if (call.type !== 'function') throw new Error(`unexpected tool call type ${call.type}`);
      return { id: call.id, name: call.function.name, args: JSON.parse(call.function.arguments) as { city: string } };
    });
    expect(calls.map(({ name, args }) => ({ name, args }))).toEqual([
      { name: 'get_weather', args: { city: 'Paris' } },
      { name: 'get_weather', args: { city: '東京' } },
    ]);
    expect(calls.every((call) => call.id.length > 0)).toBe(true);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);

    messages.push(choice.message);
    const results = calls.map((call) => ({ id: call.id, output: `${call.args.city}: sunny` }));
    for (const result of results) messages.push({ role: 'tool', tool_call_id: result.id, content: result.output });
    const second = await ask();

    expect(second.choices[0]).toMatchObject({ message: { content: answer }, finish_reason: 'stop' });
    expect(fake.requests).toHaveLength(2);
    const replay = fake.requests[1]!.body;
    expectToolResultsUpstream(kind, replay, results);
    expect(toolExchangeOf(kind, replay).calls).toEqual(calls.map((call) => ({ ...call, id: upstreamCallId(kind, call.id) })));
    // The tool is offered again, in the upstream's own shape.
    expect(JSON.stringify(replay.tools)).toContain('get_weather');
  });

  it('delivers unicode split across network reads intact', async () => {
    const text = 'Grüße 🌍 aus 東京 — 👋🏽 ça va? 🇫🇷';
    await over(kind, [{ text, chunkSize: 1 }], { fragmentBytes: 3 });
    const chunks = await collect({ model: SKU, messages: [{ role: 'user', content: 'unicode please' }] });
    const pieces = contentOf(chunks);
    expect(pieces.join('')).toBe(text);
    expect(pieces.some((piece) => /\p{Surrogate}/u.test(piece) || piece.includes('\uFFFD'))).toBe(false);
  });

  it('passes the upstream reasoning on as reasoning_content', async () => {
    const turn = { reasoning: { text: 'Think about greetings first.', signature: 'sig-chat-1' }, text: 'Hi!', chunkSize: 4 };
    await over(kind, [turn, turn]);
    const completion = await client.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'low' });
    expect(completion.choices[0]!.message.content).toBe('Hi!');
    expect(reasoningOf(completion.choices[0]!.message)).toBe('Think about greetings first.');

    const chunks = await collect({ model: SKU, messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'low' });
    expect(chunks.map((chunk) => reasoningOf(chunk.choices[0]?.delta) ?? '').join('')).toBe('Think about greetings first.');
    expect(contentOf(chunks).join('')).toBe('Hi!');
  });
});

describe('chat client (openai SDK) over the offline backend', () => {
  it('answers create and streams, with svc_meta naming the offline backend', async () => {
    setRoute(router, SKU, ['offline']);
    const completion = await client.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'offline ping' }] });
    expect(completion.choices[0]!.message.content).toContain('offline ping');
    expect(completion.usage!.total_tokens).toBe(completion.usage!.prompt_tokens + completion.usage!.completion_tokens);
    expect(completion.usage!.completion_tokens).toBeGreaterThan(0);
    expect(metaOf(completion)).toMatchObject({
      backend: 'offline',
      offline: true,
      upstream_model: SKU,
      attempts: 1,
      usage: { input_tokens: completion.usage!.prompt_tokens, output_tokens: completion.usage!.completion_tokens },
    });

    const final = await client.chat.completions.stream({ model: SKU, messages: [{ role: 'user', content: 'streamed 東京 👋🏽' }] }).finalChatCompletion();
    expect(final.choices[0]!.message.content).toContain('streamed 東京 👋🏽');
    expect(final.choices[0]!.finish_reason).toBe('stop');

    const chunks = await collect({ model: SKU, messages: [{ role: 'user', content: 'chunks please' }], stream_options: { include_usage: true } });
    expect(contentOf(chunks).join('')).toContain('chunks please');
    expect(metaOf(chunks.at(-1)!)).toMatchObject({ backend: 'offline', offline: true, attempts: 1 });
  });

  it('runs a two-turn tool loop: the second turn sees the tool result for the call id it issued', async () => {
    const scripted = await startRouter({ offlineScript: [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }] });
    try {
      const offline = new OpenAI({ apiKey: scripted.key, baseURL: scripted.baseURL, maxRetries: 0 });
      const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
      const first = await offline.chat.completions.stream({ model: SKU, messages, tools: TOOLS }).finalChatCompletion();
      expect(first.choices[0]!.finish_reason).toBe('tool_calls');
      const call = first.choices[0]!.message.tool_calls![0]!;
      if (call.type !== 'function') throw new Error('expected a function call');
      expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });

      messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'sunny, 18°C' });
      const second = await offline.chat.completions.create({ model: SKU, messages, tools: TOOLS });
      expect(second.choices[0]!.finish_reason).toBe('stop');
      expect(second.choices[0]!.message.content).toContain(`tool call ${call.id}`);
      expect(second.choices[0]!.message.content).toContain('sunny, 18°C');
    } finally {
      await scripted.close();
    }
  });
});

describe('same-format forwarding: chat client → openai-chat backend', () => {
  it('forwards fields the router does not model, with the model renamed to the route’s', async () => {
    const { fake, upstreamModel } = await over('openai-chat', [{ text: 'ok' }]);
    const body = {
      model: SKU,
      messages: [{ role: 'user', content: 'hi' }],
      logit_bias: { '50256': -100 },
      service_tier: 'flex',
      seed: 7,
      // A vendor extension (vLLM) that no OpenAI type knows.
      top_k: 40,
    } as ChatCompletionCreateParamsNonStreaming;
    await client.chat.completions.create(body);

    const sent = fake.requests[0]!.body;
    expect(sent).toMatchObject({ model: upstreamModel, logit_bias: { '50256': -100 }, service_tier: 'flex', seed: 7, top_k: 40 });
    expect(sent.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('forwards them when streaming too, asking the upstream for usage', async () => {
    const { fake, upstreamModel } = await over('openai-chat', [{ text: 'streamed ok', usage: { input: 11, output: 3 } }]);
    const chunks = await collect({ model: SKU, messages: [{ role: 'user', content: 'hi' }], logit_bias: { '1': 5 } });
    expect(contentOf(chunks).join('')).toBe('streamed ok');
    expect(fake.requests[0]!.body).toMatchObject({ model: upstreamModel, logit_bias: { '1': 5 }, stream: true, stream_options: { include_usage: true } });
    // The client did not ask for usage, so it gets no usage chunk; svc_meta still reports it.
    expect(chunks.some((chunk) => chunk.usage)).toBe(false);
    expect(metaOf(chunks.at(-1)!).usage).toEqual({ input_tokens: 11, output_tokens: 3, total_tokens: 14 });
  });
});

describe('chat client over an anthropic backend: Anthropic-only fields map to their nearest Chat form', () => {
  it.each([false, true])('a matched stop sequence is finish_reason stop, cache reads are cached_tokens (streaming: %s)', async (streaming) => {
    await over('anthropic', [{ text: 'Counting', usage: { input: 300, output: 9, cached: 80, cacheWrite: 100 }, anthropicStop: { reason: 'stop_sequence', sequence: '###' } }]);
    const ask = { model: SKU, messages: [{ role: 'user' as const, content: 'Count' }], stop: ['###'] };
    if (streaming) {
      const stream = await client.chat.completions.create({ ...ask, stream: true, stream_options: { include_usage: true } });
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason)).filter(Boolean)).toEqual(['stop']);
      expect(chunks.at(-1)!.usage).toMatchObject({ prompt_tokens: 300, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 80 } });
    } else {
      const completion = await client.chat.completions.create(ask);
      expect(completion.choices[0]!.finish_reason).toBe('stop');
      expect(completion.usage).toMatchObject({ prompt_tokens: 300, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 80 } });
    }
  });

  it('sends a file part as an Anthropic document block', async () => {
    const { fake } = await over('anthropic', [{ text: 'A PDF.' }]);
    await client.chat.completions.create({
      model: SKU,
      messages: [{ role: 'user', content: [{ type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0xLjQK' } }, { type: 'text', text: 'Summarise' }] }],
    });
    expect(fake.requests[0]!.body.messages[0].content[0]).toEqual({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQK' }, title: 'a.pdf' });
  });

  it('refuses an OpenAI file id with a 400 that names the part', async () => {
    const { fake } = await over('anthropic', [{ text: 'unused' }]);
    const failure = client.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-abc' } }] }] });
    await expect(failure).rejects.toMatchObject({ status: 400, message: expect.stringContaining("messages[0].content[0]: the file id 'file-abc' was issued by openai") });
    expect(fake.requests).toHaveLength(0);
  });
});
