import { FunctionCallingConfigMode, GoogleGenAI, type Content, type GenerateContentResponse } from '@google/genai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readToolCallId } from '../../src/backends/gemini/tool-call-id.js';
import type { FakeServerOptions } from '../fakes/fake-server.js';
import type { Script } from '../fakes/scripted-turn.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { expectOneBriefRequestUpstream, expectToolResultsUpstream, Fakes, metaOf, SKU, streamedUpstream, toolExchangeOf, upstreamCallId, UPSTREAM_KINDS, WEATHER_SCHEMA, type UpstreamKind } from './support.js';

/**
 * The Gemini door with Google's own SDK (@google/genai) as the client, over every backend type:
 * translated to the OpenAI Chat, Anthropic and OpenAI Responses upstreams, forwarded as it came to
 * a Gemini upstream.
 */

let router: TestRouter;
let ai: GoogleGenAI;
const fakes = new Fakes();

beforeAll(async () => {
  router = await startRouter();
  ai = new GoogleGenAI({ apiKey: router.key, httpOptions: { baseUrl: router.origin } });
});
afterEach(() => fakes.closeAll());
afterAll(() => router.close());

const over = (kind: UpstreamKind, script: Script, options?: FakeServerOptions) => fakes.routeSku(router, kind, script, options);
const WEATHER = { functionDeclarations: [{ name: 'get_weather', description: 'Current weather for a city', parametersJsonSchema: WEATHER_SCHEMA }] };
const textOf = (response: GenerateContentResponse): string => (response.candidates?.[0]?.content?.parts ?? []).filter((part) => !part.thought && part.text).map((part) => part.text).join('');

describe.each(UPSTREAM_KINDS)('Gemini client (@google/genai) over an %s backend', (kind) => {
  it('answers generateContent with the upstream text, usage, the model asked for and svc_meta', async () => {
    const { fake, backend, upstreamModel } = await over(kind, [{ text: 'Hello from upstream', usage: { input: 120, output: 9, cached: 80 } }]);
    const response = await ai.models.generateContent({ model: SKU, contents: 'Say hello', config: { systemInstruction: 'Be brief.' } });

    expect(response.text).toBe('Hello from upstream');
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
    expect(response.modelVersion).toBe(SKU);
    // Gemini counts the whole prompt, the cached part within it.
    expect(response.usageMetadata).toMatchObject({ promptTokenCount: 120, cachedContentTokenCount: 80, candidatesTokenCount: 9, totalTokenCount: 129 });
    const raw = (await (await fetch(`${router.origin}/v1beta/models/${SKU}:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': router.key }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Say hello' }] }], systemInstruction: { parts: [{ text: 'Be brief.' }] } }) })).json()) as object;
    expect(metaOf(raw)).toMatchObject({ sku: SKU, backend, upstream_model: upstreamModel, attempts: 1, usage: { input_tokens: 120, output_tokens: 9 } });
    fake.requests.splice(1);
    expectOneBriefRequestUpstream(kind, fake, upstreamModel, router.key);
  });

  it('streams through generateContentStream, text in pieces, the usage last', async () => {
    const text = 'Streaming works fine, thanks for asking.';
    const { fake } = await over(kind, [{ text, chunkSize: 3, usage: { input: 30, output: 6 } }]);
    const pieces: string[] = [];
    let last: GenerateContentResponse | undefined;
    for await (const chunk of await ai.models.generateContentStream({ model: SKU, contents: 'Stream please' })) {
      if (chunk.text) pieces.push(chunk.text);
      last = chunk;
    }
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(text);
    expect(last?.candidates?.[0]?.finishReason).toBe('STOP');
    expect(last?.usageMetadata).toMatchObject({ promptTokenCount: 30, candidatesTokenCount: 6 });
    expect(streamedUpstream(fake.requests[0]!)).toBe(true);
  });

  it.each([false, true])('runs a two-turn loop with two parallel function calls whose ids round-trip (streaming: %s)', async (streaming) => {
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
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'Weather in Paris and Tokyo?' }] }];
    const ask = async (): Promise<Content> => {
      const config = { tools: [WEATHER], toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } } };
      if (!streaming) return (await ai.models.generateContent({ model: SKU, contents, config })).candidates![0]!.content!;
      // A stream's parts, as the SDK's chat keeps them: every chunk's parts in order.
      const parts: NonNullable<Content['parts']> = [];
      for await (const chunk of await ai.models.generateContentStream({ model: SKU, contents, config })) parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
      return { role: 'model', parts };
    };

    const first = await ask();
    const calls = (first.parts ?? []).flatMap((part) => (part.functionCall ? [part.functionCall] : []));
    expect(calls.map(({ name, args }) => ({ name, args }))).toEqual([
      { name: 'get_weather', args: { city: 'Paris' } },
      { name: 'get_weather', args: { city: '東京' } },
    ]);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
    expect((first.parts ?? []).filter((part) => part.text).map((part) => part.text).join('')).toBe('Checking both.');

    const results = calls.map((call) => ({ id: call.id!, output: `${(call.args as { city: string }).city}: sunny` }));
    contents.push(first, { role: 'user', parts: calls.map((call, index) => ({ functionResponse: { id: call.id!, name: call.name!, response: { output: results[index]!.output } } })) });
    const second = await ask();
    expect((second.parts ?? []).map((part) => part.text ?? '').join('')).toBe(answer);

    // The upstream saw its own calls replayed, in its own shape, and the results matched to them.
    const replayedCalls = toolExchangeOf(kind, fake.requests[1]!.body).calls;
    expect(replayedCalls.map((call) => call.id)).toEqual(calls.map((call) => upstreamCallId(kind, call.id!)));
    expectToolResultsUpstream(kind, fake.requests[1]!.body, results);
  });

  it('holds the model to a function when the client names one (ANY with one allowed name)', async () => {
    const { fake } = await over(kind, [{ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }]);
    const response = await ai.models.generateContent({
      model: SKU,
      contents: 'Weather in Oslo?',
      config: { tools: [WEATHER], toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ['get_weather'] } } },
    });
    expect(response.functionCalls?.[0]).toMatchObject({ name: 'get_weather', args: { city: 'Oslo' } });
    const body = fake.requests[0]!.body;
    const forced = {
      'openai-chat': () => expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } }),
      anthropic: () => expect(body.tool_choice).toMatchObject({ type: 'tool', name: 'get_weather' }),
      'openai-responses': () => expect(body.tool_choice).toMatchObject({ type: 'function', name: 'get_weather' }),
      gemini: () => expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } }),
    };
    forced[kind]();
  });

  it('answers structured output with JSON that reached the upstream as a schema', async () => {
    const { fake } = await over(kind, [{ text: '{"city":"Paris"}' }]);
    const response = await ai.models.generateContent({ model: SKU, contents: 'Pick a city', config: { responseMimeType: 'application/json', responseJsonSchema: WEATHER_SCHEMA } });
    expect(JSON.parse(response.text!)).toEqual({ city: 'Paris' });
    expect(JSON.stringify(fake.requests[0]!.body)).toContain('"city"');
  });

  it('counts tokens for the route', async () => {
    await over(kind, [{ text: 'unused' }]);
    const counted = await ai.models.countTokens({ model: SKU, contents: 'How many tokens is this sentence, roughly?' });
    expect(counted.totalTokens).toBeGreaterThan(0);
  });
});

describe("a Gemini client's usage", () => {
  it.each([
    ['translated', 'anthropic'],
    ['forwarded', 'gemini'],
  ] as const)('is recorded once per call, streamed and not (%s)', async (_way, kind) => {
    await over(kind, [{ text: 'Counted.', usage: { input: 40, output: 7 } }]);
    const before = await router.app.ledger.summary('alice', Date.now(), true);
    await ai.models.generateContent({ model: SKU, contents: 'Count me' });
    for await (const _chunk of await ai.models.generateContentStream({ model: SKU, contents: 'Count me' }));
    const after = await router.app.ledger.summary('alice', Date.now(), true);
    expect({ requests: after.requests - before.requests, input: after.inputTokens - before.inputTokens, output: after.outputTokens - before.outputTokens }).toEqual({ requests: 2, input: 80, output: 14 });
  });
});

describe('same-format forwarding to a Gemini upstream', () => {
  it('sends the client\'s body as its bytes, the model in the URL, and the reply as it came but for modelVersion and svc_meta', async () => {
    const { fake, upstreamModel } = await over('gemini', [{ text: 'Forwarded.', usage: { input: 12, output: 3 } }]);
    const body = `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"safetySettings":[{"category":"HARM_CATEGORY_HARASSMENT","threshold":"BLOCK_NONE"}],"generationConfig":{"responseModalities":["TEXT"]}}`;
    const response = await fetch(`${router.origin}/v1beta/models/${SKU}:generateContent?key=${router.key}`, { method: 'POST', body });
    const reply = (await response.json()) as Record<string, any>;
    expect(response.status).toBe(200);
    expect(fake.requests[0]!.rawBody).toBe(body);
    expect(fake.requests[0]!.path).toBe(`/v1beta/models/${upstreamModel}:generateContent`);
    expect(reply.modelVersion).toBe(SKU);
    expect(reply.candidates[0].content.parts.map((part: { text?: string }) => part.text ?? '').join('')).toBe('Forwarded.');
    expect(reply.svc_meta).toMatchObject({ backend: 'up-gemini', usage: { input_tokens: 12, output_tokens: 3 } });
    // Nothing was dropped on the way: no warnings for what only Gemini takes.
    expect(reply.svc_meta.warnings).toBeUndefined();
    expect(response.headers.get('x-svc-warning')).toBeNull();
  });

  it("passes a stream's chunks as they came, the signatures Gemini issued replayed on the next turn", async () => {
    const { fake } = await over('gemini', [{ reasoning: { text: 'Think.' }, toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }], chunkSize: 3 }, { text: 'Done.' }]);
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'Rome?' }] }];
    const parts: NonNullable<Content['parts']> = [];
    let last: GenerateContentResponse | undefined;
    for await (const chunk of await ai.models.generateContentStream({ model: SKU, contents, config: { tools: [WEATHER], thinkingConfig: { includeThoughts: true } } })) {
      expect(chunk.modelVersion).toBe(SKU);
      parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
      last = chunk;
    }
    // As Gemini sent it: fields the router does not model are there (usage by modality).
    expect(last?.usageMetadata?.promptTokensDetails).toBeDefined();
    const call = parts.find((part) => part.functionCall)!;
    expect(call.thoughtSignature).toBe((fake as unknown as { signatures: string[] }).signatures[0]);
    expect(parts.filter((part) => part.thought).map((part) => part.text).join('')).toBe('Think.');
    contents.push({ role: 'model', parts }, { role: 'user', parts: [{ functionResponse: { id: call.functionCall!.id!, name: 'get_weather', response: { output: 'sunny' } } }] });
    const second = await ai.models.generateContent({ model: SKU, contents, config: { tools: [WEATHER] } });
    expect(second.text).toBe('Done.');
    // The upstream got its signature back where it put it (it refuses one it did not issue).
    expect(fake.requests[1]!.body.contents[1].parts.find((part: { functionCall?: unknown }) => part.functionCall).thoughtSignature).toBe(call.thoughtSignature);
  });
});

describe("another upstream's reasoning, through a Gemini client's turns", () => {
  const cases = (['anthropic', 'openai-responses'] as const).flatMap((kind) => [false, true].map((streaming) => [kind, streaming] as const));
  it.each(cases)('reaches the %s upstream again, sealed in the signature of the call the client replays (streaming: %s)', async (kind, streaming) => {
    const { fake } = await over(kind, [{ reasoning: { text: 'Weather needs a lookup.' }, toolCalls: [{ name: 'get_weather', arguments: { city: 'Lima' } }], chunkSize: 5 }, { text: 'Lima is warm.' }]);
    const config = { tools: [WEATHER], thinkingConfig: { thinkingBudget: 2048 } };
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'Lima?' }] }];
    let modelTurn: Content;
    if (streaming) {
      const parts: NonNullable<Content['parts']> = [];
      for await (const chunk of await ai.models.generateContentStream({ model: SKU, contents, config })) parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
      modelTurn = { role: 'model', parts };
    } else {
      modelTurn = (await ai.models.generateContent({ model: SKU, contents, config })).candidates![0]!.content!;
    }
    // Gemini CLI keeps only what is not a thought: that is all the next turn replays here.
    const kept = { role: 'model', parts: modelTurn.parts!.filter((part) => !part.thought) };
    const call = kept.parts.find((part) => part.functionCall)!;
    expect(call.thoughtSignature).toMatch(/^svcr2\./);
    contents.push(kept, { role: 'user', parts: [{ functionResponse: { id: call.functionCall!.id!, name: 'get_weather', response: { output: 'warm' } } }] });
    expect((await ai.models.generateContent({ model: SKU, contents, config })).text).toBe('Lima is warm.');
    const replayed = JSON.stringify(fake.requests[1]!.body);
    if (kind === 'anthropic') expect(fake.requests[1]!.body.messages[1].content[0]).toMatchObject({ type: 'thinking', thinking: 'Weather needs a lookup.', signature: expect.any(String) });
    else expect(replayed).toContain('encrypted_content');
    expect(readToolCallId(call.functionCall!.id!)).toEqual({});
  });
});
