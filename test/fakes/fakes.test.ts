import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSse, type SseFrame } from '../helpers/sse-frames.js';
import { startAnthropicUpstream } from './anthropic-upstream.js';
import type { FakeUpstream } from './fake-server.js';
import { startOpenAIChatUpstream } from './openai-chat-upstream.js';
import { splitText, type ScriptedTurn } from './scripted-turn.js';

const started: FakeUpstream[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((fake) => fake.close()));
});

async function openaiFake(script: Parameters<typeof startOpenAIChatUpstream>[0], options?: Parameters<typeof startOpenAIChatUpstream>[1]) {
  const fake = await startOpenAIChatUpstream(script, { apiKey: 'sk-test-key', ...options });
  started.push(fake);
  return { fake, client: new OpenAI({ apiKey: 'sk-test-key', baseURL: fake.url, maxRetries: 0 }) };
}

async function anthropicFake(script: Parameters<typeof startAnthropicUpstream>[0], options?: Parameters<typeof startAnthropicUpstream>[1]) {
  const fake = await startAnthropicUpstream(script, { apiKey: 'sk-ant-test', ...options });
  started.push(fake);
  return { fake, client: new Anthropic({ apiKey: 'sk-ant-test', baseURL: fake.url, maxRetries: 0 }) };
}

/** Reads an SSE body into its frames, each as its event name (if any) and data line. */
const sseFrames = async (response: Response): Promise<SseFrame[]> => parseSse(await response.text());

const WEATHER_TOOLS: OpenAI.Chat.Completions.ChatCompletionFunctionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      strict: true,
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
    },
  },
];

const PARALLEL_CALLS: ScriptedTurn = {
  toolCalls: [
    { id: 'call_paris', name: 'get_weather', arguments: { city: 'Paris' } },
    { id: 'call_tokyo', name: 'get_weather', arguments: { city: '東京' } },
  ],
  chunkSize: 3,
};

describe('splitText', () => {
  it('splits on code points, so a surrogate pair is never cut but a grapheme can be', () => {
    expect(splitText('a😀b', 1)).toEqual(['a', '😀', 'b']);
    expect(splitText('👋🏽世界', 1)).toEqual(['👋', '🏽', '世', '界']);
    expect(splitText('abcdef')).toEqual(['abcd', 'ef']);
    expect(splitText('')).toEqual([]);
  });
});

describe('OpenAI Chat fake with the official openai SDK', () => {
  it('answers a non-streaming completion with reasoning_content, usage and the request recorded', async () => {
    const { fake, client } = await openaiFake([
      { reasoning: { text: 'think first' }, text: 'Hello there', usage: { input: 120, output: 7, cached: 100 } },
    ]);
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.model).toBe('gpt-4o-mini');
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('stop');
    expect(choice.message).toMatchObject({ role: 'assistant', content: 'Hello there', reasoning_content: 'think first' });
    expect(completion.usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 7, total_tokens: 127, prompt_tokens_details: { cached_tokens: 100 } });

    expect(fake.requests).toHaveLength(1);
    const request = fake.requests[0]!;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(request.headers.authorization).toBe('Bearer sk-test-key');
    expect(request.headers['content-type']).toContain('application/json');
    expect(request.body).toEqual({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
  });

  it('returns two parallel tool calls whose arguments parse as JSON', async () => {
    const { client } = await openaiFake([PARALLEL_CALLS]);
    const completion = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'weather?' }], tools: WEATHER_TOOLS });

    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    const calls = choice.message.tool_calls!.map((call) => {
      if (call.type !== 'function') throw new Error('expected a function call');
      return { id: call.id, name: call.function.name, args: JSON.parse(call.function.arguments) };
    });
    expect(calls).toEqual([
      { id: 'call_paris', name: 'get_weather', args: { city: 'Paris' } },
      { id: 'call_tokyo', name: 'get_weather', args: { city: '東京' } },
    ]);
  });

  it('streams chunks for `for await`: role first, unicode-safe pieces, finish, usage, [DONE]', async () => {
    const text = 'Hi 👋🏽 世界!';
    const { client } = await openaiFake([{ reasoning: { text: 'hmm' }, text, chunkSize: 1, usage: { input: 10, output: 5 } }]);
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks[0]!.choices[0]!.delta).toMatchObject({ role: 'assistant', content: '' });

    const contents = chunks.map((chunk) => chunk.choices[0]?.delta.content).filter((piece): piece is string => !!piece);
    expect(contents.join('')).toBe(text);
    // The skin-tone modifier arrives in a different chunk from its emoji, yet no chunk holds half a surrogate pair.
    expect(contents).toContain('👋');
    expect(contents).toContain('🏽');
    // With the u flag a proper pair is one code point, so only a lone surrogate matches.
    expect(contents.some((piece) => /\p{Surrogate}/u.test(piece))).toBe(false);

    const reasoning = chunks.map((chunk) => (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '').join('');
    expect(reasoning).toBe('hmm');

    const finish = chunks.at(-2)!;
    expect(finish.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
  });

  it('leaves out the usage chunk unless stream_options.include_usage is set', async () => {
    const { client } = await openaiFake([{ text: 'short' }]);
    const stream = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.some((chunk) => chunk.usage)).toBe(false);
  });

  it('streams parallel tool calls that chat.completions.stream() reassembles and parses', async () => {
    const { client } = await openaiFake([PARALLEL_CALLS]);
    const runner = client.chat.completions.stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'weather?' }], tools: WEATHER_TOOLS });
    const final = await runner.finalChatCompletion();

    const choice = final.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.tool_calls).toEqual([
      { id: 'call_paris', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}', parsed_arguments: { city: 'Paris' } } },
      { id: 'call_tokyo', type: 'function', function: { name: 'get_weather', arguments: '{"city":"東京"}', parsed_arguments: { city: '東京' } } },
    ]);
  });

  it('puts id, type and name on the first delta of each tool call, then argument fragments, on the wire', async () => {
    const { fake } = await openaiFake([PARALLEL_CALLS]);
    const response = await fetch(`${fake.url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test-key', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }], stream: true }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = await sseFrames(response);
    expect(frames.at(-1)!.data).toBe('[DONE]');

    const deltas = frames.slice(0, -1).flatMap((frame) => (JSON.parse(frame.data) as ChatCompletionChunk).choices[0]!.delta.tool_calls ?? []);
    for (const index of [0, 1]) {
      const [first, ...rest] = deltas.filter((delta) => delta.index === index);
      expect(first).toMatchObject({ index, type: 'function', function: { name: 'get_weather', arguments: '' } });
      expect(first!.id).toBe(index === 0 ? 'call_paris' : 'call_tokyo');
      expect(rest.length).toBeGreaterThan(1);
      expect(rest.every((delta) => delta.id === undefined && delta.function?.name === undefined)).toBe(true);
    }
  });

  it('reassembles frames written a few bytes at a time, even through multi-byte characters', async () => {
    const text = 'Grüße 🌍 from 東京';
    const { client } = await openaiFake([{ text, chunkSize: 3 }], { fragmentBytes: 5 });
    const stream = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true });
    let received = '';
    for await (const chunk of stream) received += chunk.choices[0]?.delta.content ?? '';
    expect(received).toBe(text);
  });

  it('consumes turns in order, reuses the last, and passes the request body to a script function', async () => {
    const { client } = await openaiFake([{ text: 'one' }, { text: 'two' }]);
    const ask = async () =>
      (await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })).choices[0]!.message.content;
    expect([await ask(), await ask(), await ask()]).toEqual(['one', 'two', 'two']);

    const echo = await openaiFake((body, index) => ({ text: `${index}:${body.messages.length}` }));
    const reply = await echo.client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(reply.choices[0]!.message.content).toBe('0:1');
  });

  it('rejects a wrong key with an OpenAI-shaped 401', async () => {
    const { fake } = await openaiFake([{ text: 'unused' }]);
    const intruder = new OpenAI({ apiKey: 'sk-wrong-key-123', baseURL: fake.url, maxRetries: 0 });
    const error = await intruder.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key', type: 'invalid_request_error' });
    expect((error as Error).message).not.toContain('sk-wrong-key-123');
  });

  it('answers scripted errors with the status, headers and body given', async () => {
    const { client } = await openaiFake([{ status: 429, headers: { 'retry-after': '7' } }, { status: 502, errorBody: '<html>bad gateway</html>' }]);
    const request = () => client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);

    const limited = await request();
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect(limited).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect((limited as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe('7');

    const gateway = await request();
    expect(gateway).toBeInstanceOf(OpenAI.InternalServerError);
    expect((gateway as Error).message).toContain('bad gateway');
  });

  it('lists models', async () => {
    const { client, fake } = await openaiFake([{ text: 'unused' }], { models: ['gpt-a', 'gpt-b'] });
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(['gpt-a', 'gpt-b']);
    expect(fake.requests[0]).toMatchObject({ method: 'GET', path: '/v1/models', body: undefined });
  });
});

describe('Anthropic fake with the official Anthropic SDK', () => {
  const thinkingAndTools: ScriptedTurn = {
    reasoning: { text: 'The user wants weather for two cities.', signature: 'sig-abc123' },
    text: 'Checking both ☀️.',
    toolCalls: [
      { id: 'toolu_01paris', name: 'get_weather', arguments: { city: 'Paris', units: 'metric' } },
      { id: 'toolu_01tokyo', name: 'get_weather', arguments: { city: '東京' } },
    ],
    usage: { input: 500, output: 60, cached: 400 },
    chunkSize: 5,
  };

  it('answers messages.create with thinking, text and tool_use blocks and records the request', async () => {
    const { fake, client } = await anthropicFake([thinkingAndTools]);
    const message = await client.messages.create({
      model: 'claude-fake-1',
      max_tokens: 1024,
      thinking: { type: 'enabled', budget_tokens: 512 },
      messages: [{ role: 'user', content: 'weather in Paris and Tokyo?' }],
    });

    expect(message).toMatchObject({ type: 'message', role: 'assistant', model: 'claude-fake-1', stop_reason: 'tool_use', stop_sequence: null });
    expect(message.id).toMatch(/^msg_/);
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'The user wants weather for two cities.', signature: 'sig-abc123' },
      { type: 'text', text: 'Checking both ☀️.' },
      { type: 'tool_use', id: 'toolu_01paris', name: 'get_weather', input: { city: 'Paris', units: 'metric' }, caller: { type: 'direct' } },
      { type: 'tool_use', id: 'toolu_01tokyo', name: 'get_weather', input: { city: '東京' }, caller: { type: 'direct' } },
    ]);
    expect(message.usage).toMatchObject({ input_tokens: 100, output_tokens: 60, cache_read_input_tokens: 400, cache_creation_input_tokens: 0 });

    const request = fake.requests[0]!;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/messages' });
    // Depending on the SDK version the key travels as x-api-key or as a bearer token; the fake takes either.
    expect(request.headers['x-api-key'] ?? request.headers.authorization?.replace(/^Bearer /, '')).toBe('sk-ant-test');
    expect(request.headers['anthropic-version']).toBeTruthy();
    expect(request.body).toMatchObject({ model: 'claude-fake-1', max_tokens: 1024, thinking: { type: 'enabled' } });
  });

  it('maps stop reasons: stop → end_turn, length → max_tokens', async () => {
    const { client } = await anthropicFake([{ text: 'done' }, { text: 'cut', stop: 'length' }]);
    const ask = () => client.messages.create({ model: 'claude', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] });
    expect((await ask()).stop_reason).toBe('end_turn');
    expect((await ask()).stop_reason).toBe('max_tokens');
  });

  it('streams thinking with its signature and tool input that messages.stream().finalMessage() reassembles', async () => {
    const { client } = await anthropicFake([thinkingAndTools]);
    const stream = client.messages.stream({ model: 'claude-fake-1', max_tokens: 1024, messages: [{ role: 'user', content: 'weather?' }] });
    const textParts: string[] = [];
    stream.on('text', (delta) => textParts.push(delta));
    const message = await stream.finalMessage();

    expect(textParts.length).toBeGreaterThan(1);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toMatchObject([
      { type: 'thinking', thinking: 'The user wants weather for two cities.', signature: 'sig-abc123' },
      { type: 'text', text: 'Checking both ☀️.' },
      { type: 'tool_use', id: 'toolu_01paris', name: 'get_weather', input: { city: 'Paris', units: 'metric' } },
      { type: 'tool_use', id: 'toolu_01tokyo', name: 'get_weather', input: { city: '東京' } },
    ]);
    expect(message.usage).toMatchObject({ input_tokens: 100, output_tokens: 60, cache_read_input_tokens: 400 });
  });

  it('follows the event grammar: message_start, ping, indexed blocks, message_delta, message_stop', async () => {
    const { fake } = await anthropicFake([thinkingAndTools]);
    const response = await fetch(`${fake.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = await sseFrames(response);
    const events = frames.map((frame) => ({ name: frame.event, data: JSON.parse(frame.data) }));
    expect(events.every((event) => event.name === event.data.type)).toBe(true);

    // Collapse runs of deltas so the sequence reads as the grammar.
    const shape = events
      .map(({ data }) => (data.type === 'content_block_delta' ? `delta ${data.index} ${data.delta.type}` : data.index === undefined ? data.type : `${data.type} ${data.index}`))
      .filter((entry, i, all) => entry !== all[i - 1]);
    expect(shape).toEqual([
      'message_start',
      'content_block_start 0',
      'ping',
      'delta 0 thinking_delta',
      'delta 0 signature_delta',
      'content_block_stop 0',
      'content_block_start 1',
      'delta 1 text_delta',
      'content_block_stop 1',
      'content_block_start 2',
      'delta 2 input_json_delta',
      'content_block_stop 2',
      'content_block_start 3',
      'delta 3 input_json_delta',
      'content_block_stop 3',
      'message_delta',
      'message_stop',
    ]);

    const start = events[0]!.data;
    expect(start.message).toMatchObject({ content: [], stop_reason: null, usage: { input_tokens: 100, cache_read_input_tokens: 400 } });
    expect(events.find((e) => e.data.type === 'content_block_start' && e.data.index === 2)!.data.content_block).toMatchObject({ type: 'tool_use', input: {} });
    const toolFragments = events.filter((e) => e.data.index === 2 && e.data.delta?.type === 'input_json_delta').map((e) => e.data.delta.partial_json);
    expect(toolFragments[0]).toBe('');
    expect(JSON.parse(toolFragments.join(''))).toEqual({ city: 'Paris', units: 'metric' });
    expect(events.find((e) => e.data.type === 'message_delta')!.data).toMatchObject({ delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 60 } });
  });

  it('streams raw events through messages.create({ stream: true })', async () => {
    const { client } = await anthropicFake([{ text: 'héllo 🌍', chunkSize: 2 }]);
    const stream = await client.messages.create({ model: 'claude', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'x' }] });
    let text = '';
    const types: string[] = [];
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
    }
    expect(text).toBe('héllo 🌍');
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
  });

  it('requires a key, anthropic-version and max_tokens, with Anthropic-shaped errors', async () => {
    const { fake, client } = await anthropicFake([{ text: 'unused' }]);
    const post = (headers: Record<string, string>, body: object) =>
      fetch(`${fake.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const valid = { model: 'claude', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] };

    const noKey = await post({ 'anthropic-version': '2023-06-01' }, valid);
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });

    const bearer = await post({ authorization: 'Bearer sk-ant-test' }, valid);
    expect(bearer.status).toBe(400);
    expect(await bearer.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' } });

    const noMax = await post({ 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' }, { ...valid, max_tokens: undefined });
    expect(noMax.status).toBe(400);
    expect(await noMax.json()).toMatchObject({ error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } });

    const wrong = new Anthropic({ apiKey: 'sk-ant-wrong', baseURL: fake.url, maxRetries: 0 });
    const error = await wrong.messages.create(valid as Anthropic.MessageCreateParamsNonStreaming).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);

    // None of the rejected requests consumed a turn.
    expect((await client.messages.create(valid as Anthropic.MessageCreateParamsNonStreaming)).content).toMatchObject([{ type: 'text', text: 'unused' }]);
  });

  it('answers a scripted 529 as overloaded_error', async () => {
    const { client } = await anthropicFake([{ status: 529 }]);
    const error = await client.messages.create({ model: 'claude', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 529, error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } });
  });
});
