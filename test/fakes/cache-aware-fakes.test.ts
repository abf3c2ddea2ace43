import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSse } from '../helpers/sse-frames.js';
import { startAnthropicUpstream } from './anthropic-upstream.js';
import type { FakeUpstream } from './fake-server.js';
import { startGeminiUpstream } from './gemini-upstream.js';
import { startOpenAIChatUpstream } from './openai-chat-upstream.js';
import { startOpenAIResponsesUpstream } from './openai-responses-upstream.js';
import { MINUTE, PromptCache, firstChangedPart, manualClock } from './prompt-cache.js';

/** The fakes with the prompt cache on, over real sockets, read with the official SDKs. */

const started: FakeUpstream[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((fake) => fake.close()));
});
const track = <Fake extends FakeUpstream>(fake: Fake): Fake => (started.push(fake), fake);

/** A string whose user message serialises to exactly `tokens` tokens in the OpenAI Chat fake. */
const chatUserOf = (tokens: number, seed = 'x') => {
  const envelope = JSON.stringify({ role: 'user', content: '' }).length;
  return { role: 'user' as const, content: (seed + '.'.repeat(4 * tokens)).slice(0, 4 * tokens - envelope) };
};

describe('OpenAI Chat fake with promptCache', () => {
  async function chat(options: { promptCache?: boolean | PromptCache } = { promptCache: true }) {
    const fake = track(await startOpenAIChatUpstream([{ text: 'ok' }], { apiKey: 'sk-org', ...options }));
    return { fake, client: new OpenAI({ apiKey: 'sk-org', baseURL: fake.url, maxRetries: 0 }) };
  }

  it('reports a repeated 2,000-token prompt as 1,920 cached tokens, in the JSON reply and the final usage chunk', async () => {
    const { fake, client } = await chat();
    const messages = [chatUserOf(2000)];
    const first = await client.chat.completions.create({ model: 'gpt-4.1', messages });
    expect(first.usage).toMatchObject({ prompt_tokens: 2000, prompt_tokens_details: { cached_tokens: 0 } });
    const second = await client.chat.completions.create({ model: 'gpt-4.1', messages });
    expect(second.usage).toMatchObject({ prompt_tokens: 2000, prompt_tokens_details: { cached_tokens: 1920 } });
    const stream = await client.chat.completions.create({ model: 'gpt-4.1', messages, stream: true, stream_options: { include_usage: true } });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 2000, prompt_tokens_details: { cached_tokens: 1920 } } });
    expect(fake.prompts.map((prompt) => prompt.cachedTokens)).toEqual([0, 1920, 1920]);
    expect(fake.prompts[0]!.parts).toEqual([{ kind: 'message', label: 'messages[0]', tokens: 2000, hash: expect.any(String) }]);
  });

  it('never caches under 1,024 tokens', async () => {
    const { client } = await chat();
    const messages = [chatUserOf(1000)];
    await client.chat.completions.create({ model: 'gpt-4.1', messages });
    const again = await client.chat.completions.create({ model: 'gpt-4.1', messages });
    expect(again.usage).toMatchObject({ prompt_tokens: 1000, prompt_tokens_details: { cached_tokens: 0 } });
  });

  it('shares nothing between prompt_cache_keys, and says where a changed prompt broke', async () => {
    const { fake, client } = await chat();
    const history = [{ role: 'system' as const, content: 'Be brief.' }, chatUserOf(1500, 'a'), { role: 'assistant' as const, content: 'ok' }];
    await client.chat.completions.create({ model: 'gpt-4.1', messages: [...history, chatUserOf(300, 'b')], prompt_cache_key: 'session-1' });
    const other = await client.chat.completions.create({ model: 'gpt-4.1', messages: [...history, chatUserOf(300, 'b')], prompt_cache_key: 'session-2' });
    expect(other.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    const changed = await client.chat.completions.create({ model: 'gpt-4.1', messages: [history[0]!, chatUserOf(1500, 'A'), ...history.slice(2)], prompt_cache_key: 'session-1' });
    expect(changed.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    expect(firstChangedPart(fake.prompts[0]!, fake.prompts[2]!)).toBe(1);
    expect(fake.prompts[2]).toMatchObject({ cacheKey: 'session-1', cachedParts: 0 });
  });

  it('is off unless asked: the usual estimate, nothing cached, no records', async () => {
    const { fake, client } = await chat({});
    const messages = [chatUserOf(2000)];
    await client.chat.completions.create({ model: 'gpt-4.1', messages });
    const again = await client.chat.completions.create({ model: 'gpt-4.1', messages });
    expect(again.usage).toMatchObject({ prompt_tokens: Math.ceil(JSON.stringify(messages).length / 4), prompt_tokens_details: { cached_tokens: 0 } });
    expect(fake.prompts).toEqual([]);
  });
});

describe('OpenAI Responses fake with promptCache', () => {
  it('reports cached tokens in input_tokens_details, JSON and in response.completed; in_memory expires, 24h does not', async () => {
    const clock = manualClock();
    const fake = track(await startOpenAIResponsesUpstream([{ text: 'ok' }], { promptCache: new PromptCache({ clock }) }));
    const client = new OpenAI({ apiKey: 'sk-org', baseURL: fake.url, maxRetries: 0 });
    const request = { model: 'gpt-5', instructions: 'You are a coding agent. '.repeat(300), input: [{ role: 'user' as const, content: 'hello' }], prompt_cache_key: 'thread-1' };
    await client.responses.create(request);
    const second = await client.responses.create(request);
    const cached = Math.floor(fake.prompts[0]!.inputTokens / 128) * 128;
    expect(second.usage).toMatchObject({ input_tokens: fake.prompts[0]!.inputTokens, input_tokens_details: { cached_tokens: cached } });
    const stream = await client.responses.create({ ...request, stream: true });
    let completed: any;
    for await (const event of stream) if (event.type === 'response.completed') completed = event.response;
    expect(completed.usage).toMatchObject({ input_tokens_details: { cached_tokens: cached } });
    expect(fake.prompts[0]!.parts.map((p) => p.label)).toEqual(['instructions', 'input[0]']);

    clock.advance(5 * MINUTE);
    expect((await client.responses.create(request)).usage?.input_tokens_details.cached_tokens).toBe(0);
    await client.responses.create({ ...request, prompt_cache_retention: '24h' } as typeof request);
    clock.advance(6 * 60 * MINUTE);
    expect((await client.responses.create({ ...request, prompt_cache_retention: '24h' } as typeof request)).usage?.input_tokens_details.cached_tokens).toBe(cached);
  });
});

describe('Anthropic fake with promptCache', () => {
  const system = (ttl?: '1h') => [
    { type: 'text' as const, text: 'You are Claude Code.' },
    { type: 'text' as const, text: 'Project rules. '.repeat(400), cache_control: { type: 'ephemeral' as const, ...(ttl ? { ttl } : {}) } },
  ];
  const tools = [{ name: 'Bash', description: 'Runs a command.', input_schema: { type: 'object' as const, properties: { command: { type: 'string' } } } }];

  async function anthropic(clock = manualClock()) {
    const fake = track(await startAnthropicUpstream([{ text: 'ok' }], { apiKey: 'sk-ant-org', promptCache: new PromptCache({ clock }) }));
    return { fake, clock, client: new Anthropic({ apiKey: 'sk-ant-org', baseURL: fake.url, maxRetries: 0 }) };
  }

  it('writes tools + system at the system breakpoint, then reads them; usage and cache_creation say so', async () => {
    const { fake, client } = await anthropic();
    const first = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 100, tools, system: system(), messages: [{ role: 'user', content: 'first question' }] });
    const prefix = fake.prompts[0]!.parts.slice(0, 3).reduce((sum, p) => sum + p.tokens, 0);
    expect(first.usage).toMatchObject({
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: prefix,
      cache_creation: { ephemeral_5m_input_tokens: prefix, ephemeral_1h_input_tokens: 0 },
      input_tokens: fake.prompts[0]!.inputTokens - prefix,
    });
    const second = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 100, tools, system: system(), messages: [{ role: 'user', content: 'second question' }] });
    expect(second.usage).toMatchObject({ cache_read_input_tokens: prefix, cache_creation_input_tokens: 0, input_tokens: fake.prompts[1]!.inputTokens - prefix });
  });

  it('streams the cache counts in message_start and again in message_delta, with the 1h share apart', async () => {
    const { fake, client } = await anthropic();
    const messages = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Question. '.repeat(50), cache_control: { type: 'ephemeral' as const } }] }];
    const stream = client.messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 100, tools, system: system('1h'), messages });
    const events: any[] = [];
    for await (const event of stream) events.push(event);
    const record = fake.prompts[0]!;
    const hour = record.parts.slice(0, 3).reduce((sum, p) => sum + p.tokens, 0);
    const written = record.inputTokens;
    const start = events.find((event) => event.type === 'message_start').message.usage;
    expect(start).toMatchObject({ input_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: written, cache_creation: { ephemeral_1h_input_tokens: hour, ephemeral_5m_input_tokens: written - hour } });
    const delta = events.find((event) => event.type === 'message_delta').usage;
    expect(delta).toMatchObject({ input_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: written });
  });

  it('answers a fifth breakpoint with the API\'s 400, before the script runs', async () => {
    const { fake, client } = await anthropic();
    const marked = (text: string) => ({ type: 'text' as const, text, cache_control: { type: 'ephemeral' as const } });
    const attempt = client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 100, system: [marked('a'), marked('b'), marked('c'), marked('d')], messages: [{ role: 'user', content: [marked('e')] }] });
    await expect(attempt).rejects.toMatchObject({ status: 400, error: { type: 'error', error: { type: 'invalid_request_error', message: 'A maximum of 4 blocks with cache_control may be provided. Found 5.' } } });
    expect(fake.prompts).toEqual([]);
  });

  it('lets a 5-minute entry lapse on the clock', async () => {
    const { client, clock } = await anthropic();
    const ask = () => client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 100, tools, system: system(), messages: [{ role: 'user', content: 'q' }] });
    await ask();
    clock.advance(4 * MINUTE);
    expect((await ask()).usage.cache_read_input_tokens).toBeGreaterThan(1024);
    clock.advance(5 * MINUTE);
    expect((await ask()).usage).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: expect.any(Number) });
  });

  it('is off unless asked: five breakpoints pass, nothing is cached', async () => {
    const fake = track(await startAnthropicUpstream([{ text: 'ok' }]));
    const client = new Anthropic({ apiKey: 'sk-ant-org', baseURL: fake.url, maxRetries: 0 });
    const marked = (text: string) => ({ type: 'text' as const, text, cache_control: { type: 'ephemeral' as const } });
    const reply = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 100, system: [marked('a'), marked('b'), marked('c'), marked('d')], messages: [{ role: 'user', content: [marked('e')] }] });
    expect(reply.usage).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
    expect(fake.prompts).toEqual([]);
  });
});

describe('Gemini fake with promptCache', () => {
  const KEY = 'gemini-key';
  async function gemini() {
    const fake = track(await startGeminiUpstream([{ text: 'Sunny and warm.' }], { apiKey: KEY, promptCache: new PromptCache({ clock: manualClock() }) }));
    const post = (model: string, method: string, body: unknown) =>
      fetch(`${fake.url}/models/${model}:${method}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': KEY }, body: JSON.stringify(body) });
    return { fake, post };
  }
  const ask = (document: string, question: string) => ({
    systemInstruction: { parts: [{ text: 'Answer from the document.' }] },
    contents: [
      { role: 'user', parts: [{ text: document }] },
      { role: 'user', parts: [{ text: question }] },
    ],
  });

  it('reports implicit cache hits as cachedContentTokenCount within promptTokenCount, on every streamed chunk', async () => {
    const { fake, post } = await gemini();
    const document = 'A long shared document. '.repeat(400);
    const first = (await (await post('gemini-2.5-flash', 'generateContent', ask(document, 'Weather?'))).json()) as any;
    expect(first.usageMetadata.cachedContentTokenCount).toBeUndefined();
    const second = (await (await post('gemini-2.5-flash', 'generateContent', ask(document, 'Wind?'))).json()) as any;
    const record = fake.prompts[1]!;
    // The instruction and the document whole, and the few tokens the two questions open alike.
    const shared = record.parts.slice(0, 2).reduce((sum, p) => sum + p.tokens, 0);
    expect(shared).toBeGreaterThan(2048);
    expect(record).toMatchObject({ cachedParts: 2, cachedTokens: expect.any(Number) });
    expect(record.cachedTokens).toBeGreaterThanOrEqual(shared);
    expect(record.cachedTokens).toBeLessThan(record.inputTokens);
    expect(second.usageMetadata).toMatchObject({ promptTokenCount: record.inputTokens, cachedContentTokenCount: record.cachedTokens });
    const streamed = await post('gemini-2.5-flash', 'streamGenerateContent?alt=sse', ask(document, 'Rain?'));
    const chunks = parseSse((await streamed.text()).replace(/\r\n/g, '\n')).map((frame) => JSON.parse(frame.data));
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.usageMetadata.cachedContentTokenCount).toBe(fake.prompts[2]!.cachedTokens);
  });

  it('caches nothing below the model minimum, nor on models before 2.5', async () => {
    const { post } = await gemini();
    const short = 'A short document. '.repeat(100);
    await post('gemini-2.5-flash', 'generateContent', ask(short, 'Weather?'));
    const again = (await (await post('gemini-2.5-flash', 'generateContent', ask(short, 'Wind?'))).json()) as any;
    expect(again.usageMetadata.cachedContentTokenCount).toBeUndefined();
    const long = 'A long shared document. '.repeat(400);
    await post('gemini-2.0-flash', 'generateContent', ask(long, 'Weather?'));
    const old = (await (await post('gemini-2.0-flash', 'generateContent', ask(long, 'Wind?'))).json()) as any;
    expect(old.usageMetadata.cachedContentTokenCount).toBeUndefined();
  });
});
