// Google's own SDK (@google/genai) against the router's Gemini door, over every route kind: a
// Gemini upstream (forwarded), the OpenAI Chat, Anthropic and OpenAI Responses upstreams
// (translated) and the offline backend.
import { GoogleGenAI, type Content, type GenerateContentResponse } from '@google/genai';
import { describe, expect } from 'vitest';
import { toolExchangeOf } from '../integration/support.js';
import {
  ALL_ROUTES,
  clientSuite,
  expectForecastSchemaUpstream,
  expectImageUpstream,
  expectPdfUpstream,
  FORECAST,
  forecastTurn,
  PAST_STOP,
  PDF_BASE64,
  PNG_BASE64,
  SKU,
  stopOf,
  STOPPED,
  STREAMED_TEXT,
  streamedUpstream,
  TOOL_LOOP,
  upstreamModelOf,
  USAGE,
  WEATHER_RESULT,
  type Served,
  type Verdict,
} from './harness.js';

const { serve, cell } = clientSuite('Google GenAI SDK', 'google-genai');
const CLIENT = '@google/genai · ai.models';

const client = (served: Served) => new GoogleGenAI({ apiKey: served.key, httpOptions: { baseUrl: served.origin } });
const WEATHER = { functionDeclarations: [{ name: 'get_weather', description: 'Current weather for a city', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }] };
const FORECAST_SCHEMA = { type: 'object', properties: { city: { type: 'string' }, temperature: { type: 'number' } }, required: ['city', 'temperature'] };

/** A stream's chunks, read to the end. */
async function chunksOf(stream: AsyncGenerator<GenerateContentResponse>): Promise<GenerateContentResponse[]> {
  const chunks: GenerateContentResponse[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe(CLIENT, () => {
  for (const route of ALL_ROUTES) {
    cell(CLIENT, 'text', route, async () => {
      const served = await serve(route, [{ text: 'Hello from the model.' }]);
      const response = await client(served).models.generateContent({ model: SKU, contents: 'Say hello', config: { systemInstruction: 'Be brief.' } });
      expect(response.text).toBe('Hello from the model.');
      expect(response.candidates?.[0]?.finishReason).toBe('STOP');
      if (route !== 'offline') {
        expect(served.requests).toHaveLength(1);
        expect(upstreamModelOf(served.requests[0]!)).toBe(`model-for-${route}`);
      }
    });

    cell(CLIENT, 'streaming text', route, async () => {
      const served = await serve(route, [{ text: STREAMED_TEXT }]);
      const chunks = await chunksOf(await client(served).models.generateContentStream({ model: SKU, contents: 'Stream something' }));
      const pieces = chunks.map((chunk) => chunk.text ?? '').filter(Boolean);
      expect(pieces.join('')).toBe(STREAMED_TEXT);
      expect(pieces.length).toBeGreaterThan(1);
      expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe('STOP');
      if (route !== 'offline') expect(streamedUpstream(served.requests[0]!)).toBe(true);
    });

    cell(CLIENT, 'usage', route, async () => {
      const served = await serve(route, [{ text: 'Counted.', usage: USAGE }]);
      const { usageMetadata } = await client(served).models.generateContent({ model: SKU, contents: 'Count me' });
      if (route === 'offline') expect(usageMetadata?.promptTokenCount).toBeGreaterThan(0);
      else expect(usageMetadata).toMatchObject({ promptTokenCount: USAGE.input, candidatesTokenCount: USAGE.output });
      expect(usageMetadata?.totalTokenCount).toBe(usageMetadata!.promptTokenCount! + usageMetadata!.candidatesTokenCount! + (usageMetadata!.thoughtsTokenCount ?? 0));
    });

    cell(CLIENT, 'streamed usage', route, async () => {
      const served = await serve(route, [{ text: 'Counted.', usage: USAGE }]);
      const chunks = await chunksOf(await client(served).models.generateContentStream({ model: SKU, contents: 'Count me' }));
      const usage = chunks.at(-1)?.usageMetadata;
      if (route === 'offline') expect(usage?.candidatesTokenCount).toBeGreaterThan(0);
      else expect(usage).toMatchObject({ promptTokenCount: USAGE.input, candidatesTokenCount: USAGE.output });
    });

    cell(CLIENT, 'tool loop', route, async () => {
      const served = await serve(route, TOOL_LOOP);
      const ai = client(served);
      const contents: Content[] = [{ role: 'user', parts: [{ text: 'What is the weather in Paris?' }] }];
      const first = await ai.models.generateContent({ model: SKU, contents, config: { tools: [WEATHER] } });
      const call = first.functionCalls?.[0];
      expect(call).toMatchObject({ name: 'get_weather', args: { city: 'Paris' } });
      contents.push(first.candidates![0]!.content!, { role: 'user', parts: [{ functionResponse: { id: call!.id!, name: 'get_weather', response: { output: WEATHER_RESULT } } }] });
      const second = await ai.models.generateContent({ model: SKU, contents, config: { tools: [WEATHER] } });
      expect(second.text).toBe('It is sunny in Paris.');
      if (route !== 'offline') {
        const exchange = toolExchangeOf(route, served.requests[1]!.body);
        expect(exchange.calls).toEqual([{ id: expect.any(String), name: 'get_weather', args: { city: 'Paris' } }]);
        expect(exchange.results).toEqual([{ id: exchange.calls[0]!.id, output: WEATHER_RESULT }]);
      }
    });

    cell(CLIENT, 'image input', route, async () => {
      const served = await serve(route, [{ text: 'A single pixel.' }]);
      const response = await client(served).models.generateContent({ model: SKU, contents: [{ role: 'user', parts: [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/png', data: PNG_BASE64 } }] }] });
      expect(response.text).toBe('A single pixel.');
      expectImageUpstream(served);
    });

    cell(CLIENT, 'PDF input', route, async () => {
      const served = await serve(route, [{ text: 'An empty page.' }]);
      const response = await client(served).models.generateContent({ model: SKU, contents: [{ role: 'user', parts: [{ text: 'Summarise this.' }, { inlineData: { mimeType: 'application/pdf', data: PDF_BASE64 } }] }] });
      expect(response.text).toBe('An empty page.');
      expectPdfUpstream(served);
    });

    cell(CLIENT, 'structured output', route, async () => {
      const served = await serve(route, [forecastTurn()]);
      const response = await client(served).models.generateContent({ model: SKU, contents: 'Forecast for Paris', config: { responseMimeType: 'application/json', responseJsonSchema: FORECAST_SCHEMA } });
      expect(JSON.parse(response.text!)).toEqual(FORECAST);
      expectForecastSchemaUpstream(served, 'schema');
    });

    cell(CLIENT, 'stop sequences', route, async (): Promise<Verdict | void> => {
      const served = await serve(route, [route === 'offline' ? PAST_STOP : STOPPED]);
      const response = await client(served).models.generateContent({ model: SKU, contents: 'Count', config: { stopSequences: ['###'] } });
      if (route === 'offline') {
        expect(response.text).toBe(PAST_STOP.text);
        return { outcome: 'limitation', note: 'The offline backend replays its script and does not apply stop sequences.' };
      }
      if (route === 'openai-responses') {
        expect(stopOf(route, served.requests[0]!.body)).toBeUndefined();
        expect(response.sdkHttpResponse?.headers?.['x-svc-warning']).toMatch(/stop sequences not sent/);
        return { outcome: 'limitation', note: 'A Responses upstream has no stop sequences; the router names them in svc_meta.warnings and x-svc-warning.' };
      }
      expect(response.text).toBe('one two');
      expect(stopOf(route, served.requests[0]!.body)).toEqual(['###']);
    });

    cell(CLIENT, 'thinking', route, async () => {
      const served = await serve(route, [{ reasoning: { text: 'The user wants a greeting.' }, text: 'Hello!' }]);
      const response = await client(served).models.generateContent({ model: SKU, contents: 'Say hello', config: { thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 } } });
      const parts = response.candidates?.[0]?.content?.parts ?? [];
      expect(parts.filter((part) => part.thought).map((part) => part.text).join('')).toBe('The user wants a greeting.');
      expect(response.text).toBe('Hello!');
    });

    cell(CLIENT, 'token counting', route, async () => {
      const served = await serve(route, [{ text: 'unused' }]);
      const counted = await client(served).models.countTokens({ model: SKU, contents: 'How many tokens is this sentence, roughly?' });
      expect(counted.totalTokens).toBeGreaterThan(0);
    });
  }
});
