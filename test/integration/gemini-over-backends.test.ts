import Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageParam, Tool as AnthropicTool } from '@anthropic-ai/sdk/resources/messages';
import OpenAI, { APIError } from 'openai';
import type { ChatCompletion, ChatCompletionFunctionTool, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { FunctionTool, Response, ResponseInputItem } from 'openai/resources/responses/responses';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicUpstream } from '../fakes/anthropic-upstream.js';
import type { FakeUpstream } from '../fakes/fake-server.js';
import { startGeminiUpstream, type GeminiTurn, type GeminiUpstream } from '../fakes/gemini-upstream.js';
import type { Script } from '../fakes/scripted-turn.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { addBackend, metaOf, setRoute, SKU, UPSTREAM_KEY, WEATHER_SCHEMA } from './support.js';

/** The three client formats over a `gemini` backend whose upstream is the fake Gemini API. */

let router: TestRouter;
let openai: OpenAI;
let anthropic: Anthropic;
const open: FakeUpstream[] = [];
const UPSTREAM_MODEL = 'gemini-3-pro-fake';

beforeAll(async () => {
  router = await startRouter();
  openai = new OpenAI({ apiKey: router.key, baseURL: router.baseURL, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: router.key, baseURL: router.origin, maxRetries: 0 });
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((fake) => fake.close()));
});
afterAll(() => router.close());

async function overGemini(script: Script, options: { callIds?: boolean; fragmentBytes?: number } = {}): Promise<GeminiUpstream> {
  const fake = await startGeminiUpstream(script, { apiKey: UPSTREAM_KEY, ...options });
  open.push(fake);
  const backend = addBackend(router, 'up-gemini', 'gemini', fake.url);
  setRoute(router, SKU, [`${backend}:${UPSTREAM_MODEL}`]);
  return fake;
}

const path = (fake: GeminiUpstream, index: number): string => fake.requests[index]!.path;

/** Every functionCall and functionResponse part the upstream was sent, in order. */
function wireExchange(body: any) {
  const calls: Array<{ name: string; args: unknown; id?: string; thoughtSignature?: string }> = [];
  const results: Array<{ name: string; response: unknown; id?: string }> = [];
  for (const content of body.contents) {
    for (const part of content.parts) {
      if (part.functionCall) {
        expect(content.role).toBe('model');
        calls.push({ ...part.functionCall, ...(part.thoughtSignature ? { thoughtSignature: part.thoughtSignature } : {}) });
      }
      if (part.functionResponse) {
        expect(content.role).toBe('user');
        results.push(part.functionResponse);
      }
    }
  }
  return { calls, results };
}

const TWO_CALLS: GeminiTurn = {
  toolCalls: [
    { name: 'get_weather', arguments: { city: 'Paris' } },
    { name: 'get_weather', arguments: { city: '東京' } },
  ],
  usage: { input: 50, output: 30 },
  thoughtsTokens: 20,
  chunkSize: 4,
};
const ANSWER = 'Paris is 18°C and 東京 is 24°C.';

/**
 * What the second request of a tool loop must hold: the two calls replayed as functionCall parts,
 * the first with the very signature Gemini issued on it, the second with none (Gemini signs only
 * the first of parallel calls), and the results as functionResponse parts named for their calls.
 */
function expectLoopReplayed(fake: GeminiUpstream): void {
  expect(fake.requests).toHaveLength(2);
  expect(fake.signatures.length).toBeGreaterThanOrEqual(1);
  const { calls, results } = wireExchange(fake.requests[1]!.body);
  expect(calls).toEqual([
    { name: 'get_weather', args: { city: 'Paris' }, thoughtSignature: fake.signatures[0] },
    { name: 'get_weather', args: { city: '東京' } },
  ]);
  expect(results).toEqual([
    { name: 'get_weather', response: { output: 'Paris: sunny' } },
    { name: 'get_weather', response: { output: '東京: sunny' } },
  ]);
  // The tool's schema reached Gemini in its own subset (the fake refuses additionalProperties).
  expect(fake.requests[1]!.body.tools).toEqual([
    { functionDeclarations: [{ name: 'get_weather', description: 'Current weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }] },
  ]);
}

describe('chat client (openai SDK) over a gemini backend', () => {
  const TOOLS: ChatCompletionFunctionTool[] = [{ type: 'function', function: { name: 'get_weather', description: 'Current weather for a city', parameters: { ...WEATHER_SCHEMA } } }];

  it('answers a non-streaming create with the text and usage, cached and thought tokens included', async () => {
    const fake = await overGemini([{ text: 'Hello from Gemini', usage: { input: 120, output: 9, cached: 80 }, thoughtsTokens: 4 } as GeminiTurn]);
    const completion = await openai.chat.completions.create({
      model: SKU,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello' },
      ],
    });

    expect(completion.choices[0]).toMatchObject({ message: { role: 'assistant', content: 'Hello from Gemini' }, finish_reason: 'stop' });
    expect(completion.usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 9, total_tokens: 129, prompt_tokens_details: { cached_tokens: 80 } });
    expect(metaOf(completion)).toMatchObject({ backend: 'up-gemini', upstream_model: UPSTREAM_MODEL, usage: { input_tokens: 120, output_tokens: 9 } });

    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0]!;
    expect(path(fake, 0)).toBe(`/v1beta/models/${UPSTREAM_MODEL}:generateContent`);
    expect(sent.headers['x-goog-api-key']).toBe(UPSTREAM_KEY);
    expect(JSON.stringify(sent.headers)).not.toContain(router.key);
    expect(sent.body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Say hello' }] }], systemInstruction: { parts: [{ text: 'Be brief.' }] } });
  });

  it('streams the text and ends with usage, from streamGenerateContent?alt=sse', async () => {
    const text = 'Streaming works fine, thanks for asking.';
    const fake = await overGemini([{ text, chunkSize: 3, usage: { input: 44, output: 12 }, thoughtsTokens: 2 } as GeminiTurn], { fragmentBytes: 7 });
    const stream = await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'Stream please' }], stream: true, stream_options: { include_usage: true } });
    const pieces: string[] = [];
    let last;
    for await (const chunk of stream) {
      const piece = chunk.choices[0]?.delta.content;
      if (piece) pieces.push(piece);
      last = chunk;
    }
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(text);
    expect(last!.usage).toMatchObject({ prompt_tokens: 44, completion_tokens: 12 });
    expect(path(fake, 0)).toBe(`/v1beta/models/${UPSTREAM_MODEL}:streamGenerateContent?alt=sse`);
  });

  it.each([false, true])('runs a tool loop whose replay puts the thought signature back on its call (streaming: %s)', async (streaming) => {
    const fake = await overGemini([TWO_CALLS, { text: ANSWER }]);
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris and Tokyo?' }];
    const ask = (): Promise<ChatCompletion> =>
      streaming
        ? openai.chat.completions.stream({ model: SKU, messages, tools: TOOLS, stream_options: { include_usage: true } }).finalChatCompletion()
        : openai.chat.completions.create({ model: SKU, messages, tools: TOOLS });

    const first = await ask();
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    const calls = (first.choices[0]!.message.tool_calls ?? []).flatMap((call) => (call.type === 'function' ? [call] : []));
    expect(calls.map((call) => [call.function.name, JSON.parse(call.function.arguments)])).toEqual([
      ['get_weather', { city: 'Paris' }],
      ['get_weather', { city: '東京' }],
    ]);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
    expect(first.usage).toMatchObject({ prompt_tokens: 50, completion_tokens: 30 });

    messages.push(first.choices[0]!.message as ChatCompletionMessageParam);
    for (const call of calls) messages.push({ role: 'tool', tool_call_id: call.id, content: `${(JSON.parse(call.function.arguments) as { city: string }).city}: sunny` });
    const second = await ask();
    expect(second.choices[0]!.message.content).toBe(ANSWER);
    expectLoopReplayed(fake);
  });

  it('passes a Gemini 429 on as a 429', async () => {
    await overGemini([{ status: 429 }]);
    const failure = await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(APIError);
    expect((failure as APIError).status).toBe(429);
  });

  it.each([false, true])('reports a key Gemini refuses as the backend’s fault, not the client’s (streaming: %s)', async (streaming) => {
    const fake = await startGeminiUpstream([{ text: 'never' }], { apiKey: 'the-right-key-0123456789' });
    open.push(fake);
    addBackend(router, 'up-gemini', 'gemini', fake.url, 'a-wrong-key-0123456789');
    setRoute(router, SKU, ['up-gemini:gemini-fake']);
    const failure = await (streaming
      ? openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'hi' }], stream: true }).then(async (stream) => {
          for await (const _chunk of stream);
        })
      : openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'hi' }] })
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(APIError);
    expect((failure as APIError).status).toBe(502);
    expect((failure as APIError).message).toContain("Backend 'up-gemini' rejected its API key");
    expect((failure as APIError).message).not.toContain('a-wrong-key');
  });

  it('answers a prompt Gemini blocked as stopped by the content filter', async () => {
    await overGemini([{ blockReason: 'PROHIBITED_CONTENT', usage: { input: 9, output: 0 } } as GeminiTurn]);
    const completion = await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'something blocked' }] });
    expect(completion.choices[0]!.finish_reason).toBe('content_filter');
  });
});

describe('messages client (anthropic SDK) over a gemini backend', () => {
  const TOOLS: AnthropicTool[] = [{ name: 'get_weather', description: 'Current weather for a city', input_schema: { ...WEATHER_SCHEMA } }];

  it('answers create and streams, with usage', async () => {
    const fake = await overGemini([
      { text: 'Hello from Gemini', usage: { input: 120, output: 9, cached: 80 } },
      { text: 'Streamed from Gemini', chunkSize: 3, usage: { input: 20, output: 5 } },
    ]);
    const created = await anthropic.messages.create({ model: SKU, max_tokens: 256, system: 'Be brief.', messages: [{ role: 'user', content: 'Say hello' }] });
    expect(created).toMatchObject({ stop_reason: 'end_turn', content: [{ type: 'text', text: 'Hello from Gemini' }] });
    // Anthropic counts cache reads apart from input_tokens.
    expect(created.usage).toMatchObject({ input_tokens: 40, cache_read_input_tokens: 80, output_tokens: 9 });
    expect(fake.requests[0]!.body.generationConfig).toEqual({ maxOutputTokens: 256 });

    const streamed = await anthropic.messages.stream({ model: SKU, max_tokens: 256, messages: [{ role: 'user', content: 'Stream please' }] }).finalMessage();
    expect(streamed).toMatchObject({ stop_reason: 'end_turn', content: [{ type: 'text', text: 'Streamed from Gemini' }] });
    expect(streamed.usage).toMatchObject({ input_tokens: 20, output_tokens: 5 });
  });

  it.each([false, true])('shows Gemini thoughts as thinking that carries no Anthropic signature (streaming: %s)', async (streaming) => {
    await overGemini([{ reasoning: { text: 'Think, then answer.' }, text: 'Answer.', chunkSize: 5, usage: { input: 10, output: 30 }, thoughtsTokens: 20 } as GeminiTurn]);
    const params = { model: SKU, max_tokens: 4096, thinking: { type: 'enabled' as const, budget_tokens: 2048 }, messages: [{ role: 'user' as const, content: 'Think' }] };
    const message = streaming ? await anthropic.messages.stream(params).finalMessage() : await anthropic.messages.create(params);
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'Think, then answer.', signature: '' },
      expect.objectContaining({ type: 'text', text: 'Answer.' }),
    ]);
  });

  it.each([false, true])('runs a tool loop whose replay puts the thought signature back on its call (streaming: %s)', async (streaming) => {
    const fake = await overGemini([TWO_CALLS, { text: ANSWER }]);
    const messages: MessageParam[] = [{ role: 'user', content: 'Weather in Paris and Tokyo?' }];
    const ask = (): Promise<Message> =>
      streaming ? anthropic.messages.stream({ model: SKU, max_tokens: 1024, messages, tools: TOOLS }).finalMessage() : anthropic.messages.create({ model: SKU, max_tokens: 1024, messages, tools: TOOLS });

    const first = await ask();
    expect(first.stop_reason).toBe('tool_use');
    const calls = first.content.flatMap((block) => (block.type === 'tool_use' ? [block] : []));
    expect(calls.map((call) => call.input)).toEqual([{ city: 'Paris' }, { city: '東京' }]);
    // Ids stay within the pattern Anthropic requires of tool_use ids.
    for (const call of calls) expect(call.id).toMatch(/^[A-Za-z0-9_-]+$/);

    messages.push(
      { role: 'assistant', content: first.content },
      { role: 'user', content: calls.map((call) => ({ type: 'tool_result' as const, tool_use_id: call.id, content: `${(call.input as { city: string }).city}: sunny` })) },
    );
    const second = await ask();
    expect(second.content).toEqual([expect.objectContaining({ type: 'text', text: ANSWER })]);
    expectLoopReplayed(fake);
  });
});

describe('responses client (openai SDK) over a gemini backend', () => {
  const TOOL: FunctionTool = { type: 'function', name: 'get_weather', description: 'Current weather for a city', strict: true, parameters: { ...WEATHER_SCHEMA } };

  it.each([false, true])('answers with the text and usage (streaming: %s)', async (streaming) => {
    const fake = await overGemini([{ text: 'Hello from Gemini', chunkSize: 4, usage: { input: 120, output: 9, cached: 80 }, thoughtsTokens: 4 } as GeminiTurn]);
    const params = { model: SKU, instructions: 'Be brief.', input: 'Say hello' };
    const response = streaming ? await openai.responses.stream(params).finalResponse() : await openai.responses.create(params);
    expect(response.output_text).toBe('Hello from Gemini');
    expect(response.usage).toMatchObject({ input_tokens: 120, output_tokens: 9, input_tokens_details: { cached_tokens: 80 }, output_tokens_details: { reasoning_tokens: 4 } });
    expect(fake.requests[0]!.body.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }] });
  });

  it.each([false, true])('runs a tool loop whose replay puts the thought signature back on its call (streaming: %s)', async (streaming) => {
    const fake = await overGemini([TWO_CALLS, { text: ANSWER }]);
    let input: ResponseInputItem[] = [{ role: 'user', content: 'Weather in Paris and Tokyo?' }];
    const ask = (): Promise<Response> =>
      streaming ? openai.responses.stream({ model: SKU, input, tools: [TOOL] }).finalResponse() : openai.responses.create({ model: SKU, input, tools: [TOOL] });

    const first = await ask();
    const calls = first.output.flatMap((item) => (item.type === 'function_call' ? [item] : []));
    expect(calls.map((call) => JSON.parse(call.arguments))).toEqual([{ city: 'Paris' }, { city: '東京' }]);

    input = [
      ...input,
      ...(first.output as ResponseInputItem[]),
      ...calls.map((call): ResponseInputItem => ({ type: 'function_call_output', call_id: call.call_id, output: `${(JSON.parse(call.arguments) as { city: string }).city}: sunny` })),
    ];
    const second = await ask();
    expect(second.output_text).toBe(ANSWER);
    expectLoopReplayed(fake);
  });

  it.each([false, true])('replays a signed thought summary, sealed in the reasoning item, with its signature (streaming: %s)', async (streaming) => {
    const fake = await overGemini([{ reasoning: { text: 'Weigh both.' }, signThoughts: true, text: 'Both.', chunkSize: 4 } as GeminiTurn, { text: 'Again.' }]);
    const params = { model: SKU, input: 'Compare', reasoning: { effort: 'low' as const }, include: ['reasoning.encrypted_content' as const] };
    const first = streaming ? await openai.responses.stream(params).finalResponse() : await openai.responses.create(params);
    const reasoning = first.output.flatMap((item) => (item.type === 'reasoning' ? [item] : []));
    expect(reasoning[0]?.encrypted_content).toBeTruthy();
    await openai.responses.create({ ...params, input: [{ role: 'user', content: 'Compare' }, ...(first.output as ResponseInputItem[]), { role: 'user', content: 'Again' }] });
    const model = fake.requests[1]!.body.contents.find((content: { role: string }) => content.role === 'model');
    expect(model.parts[0]).toEqual({ text: 'Weigh both.', thought: true, thoughtSignature: fake.signatures[0] });
  });

  it('echoes the function call ids Gemini gave back on the calls and their responses', async () => {
    const fake = await overGemini([{ ...TWO_CALLS, toolCalls: TWO_CALLS.toolCalls!.map((call, index) => ({ ...call, id: `fc-${index}` })) }, { text: ANSWER }], { callIds: true });
    const first = await openai.responses.create({ model: SKU, input: 'Weather?', tools: [TOOL] });
    const calls = first.output.flatMap((item) => (item.type === 'function_call' ? [item] : []));
    await openai.responses.create({
      model: SKU,
      tools: [TOOL],
      input: ['Weather?', ...first.output, ...calls.map((call) => ({ type: 'function_call_output', call_id: call.call_id, output: 'sunny' }))].map((item) =>
        typeof item === 'string' ? ({ role: 'user', content: item } as ResponseInputItem) : (item as ResponseInputItem),
      ),
    });
    const { calls: replayed, results } = wireExchange(fake.requests[1]!.body);
    expect(replayed.map((call) => call.id)).toEqual(['fc-0', 'fc-1']);
    expect(results.map((result) => result.id)).toEqual(['fc-0', 'fc-1']);
  });
});

describe('Gemini reasoning replayed to another upstream', () => {
  const THINK_AND_CALL: GeminiTurn = { reasoning: { text: 'Paris first.' }, toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }], usage: { input: 10, output: 20 }, thoughtsTokens: 12 };

  /** Routes the SKU to a fresh Anthropic fake, as a fallback or a config change would mid-conversation. */
  async function switchToAnthropic(): Promise<FakeUpstream> {
    const claude = await startAnthropicUpstream([{ text: 'Done.' }], { apiKey: UPSTREAM_KEY });
    open.push(claude);
    addBackend(router, 'up-claude', 'anthropic', claude.url);
    setRoute(router, SKU, ['up-claude:claude-fake']);
    return claude;
  }

  it('reaches Anthropic from a messages client never as a signed thinking block', async () => {
    await overGemini([THINK_AND_CALL]);
    const tools: AnthropicTool[] = [{ name: 'get_weather', input_schema: { ...WEATHER_SCHEMA } }];
    const messages: MessageParam[] = [{ role: 'user', content: 'Weather?' }];
    const first = await anthropic.messages.create({ model: SKU, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 }, messages, tools });
    expect(first.content[0]).toEqual({ type: 'thinking', thinking: 'Paris first.', signature: '' });
    const call = first.content.find((block) => block.type === 'tool_use')!;

    const claude = await switchToAnthropic();
    messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'sunny' }] });
    await anthropic.messages.create({ model: SKU, max_tokens: 4096, messages, tools });
    // Same-format forwarding sends the client's blocks as they are, but for the thinking the client
    // was shown without a signature (Gemini's, which Anthropic cannot read): its text, plain, so
    // nothing of Gemini's poses as Anthropic's.
    const replayed: Array<{ type: string; id?: string; text?: string }> = claude.requests[0]!.body.messages[1].content;
    expect(replayed.filter((block) => block.type === 'thinking')).toEqual([]);
    expect(replayed[0]).toEqual({ type: 'text', text: 'Paris first.' });
    expect(replayed.find((block) => block.type === 'tool_use')?.id).toBe(call.id);
  });

  it('reaches Anthropic from a responses client, sealed reasoning included, as no thinking block', async () => {
    await overGemini([THINK_AND_CALL]);
    const tool: FunctionTool = { type: 'function', name: 'get_weather', strict: false, parameters: { ...WEATHER_SCHEMA } };
    const first = await openai.responses.create({ model: SKU, input: 'Weather?', tools: [tool], reasoning: { effort: 'low' }, include: ['reasoning.encrypted_content'] });
    const reasoning = first.output.find((item) => item.type === 'reasoning');
    expect(reasoning).toBeDefined();
    const call = first.output.find((item) => item.type === 'function_call')!;

    const claude = await switchToAnthropic();
    await openai.responses.create({
      model: SKU,
      tools: [tool],
      input: [{ role: 'user', content: 'Weather?' }, ...(first.output as ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: 'sunny' }],
    });
    const sent = JSON.stringify(claude.requests[0]!.body.messages);
    expect(sent).not.toContain('"thinking"');
    expect(sent).not.toContain('redacted_thinking');
  });
});
