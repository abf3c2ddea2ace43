import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compatRecorder } from './compat-cells.js';
import { ask, CLIENT_FORMATS, type ClientFormatName, type ToolDefinition, type Turn } from './clients.js';
import { BUILD_HOOK_TIMEOUT_MS, realModelUnavailable } from './llama-build.js';
import { REGISTRATIONS, ROUTE, randomModel, startRealSetup, type RealSetup } from './real-setup.js';
import { serverCounted, serverText, speedReport } from './server-reply.js';

/**
 * llama.cpp's `llama-server` with a random-weights model (a real vocabulary and template, gibberish
 * output that never ends by itself), registered three ways and asked in all three client formats:
 * the output cap, the context limit, token counting, determinism and the gibberish itself, each as
 * the server really does them.
 */

const unavailable = await realModelUnavailable();
const compat = compatRecorder('2-protocol');
let setup: RealSetup;

/** Small: an over-long prompt is cheap to make. Two slots share it. */
const CONTEXT = 2048;

beforeAll(async () => {
  if (unavailable) return;
  setup = await startRealSetup(randomModel(), { context: CONTEXT, slots: 2 });
}, BUILD_HOOK_TIMEOUT_MS);
afterAll(async () => {
  if (!setup) return;
  process.stdout.write(`\nllama-server with the random-weights model: ready ${Math.round(setup.server.startupMs)} ms after spawn; ${speedReport(setup.proxy.exchanges)}\n`);
  await setup.close();
});

const LENGTH_FINISH: Record<ClientFormatName, string> = { chat: 'length', messages: 'max_tokens', responses: 'incomplete:max_output_tokens' };
const PROMPT = 'Tell me a long story about a lighthouse keeper and the sea.';
const WEATHER: ToolDefinition = { name: 'get_weather', description: 'Get the current weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

describe.skipIf(unavailable).each(REGISTRATIONS)('llama-server (random weights) registered as %s', (registration) => {
  const model = ROUTE[registration];

  describe.each(CLIENT_FORMATS)('a %s client', (format) => {
    it.each([false, true])('stream %s: max_tokens ends the answer by length, with the output the server counted', (stream) => compat.cell(format, stream ? 'streamed max_tokens → length' : 'max_tokens → length', registration, async () => {
      const answer = await ask(setup.clients, format, { model, turns: [{ role: 'user', text: PROMPT }], maxTokens: 12, temperature: 0, stream });
      const exchange = setup.proxy.exchanges.at(-1)!;
      await exchange.done;
      expect(answer.finish).toBe(LENGTH_FINISH[format]);
      expect(answer.ended).toBe('length');
      expect(answer.usage).toEqual(serverCounted(exchange));
      expect(answer.usage.output).toBe(12);
      // Gibberish is still the server's text, byte for byte.
      expect(answer.text).toBe(serverText(exchange));
    }));

    it.each([false, true])("stream %s: gibberish at temperature 1 reaches the client as the server wrote it, or as the server's own failure", (stream) => compat.cell(format, stream ? 'streamed gibberish, as the server wrote it' : 'gibberish, as the server wrote it', registration, async () => {
      const outcome = await ask(setup.clients, format, { model, turns: [{ role: 'user', text: PROMPT }], maxTokens: 48, temperature: 1, stream }).then(
        (answer) => ({ answer, error: undefined }),
        (error: { status?: number; message?: string }) => ({ answer: undefined, error }),
      );
      const exchange = setup.proxy.exchanges.at(-1)!;
      await exchange.done;
      if (outcome.answer && !outcome.answer.error) {
        expect(outcome.answer.text).toBe(serverText(exchange));
        expect(outcome.answer.usage).toEqual(serverCounted(exchange));
        return;
      }
      // Random tokens can trip the server's output parser (its HTTP 500, or an error event once streaming): its words, in the client's format.
      const message = outcome.error?.message ?? outcome.answer?.error;
      expect(exchange.responseBody).toContain('does not match the expected');
      expect(message).toContain('does not match the expected');
      expect(message).toContain(`llama-${registration}`);
    }));

    it.each([false, true])("stream %s: the server's output parser failing (its HTTP 500) is the client's own error, in the server's words", (stream) => compat.cell(format, stream ? 'streamed output-parser failure (server 500)' : 'output-parser failure (server 500)', registration, async () => {
      // A prefilled answer that opens a tool call the random model cannot finish: llama.cpp's parser then fails the whole answer.
      const turns: Turn[] = [{ role: 'user', text: 'hi' }, { role: 'assistant', text: '<tool_call>\n{"name": ' }];
      const outcome = await ask(setup.clients, format, { model, turns, tools: [WEATHER], maxTokens: 10, temperature: 1, stream }).then(
        (answer) => ({ status: undefined as number | undefined, message: answer.error }),
        (error: { status?: number; message?: string }) => ({ status: error.status, message: error.message }),
      );
      expect(outcome.message).toContain('does not match the expected');
      expect(outcome.message).toContain(`llama-${registration}`);
      expect(outcome.message).not.toContain(setup.router.key);
      // Before the answer began, the client's own status; once streaming, its format's error event.
      if (!stream) expect(outcome.status).toBe(502);
    }));

    it('a prompt over the context is the client\'s own 400, naming the limit', () => compat.cell(format, 'prompt over the context → 400', registration, async () => {
      const long = 'lighthouse keeper '.repeat(CONTEXT);
      for (const stream of [false, true]) {
        const failure = await ask(setup.clients, format, { model, turns: [{ role: 'user', text: long }], maxTokens: 8, stream }).then(
          () => undefined,
          (error: unknown) => error as { status?: number; message?: string; error?: unknown },
        );
        expect(failure, `stream ${stream}`).toBeDefined();
        expect(failure!.status).toBe(400);
        expect(failure!.message).toContain(String(setup.server.slotContext));
      }
    }));

    it('temperature 0 with a seed gives the same answer twice, streamed or not', () => compat.cell(format, 'temperature 0 + seed: same answer', registration, async () => {
      const request = { model, turns: [{ role: 'user' as const, text: 'Say something.' }], maxTokens: 16, temperature: 0, seed: 7 };
      const first = await ask(setup.clients, format, { ...request, stream: false });
      const second = await ask(setup.clients, format, { ...request, stream: false });
      const streamed = await ask(setup.clients, format, { ...request, stream: true });
      expect(first.text).not.toBe('');
      expect(second.text).toBe(first.text);
      expect(streamed.text).toBe(first.text);
      // The second time the prompt came from the server's cache.
      expect(second.usage.cached).toBeGreaterThan(0);
    }));
  });

  it('count_tokens is the server\'s own count, equal to the input it bills for the same prompt', () => compat.cell('messages', 'count_tokens: the server\'s own count', registration, async () => {
    const params = {
      model,
      system: 'You are a helpful assistant.',
      messages: [{ role: 'user' as const, content: PROMPT }],
      tools: [{ name: 'get_weather', description: 'Get the current weather for a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } }],
    };
    const counted = await setup.clients.messages.messages.countTokens(params).withResponse();
    expect(counted.response.headers.get('x-svc-count-source')).toBe('upstream');
    const billed = await setup.clients.messages.messages.create({ ...params, max_tokens: 1 });
    expect(counted.data.input_tokens).toBe(billed.usage.input_tokens + (billed.usage.cache_read_input_tokens ?? 0));
  }));
});
