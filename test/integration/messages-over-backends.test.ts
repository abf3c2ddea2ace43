import Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsNonStreaming, MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeServerOptions } from '../fakes/fake-server.js';
import type { Script, ScriptedTurn } from '../fakes/scripted-turn.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import {
  addBackend,
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
let client: Anthropic;
const fakes = new Fakes();

beforeAll(async () => {
  router = await startRouter();
  client = new Anthropic({ apiKey: router.key, baseURL: router.origin, maxRetries: 0 });
});
afterEach(() => fakes.closeAll());
afterAll(() => router.close());

const TOOLS: Tool[] = [{ name: 'get_weather', description: 'Current weather for a city', input_schema: { ...WEATHER_SCHEMA } }];

const over = (kind: UpstreamKind, script: Script, options?: FakeServerOptions) => fakes.routeSku(router, kind, script, options);

const textOf = (message: Message): string => message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');

/** Streams raw events through messages.create({ stream: true }), returning their types and the text deltas. */
async function rawStream(params: Omit<MessageCreateParamsNonStreaming, 'stream'>) {
  const stream = await client.messages.create({ ...params, stream: true });
  const types: string[] = [];
  const texts: string[] = [];
  for await (const event of stream) {
    types.push(event.type);
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') texts.push(event.delta.text);
  }
  return { types, texts };
}

describe.each(UPSTREAM_KINDS)('messages client (@anthropic-ai/sdk) over an %s backend', (kind) => {
  it('answers a non-streaming create with the upstream text, its usage and svc_meta', async () => {
    const { fake, backend, upstreamModel } = await over(kind, [{ text: 'Hello from upstream', usage: { input: 120, output: 9, cached: 80 } }]);
    const message = await client.messages.create({
      model: SKU,
      max_tokens: 512,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Say hello' }],
    });

    expect(message).toMatchObject({ type: 'message', role: 'assistant', model: SKU, stop_reason: 'end_turn' });
    expect(message.content).toMatchObject([{ type: 'text', text: 'Hello from upstream' }]);
    // Anthropic counts cache reads apart from input_tokens.
    expect(message.usage).toMatchObject({ input_tokens: 40, cache_read_input_tokens: 80, output_tokens: 9 });
    expect(metaOf(message)).toMatchObject({ sku: SKU, backend, upstream_model: upstreamModel, attempts: 1, usage: { input_tokens: 120, output_tokens: 9 } });

    expectOneBriefRequestUpstream(kind, fake, upstreamModel, router.key);
  });

  it('streams through messages.stream().finalMessage()', async () => {
    const text = 'Streaming works fine, thanks for asking.';
    const { fake } = await over(kind, [{ text, chunkSize: 3, usage: { input: 30, output: 6 } }]);
    const stream = client.messages.stream({ model: SKU, max_tokens: 512, messages: [{ role: 'user', content: 'Stream please' }] });
    const deltas: string[] = [];
    stream.on('text', (delta) => deltas.push(delta));
    const message = await stream.finalMessage();

    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(text);
    expect(message).toMatchObject({ model: SKU, stop_reason: 'end_turn', content: [{ type: 'text', text }] });
    expect(message.usage).toMatchObject({ input_tokens: 30, output_tokens: 6 });
    expect(streamedUpstream(fake.requests[0]!)).toBe(true);
  });

  it.each([false, true])('runs a two-turn loop with two parallel tool calls whose ids round-trip (streaming: %s)', async (streaming) => {
    const answer = 'Paris is 18°C and 東京 is 24°C.';
    const { fake } = await over(kind, [
      {
        text: 'Checking both.',
        toolCalls: [
          { name: 'get_weather', arguments: { city: 'Paris' } },
          { name: 'get_weather', arguments: { city: '東京' } },
        ],
        chunkSize: 4,
      },
      { text: answer },
    ]);
    const messages: MessageParam[] = [{ role: 'user', content: 'Weather in Paris and Tokyo?' }];
    const ask = (): Promise<Message> =>
      streaming
        ? client.messages.stream({ model: SKU, max_tokens: 1024, messages, tools: TOOLS }).finalMessage()
        : client.messages.create({ model: SKU, max_tokens: 1024, messages, tools: TOOLS });

    const first = await ask();
    expect(first.stop_reason).toBe('tool_use');
    expect(textOf(first)).toBe('Checking both.');
    const calls = first.content.flatMap((block) => (block.type === 'tool_use' ? [{ id: block.id, name: block.name, args: block.input as { city: string } }] : []));
    expect(calls.map(({ name, args }) => ({ name, args }))).toEqual([
      { name: 'get_weather', args: { city: 'Paris' } },
      { name: 'get_weather', args: { city: '東京' } },
    ]);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
    expect(calls.every((call) => call.id.length > 0)).toBe(true);

    const results = calls.map((call) => ({ id: call.id, output: `${call.args.city}: sunny` }));
    messages.push(
      { role: 'assistant', content: first.content },
      { role: 'user', content: results.map((result) => ({ type: 'tool_result' as const, tool_use_id: result.id, content: result.output })) },
    );
    const second = await ask();

    expect(second).toMatchObject({ stop_reason: 'end_turn', content: [{ type: 'text', text: answer }] });
    expect(fake.requests).toHaveLength(2);
    const replay = fake.requests[1]!.body;
    expectToolResultsUpstream(kind, replay, results);
    expect(toolExchangeOf(kind, replay).calls).toEqual(calls.map((call) => ({ ...call, id: upstreamCallId(kind, call.id) })));
    expect(JSON.stringify(replay.tools)).toContain('get_weather');
  });

  it('delivers unicode split across network reads intact', async () => {
    const text = 'Grüße 🌍 aus 東京 — 👋🏽 ça va? 🇫🇷';
    await over(kind, [{ text, chunkSize: 1 }], { fragmentBytes: 3 });
    const { types, texts } = await rawStream({ model: SKU, max_tokens: 256, messages: [{ role: 'user', content: 'unicode please' }] });
    expect(texts.join('')).toBe(text);
    expect(texts.some((piece) => /\p{Surrogate}/u.test(piece) || piece.includes('\uFFFD'))).toBe(false);
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    expect(types.filter((type) => type === 'message_start')).toHaveLength(1);
  });
});

describe('messages client (@anthropic-ai/sdk) over the offline backend', () => {
  it('answers create and streams', async () => {
    setRoute(router, SKU, ['offline']);
    const message = await client.messages.create({ model: SKU, max_tokens: 512, messages: [{ role: 'user', content: 'offline ping' }] });
    expect(message).toMatchObject({ model: SKU, stop_reason: 'end_turn' });
    expect(textOf(message)).toContain('offline ping');
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    expect(metaOf(message)).toMatchObject({ backend: 'offline', offline: true, upstream_model: SKU, attempts: 1 });

    const stream = client.messages.stream({ model: SKU, max_tokens: 512, messages: [{ role: 'user', content: 'streamed 東京 👋🏽' }] });
    let streamed = '';
    stream.on('text', (delta) => {
      streamed += delta;
    });
    const final = await stream.finalMessage();
    expect(textOf(final)).toContain('streamed 東京 👋🏽');
    expect(streamed).toBe(textOf(final));
  });

  it('runs a two-turn tool loop: the second turn sees the tool result for the call id it issued', async () => {
    const scripted = await startRouter({ offlineScript: [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }] });
    try {
      const offline = new Anthropic({ apiKey: scripted.key, baseURL: scripted.origin, maxRetries: 0 });
      const messages: MessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
      const first = await offline.messages.stream({ model: SKU, max_tokens: 512, messages, tools: TOOLS }).finalMessage();
      expect(first.stop_reason).toBe('tool_use');
      const call = first.content.find((block) => block.type === 'tool_use');
      if (call?.type !== 'tool_use') throw new Error('expected a tool_use block');
      expect(call.input).toEqual({ city: 'Paris' });

      messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'sunny, 18°C' }] });
      const second = await offline.messages.create({ model: SKU, max_tokens: 512, messages, tools: TOOLS });
      expect(second.stop_reason).toBe('end_turn');
      expect(textOf(second)).toContain(`tool call ${call.id}`);
      expect(textOf(second)).toContain('sunny, 18°C');
    } finally {
      await scripted.close();
    }
  });
});

describe('thinking from an Anthropic upstream', () => {
  const thinkingThenTool: ScriptedTurn = {
    reasoning: { text: 'The user wants the weather; call the tool.', signature: 'sig-EqQBCkYIBxgCKkA-thinking' },
    toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
    chunkSize: 5,
  };

  it.each([false, true])('reaches the client with its signature and is replayed upstream intact (streaming: %s)', async (streaming) => {
    const { fake } = await over('anthropic', [thinkingThenTool, { text: 'It is sunny in Paris.' }]);
    const messages: MessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const params = () => ({ model: SKU, max_tokens: 4096, thinking: { type: 'enabled' as const, budget_tokens: 2048 }, messages, tools: TOOLS });
    const ask = (): Promise<Message> => (streaming ? client.messages.stream(params()).finalMessage() : client.messages.create(params()));

    const first = await ask();
    expect(first.content[0]).toEqual({ type: 'thinking', thinking: 'The user wants the weather; call the tool.', signature: 'sig-EqQBCkYIBxgCKkA-thinking' });
    const call = first.content.find((block) => block.type === 'tool_use');
    if (call?.type !== 'tool_use') throw new Error('expected a tool_use block');
    expect(fake.requests[0]!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });

    messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'sunny' }] });
    const second = await ask();
    expect(textOf(second)).toBe('It is sunny in Paris.');

    const replayed = fake.requests[1]!.body.messages[1];
    expect(replayed.role).toBe('assistant');
    expect(replayed.content[0]).toMatchObject({ type: 'thinking', thinking: 'The user wants the weather; call the tool.', signature: 'sig-EqQBCkYIBxgCKkA-thinking' });
    expect(replayed.content).toContainEqual(expect.objectContaining({ type: 'tool_use', id: call.id }));
    expectToolResultsUpstream('anthropic', fake.requests[1]!.body, [{ id: call.id, output: 'sunny' }]);
  });
});

describe('same-format forwarding: messages client → anthropic backend', () => {
  it('forwards fields the router does not model, with the model renamed to the route’s', async () => {
    const { fake, upstreamModel } = await over('anthropic', [{ text: 'ok' }]);
    const body = {
      model: SKU,
      max_tokens: 300,
      top_k: 5,
      service_tier: 'standard_only',
      system: [{ type: 'text', text: 'Cached system prompt.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }],
      // A field newer than any type here.
      context_management: { edits: [] },
    } as MessageCreateParamsNonStreaming;
    const message = await client.messages.create(body);
    expect(message.model).toBe(SKU);

    const sent = fake.requests[0]!.body;
    expect(sent).toMatchObject({ model: upstreamModel, service_tier: 'standard_only', context_management: { edits: [] } });
    // The SDK sends anthropic-version 2026-10-21; a model no catalog row knows (a server that only
    // speaks the format) gets the sampling the client sent (Claude rows: anthropic-forwarding.test.ts).
    expect(sent.top_k).toBe(5);
    expect(sent.system).toEqual([{ type: 'text', text: 'Cached system prompt.', cache_control: { type: 'ephemeral' } }]);
    expect(sent.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }]);
  });

  it('forwards the anthropic-beta header, streaming or not', async () => {
    const { fake, upstreamModel } = await over('anthropic', [{ text: 'beta ok' }]);
    const betas = ['interleaved-thinking-2025-05-14', 'context-1m-2025-08-07'];
    const message = await client.beta.messages.create({ model: SKU, max_tokens: 100, betas, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content).toMatchObject([{ type: 'text', text: 'beta ok' }]);
    const streamed = await client.beta.messages.stream({ model: SKU, max_tokens: 100, betas, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
    expect(streamed.content).toMatchObject([{ type: 'text', text: 'beta ok' }]);

    expect(fake.requests).toHaveLength(2);
    for (const sent of fake.requests) {
      expect(sent.headers['anthropic-beta']).toBe(betas.join(','));
      expect(sent.headers['anthropic-version']).toBeTruthy();
      expect(sent.body.model).toBe(upstreamModel);
    }
  });

  it('keeps the client’s claude-* model when the route’s target names none', async () => {
    const fake = await fakes.start('anthropic', [{ text: 'from claude route' }]);
    addBackend(router, 'anth', 'anthropic', fake.url);
    setRoute(router, 'claude-*', ['anth']);
    try {
      const message = await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
      expect(message).toMatchObject({ model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'from claude route' }] });
      expect(metaOf(message)).toMatchObject({ backend: 'anth', upstream_model: 'claude-sonnet-4-5', attempts: 1 });
      const final = await client.messages.stream({ model: 'claude-haiku-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
      expect(final.model).toBe('claude-haiku-4-5');
      expect(fake.requests.map((sent) => sent.body.model)).toEqual(['claude-sonnet-4-5', 'claude-haiku-4-5']);
    } finally {
      router.config.update((settings) => {
        delete settings.routes['claude-*'];
      });
    }
  });
});

describe('messages client over an anthropic backend: stop and cache fields arrive exactly as Anthropic sent them', () => {
  const STOPPED: ScriptedTurn = { text: 'Counting: 1, 2, 3', usage: { input: 300, output: 9, cached: 80, cacheWrite: 100 }, anthropicStop: { reason: 'stop_sequence', sequence: '###' } };
  const ASK = { model: SKU, max_tokens: 256, messages: [{ role: 'user' as const, content: 'Count' }], stop_sequences: ['###'] };

  it('keeps stop_sequence with the matched sequence and cache_creation_input_tokens (JSON)', async () => {
    await over('anthropic', [STOPPED]);
    const message = await client.messages.create(ASK);
    expect(message).toMatchObject({
      stop_reason: 'stop_sequence',
      stop_sequence: '###',
      usage: { input_tokens: 120, cache_creation_input_tokens: 100, cache_read_input_tokens: 80, output_tokens: 9 },
    });
  });

  it('keeps them streamed: message_start and message_delta carry the cache counts, message_delta the stop', async () => {
    await over('anthropic', [STOPPED]);
    const stream = await client.messages.create({ ...ASK, stream: true });
    const events: Array<{ type: string; [key: string]: any }> = [];
    for await (const event of stream) events.push(event);
    expect(events.find((event) => event.type === 'message_start')!.message.usage).toMatchObject({ input_tokens: 120, cache_creation_input_tokens: 100, cache_read_input_tokens: 80 });
    expect(events.find((event) => event.type === 'message_delta')).toMatchObject({
      delta: { stop_reason: 'stop_sequence', stop_sequence: '###' },
      usage: { input_tokens: 120, cache_creation_input_tokens: 100, cache_read_input_tokens: 80, output_tokens: 9 },
    });
  });

  it.each([
    ['pause_turn', false],
    ['pause_turn', true],
    ['refusal', false],
    ['refusal', true],
  ])('keeps %s (streaming: %s)', async (reason, streaming) => {
    await over('anthropic', [{ text: 'Partial', anthropicStop: { reason } }]);
    const message = streaming ? await client.messages.stream(ASK).finalMessage() : await client.messages.create(ASK);
    expect(message).toMatchObject({ stop_reason: reason, stop_sequence: null });
  });
});

describe('messages client over an openai-chat backend: what it cannot honour is named', () => {
  it('lists top_k in svc_meta.warnings and keeps the stop sequence it did send', async () => {
    const { fake } = await over('openai-chat', [{ text: 'Hi' }]);
    // top_k, which this SDK version does not type, as Claude Code and older SDKs send it.
    const params = { model: SKU, max_tokens: 64, top_k: 40, stop_sequences: ['###'], messages: [{ role: 'user', content: 'Hi' }] } as MessageCreateParamsNonStreaming;
    const message = await client.messages.create(params);
    expect(metaOf(message).warnings).toEqual(['top_k not sent: OpenAI has no such setting.']);
    expect(fake.requests[0]!.body).toMatchObject({ stop: ['###'] });
    expect(fake.requests[0]!.body).not.toHaveProperty('top_k');
  });

  it('sends a PDF document block as a Chat file part', async () => {
    const { fake } = await over('openai-chat', [{ text: 'A one-page PDF.' }]);
    await client.messages.create({
      model: SKU,
      max_tokens: 64,
      messages: [{ role: 'user', content: [{ type: 'document', title: 'a.pdf', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQK' } }, { type: 'text', text: 'Summarise' }] }],
    });
    expect(fake.requests[0]!.body.messages.at(-1).content).toEqual([
      { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0xLjQK' } },
      { type: 'text', text: 'Summarise' },
    ]);
  });
});
