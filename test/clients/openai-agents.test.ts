// The OpenAI Agents SDK against the router: its Responses model and its Chat Completions model,
// each over every route kind.
import { Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, run, setTracingDisabled, tool, type Model, type ModelSettings } from '@openai/agents';
import OpenAI from 'openai';
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
  ROUTES,
  SKU,
  stopOf,
  STOPPED,
  STREAMED_TEXT,
  TOOL_LOOP,
  USAGE,
  WEATHER_RESULT,
  type Served,
  type Verdict,
} from './harness.js';

// Traces would otherwise be exported to OpenAI.
setTracingDisabled(true);

const { serve, cell } = clientSuite('OpenAI Agents SDK', 'openai-agents');

interface AgentsClient {
  name: string;
  model(served: Served): Model;
  responses?: boolean;
}

const openai = (s: Served) => new OpenAI({ apiKey: s.key, baseURL: s.baseURL, maxRetries: 0 });

const CLIENTS: AgentsClient[] = [
  { name: '@openai/agents · OpenAIResponsesModel', model: (s) => new OpenAIResponsesModel(openai(s), SKU), responses: true },
  { name: '@openai/agents · OpenAIChatCompletionsModel', model: (s) => new OpenAIChatCompletionsModel(openai(s), SKU) },
];

const weather = tool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => (city === 'Paris' ? WEATHER_RESULT : 'unknown city'),
});

const forecastSchema = z.object({ city: z.string(), temperature: z.number() });

const agentFor = (client: AgentsClient, served: Served, modelSettings: ModelSettings = {}) =>
  new Agent({ name: 'assistant', instructions: 'Be brief.', model: client.model(served), modelSettings });

for (const client of CLIENTS) {
  describe(client.name, () => {
    for (const route of ROUTES) {
      cell(client.name, 'text', route, async () => {
        const served = await serve(route, [{ text: 'Hello from the model.' }]);
        const result = await run(agentFor(client, served), 'Say hello');
        expect(result.finalOutput).toBe('Hello from the model.');
        if (route !== 'offline') {
          expect(served.requests).toHaveLength(1);
          expect(served.requests[0]!.body.model).toBe(`model-for-${route}`);
        }
      });

      cell(client.name, 'streaming text', route, async () => {
        const served = await serve(route, [{ text: STREAMED_TEXT }]);
        const stream = await run(agentFor(client, served), 'Stream something', { stream: true });
        const pieces: string[] = [];
        for await (const piece of stream.toTextStream()) pieces.push(piece);
        await stream.completed;
        expect(pieces.join('')).toBe(STREAMED_TEXT);
        expect(pieces.length).toBeGreaterThan(1);
        expect(stream.finalOutput).toBe(STREAMED_TEXT);
        if (route !== 'offline') expect(served.requests[0]!.body.stream).toBe(true);
      });

      cell(client.name, 'usage', route, async () => {
        const served = await serve(route, [{ text: 'Counted.', usage: USAGE }]);
        const result = await run(agentFor(client, served), 'Count me');
        const usage = result.rawResponses[0]!.usage;
        if (route === 'offline') {
          expect(usage.inputTokens).toBeGreaterThan(0);
          expect(usage.outputTokens).toBeGreaterThan(0);
        } else {
          expect(usage.inputTokens).toBe(USAGE.input);
          expect(usage.outputTokens).toBe(USAGE.output);
        }
        expect(usage.totalTokens).toBe(usage.inputTokens + usage.outputTokens);
      });

      cell(client.name, 'tool loop', route, async () => {
        const served = await serve(route, TOOL_LOOP);
        const agent = new Agent({ name: 'assistant', instructions: 'Be brief.', model: client.model(served), tools: [weather] });
        const result = await run(agent, 'What is the weather in Paris?');
        expect(result.finalOutput).toBe('It is sunny in Paris.');
        if (route !== 'offline') {
          expect(served.requests).toHaveLength(2);
          const exchange = toolExchangeOf(route, served.requests[1]!.body);
          expect(exchange.calls).toEqual([{ id: expect.any(String), name: 'get_weather', args: { city: 'Paris' } }]);
          expect(exchange.results).toEqual([{ id: exchange.calls[0]!.id, output: WEATHER_RESULT }]);
        }
      });

      cell(client.name, 'image input', route, async () => {
        const served = await serve(route, [{ text: 'A single pixel.' }]);
        const result = await run(agentFor(client, served), [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'What is this?' },
              { type: 'input_image', image: `data:image/png;base64,${PNG_BASE64}` },
            ],
          },
        ]);
        expect(result.finalOutput).toBe('A single pixel.');
        expectImageUpstream(served);
      });

      cell(client.name, 'PDF input', route, async () => {
        const served = await serve(route, [{ text: 'An empty page.' }]);
        const result = await run(agentFor(client, served), [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'Summarise this.' },
              { type: 'input_file', file: `data:application/pdf;base64,${PDF_BASE64}`, filename: 'page.pdf' },
            ],
          },
        ]);
        expect(result.finalOutput).toBe('An empty page.');
        expectPdfUpstream(served);
      });

      cell(client.name, 'structured output', route, async () => {
        const served = await serve(route, [forecastTurn()]);
        const agent = new Agent({ name: 'forecaster', instructions: 'Answer with the forecast.', model: client.model(served), outputType: forecastSchema });
        const result = await run(agent, 'Forecast for Paris');
        expect(result.finalOutput).toEqual(FORECAST);
        expectForecastSchemaUpstream(served, 'schema');
      });

      cell(client.name, 'stop sequences', route, async (): Promise<Verdict | void> => {
        const served = await serve(route, [route === 'offline' ? PAST_STOP : STOPPED]);
        if (client.responses) {
          const result = await run(agentFor(client, served), 'Count');
          expect(typeof result.finalOutput).toBe('string');
          return { outcome: 'limitation', note: 'The Responses API has no stop sequences, and the Agents SDK ModelSettings has none.' };
        }
        // ModelSettings has no stop sequences; providerData is merged into the Chat Completions request.
        const result = await run(agentFor(client, served, { providerData: { stop: ['###'] } }), 'Count');
        if (route === 'offline') {
          expect(result.finalOutput).toBe(PAST_STOP.text);
          return { outcome: 'limitation', note: 'The offline backend replays its script and does not apply stop sequences.' };
        }
        if (route === 'openai-responses') {
          expect(stopOf(route, served.requests[0]!.body)).toBeUndefined();
          return { outcome: 'limitation', note: 'A Responses upstream has no stop sequences; the router names them in svc_meta.warnings.' };
        }
        expect(result.finalOutput).toBe('one two');
        expect(stopOf(route, served.requests[0]!.body)).toEqual(['###']);
      });
    }
  });
}
