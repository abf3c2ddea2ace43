// The Vercel AI SDK against the router: @ai-sdk/openai (chat and responses models),
// @ai-sdk/anthropic, @ai-sdk/open-responses and @ai-sdk/google, each over every route kind.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenResponses } from '@ai-sdk/open-responses';
import { APICallError, generateObject, generateText, stepCountIs, streamText, tool, type LanguageModel, type ModelMessage } from 'ai';
import { describe, expect } from 'vitest';
import { z } from 'zod';
import { toolExchangeOf } from '../integration/support.js';
import {
  clientSuite,
  expectForecastSchemaUpstream,
  expectImageUpstream,
  expectPdfUpstream,
  FORECAST,
  forecastTurn,
  PAST_STOP,
  PDF_BASE64,
  PNG_BASE64,
  ALL_ROUTES,
  SKU,
  stopOf,
  streamedUpstream,
  upstreamModelOf,
  STOPPED,
  STREAMED_TEXT,
  TOOL_LOOP,
  USAGE,
  WEATHER_RESULT,
  type Served,
  type Verdict,
} from './harness.js';

const { serve, cell } = clientSuite('Vercel AI SDK', 'ai-sdk');

interface AiSdkClient {
  name: string;
  model(served: Served): LanguageModel;
  /** The tool the client forces for structured output, when it does not send a JSON schema. */
  structuredTool?: string;
  /** A Responses-API client: the API has no stop sequences, and history may go by reference. */
  responses?: boolean;
}

const CLIENTS: AiSdkClient[] = [
  { name: '@ai-sdk/openai · openai.chat()', model: (s) => createOpenAI({ baseURL: s.baseURL, apiKey: s.key }).chat(SKU) },
  { name: '@ai-sdk/openai · openai.responses()', model: (s) => createOpenAI({ baseURL: s.baseURL, apiKey: s.key }).responses(SKU), responses: true },
  // A model id the provider does not know gets its 'jsonTool' structured-output mode: a forced tool named json.
  { name: '@ai-sdk/anthropic', model: (s) => createAnthropic({ baseURL: s.baseURL, apiKey: s.key })(SKU), structuredTool: 'json' },
  {
    name: '@ai-sdk/open-responses',
    model: (s) => createOpenResponses({ url: `${s.baseURL}/responses`, name: 'svc', apiKey: s.key })(SKU),
    responses: true,
  },
  // Gemini's API: the provider's base URL names the API version, as Google's does.
  { name: '@ai-sdk/google', model: (s) => createGoogleGenerativeAI({ baseURL: `${s.origin}/v1beta`, apiKey: s.key })(SKU) },
];

const weatherTool = tool({
  description: 'Current weather for a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }: { city: string }) => (city === 'Paris' ? WEATHER_RESULT : 'unknown city'),
});

const forecastSchema = z.object({ city: z.string(), temperature: z.number() });

/** A tool loop; the upstream's second request must carry the call and its result in its own form. */
async function toolLoop(client: AiSdkClient, served: Served, providerOptions?: { openai: { store: boolean } }) {
  const result = await generateText({
    model: client.model(served),
    tools: { get_weather: weatherTool },
    stopWhen: stepCountIs(3),
    prompt: 'What is the weather in Paris?',
    maxRetries: 0,
    ...(providerOptions ? { providerOptions } : {}),
  });
  expect(result.text).toBe('It is sunny in Paris.');
  expect(result.steps).toHaveLength(2);
  expect(result.steps[0]!.toolResults.map((r) => r.output)).toEqual([WEATHER_RESULT]);
  if (served.route !== 'offline') {
    expect(served.requests).toHaveLength(2);
    const exchange = toolExchangeOf(served.route, served.requests[1]!.body);
    expect(exchange.calls).toEqual([{ id: expect.any(String), name: 'get_weather', args: { city: 'Paris' } }]);
    expect(exchange.results).toHaveLength(1);
    expect(exchange.results[0]!.id).toBe(exchange.calls[0]!.id);
    expect(exchange.results[0]!.output).toContain(WEATHER_RESULT);
  }
}

/** Two turns of a conversation, the second replaying the first's response messages as the AI SDK documents. */
async function secondTurn(client: AiSdkClient, served: Served, providerOptions?: { openai: { store: boolean } }) {
  const options = { model: client.model(served), maxRetries: 0, ...(providerOptions ? { providerOptions } : {}) };
  const messages: ModelMessage[] = [{ role: 'user', content: 'Say hello' }];
  const first = await generateText({ ...options, messages });
  expect(first.text).toBe('Hello!');
  messages.push(...first.response.messages, { role: 'user', content: 'And goodbye?' });
  return generateText({ ...options, messages });
}

for (const client of CLIENTS) {
  describe(client.name, () => {
    for (const route of ALL_ROUTES) {
      cell(client.name, 'text', route, async () => {
        const served = await serve(route, [{ text: 'Hello from the model.' }]);
        const result = await generateText({ model: client.model(served), system: 'Be brief.', prompt: 'Say hello', maxRetries: 0 });
        expect(result.text).toBe('Hello from the model.');
        expect(result.finishReason).toBe('stop');
        if (route !== 'offline') {
          expect(served.requests).toHaveLength(1);
          expect(upstreamModelOf(served.requests[0]!)).toBe(`model-for-${route}`);
        }
      });

      cell(client.name, 'streaming text', route, async () => {
        const served = await serve(route, [{ text: STREAMED_TEXT }]);
        const result = streamText({ model: client.model(served), prompt: 'Stream something', maxRetries: 0 });
        const pieces: string[] = [];
        for await (const piece of result.textStream) pieces.push(piece);
        expect(pieces.join('')).toBe(STREAMED_TEXT);
        expect(pieces.length).toBeGreaterThan(1);
        expect(await result.finishReason).toBe('stop');
        if (route !== 'offline') expect(streamedUpstream(served.requests[0]!)).toBe(true);
      });

      cell(client.name, 'usage', route, async () => {
        const served = await serve(route, [{ text: 'Counted.', usage: USAGE }]);
        const result = await generateText({ model: client.model(served), prompt: 'Count me', maxRetries: 0 });
        if (route === 'offline') {
          expect(result.usage.inputTokens).toBeGreaterThan(0);
          expect(result.usage.outputTokens).toBeGreaterThan(0);
        } else {
          expect(result.usage.inputTokens).toBe(USAGE.input);
          expect(result.usage.outputTokens).toBe(USAGE.output);
        }
        expect(result.usage.totalTokens).toBe(result.usage.inputTokens! + result.usage.outputTokens!);
      });

      cell(client.name, 'streamed usage', route, async () => {
        const served = await serve(route, [{ text: 'Counted.', usage: USAGE }]);
        const result = streamText({ model: client.model(served), prompt: 'Count me', maxRetries: 0 });
        expect(await result.text).toBe('Counted.');
        const usage = await result.usage;
        if (route === 'offline') {
          expect(usage.inputTokens).toBeGreaterThan(0);
          expect(usage.outputTokens).toBeGreaterThan(0);
        } else {
          // @ai-sdk/anthropic takes input tokens from the closing message_delta too, where the router puts the upstream's count.
          expect(usage.inputTokens).toBe(USAGE.input);
          expect(usage.outputTokens).toBe(USAGE.output);
        }
      });

      cell(client.name, 'tool loop', route, async () => toolLoop(client, await serve(route, TOOL_LOOP)));

      cell(client.name, 'image input', route, async () => {
        const served = await serve(route, [{ text: 'A single pixel.' }]);
        const result = await generateText({
          model: client.model(served),
          messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image', image: PNG_BASE64, mediaType: 'image/png' }] }],
          maxRetries: 0,
        });
        expect(result.text).toBe('A single pixel.');
        expectImageUpstream(served);
      });

      cell(client.name, 'PDF input', route, async () => {
        const served = await serve(route, [{ text: 'An empty page.' }]);
        const result = await generateText({
          model: client.model(served),
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'Summarise this.' },
                { type: 'file', data: PDF_BASE64, mediaType: 'application/pdf', filename: 'page.pdf' },
              ],
            },
          ],
          maxRetries: 0,
        });
        expect(result.text).toBe('An empty page.');
        expectPdfUpstream(served);
      });

      cell(client.name, 'structured output', route, async () => {
        const served = await serve(route, [forecastTurn(client.structuredTool)]);
        const result = await generateObject({ model: client.model(served), schema: forecastSchema, prompt: 'Forecast for Paris', maxRetries: 0 });
        expect(result.object).toEqual(FORECAST);
        expectForecastSchemaUpstream(served, client.structuredTool ? 'tool' : 'schema');
      });

      cell(client.name, 'stop sequences', route, async (): Promise<Verdict | void> => {
        const served = await serve(route, [route === 'offline' ? PAST_STOP : STOPPED]);
        const result = await generateText({ model: client.model(served), prompt: 'Count', stopSequences: ['###'], maxRetries: 0 });
        if (client.responses) {
          // The Responses API has no stop sequences; the client drops them and says so.
          expect(result.warnings?.map((w) => JSON.stringify(w)).join(' ')).toMatch(/stopSequences/);
          if (route !== 'offline') expect(stopOf(route, served.requests[0]!.body)).toBeUndefined();
          return { outcome: 'limitation', note: 'The Responses API has no stop sequences; the AI SDK drops them with a warning.' };
        }
        if (route === 'offline') {
          expect(result.text).toBe(PAST_STOP.text);
          return { outcome: 'limitation', note: 'The offline backend replays its script and does not apply stop sequences.' };
        }
        if (route === 'openai-responses') {
          expect(stopOf(route, served.requests[0]!.body)).toBeUndefined();
          expect(JSON.stringify((result.response.body as { svc_meta?: unknown }).svc_meta)).toMatch(/stop sequences not sent/);
          return { outcome: 'limitation', note: 'A Responses upstream has no stop sequences; the router names them in svc_meta.warnings.' };
        }
        expect(result.text).toBe('one two');
        expect(result.finishReason).toBe('stop');
        expect(stopOf(route, served.requests[0]!.body)).toEqual(['###']);
      });

      if (client.responses) {
        const sdk = client.name.startsWith('@ai-sdk/openai');
        cell(client.name, 'multi-turn history (default settings)', route, async (): Promise<Verdict | void> => {
          const served = await serve(route, [{ text: 'Hello!' }, { text: 'Goodbye!' }]);
          if (!sdk) {
            const second = await secondTurn(client, served);
            expect(second.text).toBe('Goodbye!');
            return;
          }
          // @ai-sdk/openai defaults to store: true and then replays earlier output items by id
          // (item_reference); the router stores nothing, so it refuses them, naming the setting.
          const error = await secondTurn(client, served).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(APICallError.isInstance(error), String(error)).toBe(true);
          expect((error as APICallError).statusCode).toBe(400);
          expect((error as APICallError).message).toMatch(/store: false/);
          if (route !== 'offline') expect(served.requests).toHaveLength(1);
          return { outcome: 'refused', note: "store: true (the default) replays history as item_reference; the router stores nothing and answers 400 naming store: false." };
        });
        if (sdk) {
          cell(client.name, 'multi-turn history (store: false)', route, async () => {
            const served = await serve(route, [{ text: 'Hello!' }, { text: 'Goodbye!' }]);
            const second = await secondTurn(client, served, { openai: { store: false } });
            expect(second.text).toBe('Goodbye!');
            if (route !== 'offline') expect(JSON.stringify(served.requests[1]!.body)).toContain('Hello!');
          });
          cell(client.name, 'tool loop (store: false)', route, async () => toolLoop(client, await serve(route, TOOL_LOOP), { openai: { store: false } }));
        }
      }
    }
  });
}
