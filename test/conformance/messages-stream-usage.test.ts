import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { parseSse } from '../helpers/sse-frames.js';
import { Fakes, SKU } from '../integration/support.js';

/**
 * A Messages client streaming from an OpenAI Chat upstream. Chat reports usage only in its last
 * chunk, so `message_start` can carry only an estimate of the input; the closing `message_delta`
 * carries the upstream's own count (Anthropic's message_delta usage is cumulative and may carry
 * input_tokens), so a client that keeps the last value it saw ends with the real number.
 */

let router: TestRouter;
let client: Anthropic;
const fakes = new Fakes();

beforeAll(async () => {
  router = await startRouter();
  client = new Anthropic({ apiKey: router.key, baseURL: router.origin, maxRetries: 0 });
});
afterEach(() => fakes.closeAll());
afterAll(() => router.close());

const REQUEST = { model: SKU, max_tokens: 256, messages: [{ role: 'user' as const, content: 'Count my tokens' }] };

describe('a Messages stream over an OpenAI Chat upstream', () => {
  it('ends with the upstream input count, which the SDK stream helper reports', async () => {
    const { fake } = await fakes.routeSku(router, 'openai-chat', [{ text: 'Counted.', usage: { input: 1234, output: 5, cached: 200 } }]);
    const message = await client.messages.stream(REQUEST).finalMessage();
    expect(message.usage).toMatchObject({ input_tokens: 1034, cache_read_input_tokens: 200, output_tokens: 5 });
    // The upstream was asked for its usage, which it sends only at the end.
    expect(fake.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('sends the estimate first and the real count in the closing message_delta', async () => {
    await fakes.routeSku(router, 'openai-chat', [{ text: 'Counted.', usage: { input: 1234, output: 5 } }]);
    const response = await fetch(`${router.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': router.key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ ...REQUEST, stream: true }),
    });
    const events = parseSse(await response.text()).map((frame) => JSON.parse(frame.data) as Record<string, any>);
    const start = events.find((event) => event.type === 'message_start')!;
    const delta = events.find((event) => event.type === 'message_delta')!;
    expect(start.message.usage.input_tokens).not.toBe(1234);
    expect(delta.usage).toMatchObject({ input_tokens: 1234, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
  });
});

describe('a Messages stream over an OpenAI Responses upstream', () => {
  it('opens with an estimate rather than zero, and ends with the upstream count', async () => {
    await fakes.routeSku(router, 'openai-responses', [{ text: 'Counted.', usage: { input: 1234, output: 5 } }]);
    const stream = client.messages.stream(REQUEST);
    const started: number[] = [];
    stream.on('streamEvent', (event) => {
      if (event.type === 'message_start') started.push(event.message.usage.input_tokens);
    });
    const message = await stream.finalMessage();
    expect(started).toHaveLength(1);
    expect(started[0]).toBeGreaterThan(0);
    expect(started[0]).not.toBe(1234);
    expect(message.usage).toMatchObject({ input_tokens: 1234, output_tokens: 5 });
  });
});
