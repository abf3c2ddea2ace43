import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSse } from '../helpers/sse-frames.js';
import type { FakeUpstream } from './fake-server.js';
import { startOpenAIResponsesUpstream } from './openai-responses-upstream.js';
import type { ScriptedTurn } from './scripted-turn.js';

const started: FakeUpstream[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((fake) => fake.close()));
});

async function responsesFake(script: Parameters<typeof startOpenAIResponsesUpstream>[0], options?: Parameters<typeof startOpenAIResponsesUpstream>[1]) {
  const fake = await startOpenAIResponsesUpstream(script, { apiKey: 'sk-resp-test', ...options });
  started.push(fake);
  return { fake, client: new OpenAI({ apiKey: 'sk-resp-test', baseURL: fake.url, maxRetries: 0 }) };
}

const WEATHER_TOOL: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'get_weather',
  strict: true,
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
};

const reasoningTextAndCalls: ScriptedTurn = {
  reasoning: { text: 'Two cities, two calls.', signature: 'enc-sig-1' },
  text: 'Checking 東京 and Paris ☀️.',
  toolCalls: [
    { id: 'call_paris', name: 'get_weather', arguments: { city: 'Paris' } },
    { id: 'call_tokyo', name: 'get_weather', arguments: { city: '東京' } },
  ],
  usage: { input: 300, output: 40, cached: 200 },
  chunkSize: 3,
};

/** Reads an SSE body into its frames: the `event:` name and the parsed data. */
async function rawEvents(response: globalThis.Response): Promise<Array<{ name: string | undefined; data: ResponseStreamEvent }>> {
  return parseSse(await response.text()).map((frame) => ({ name: frame.event, data: JSON.parse(frame.data) as ResponseStreamEvent }));
}

describe('OpenAI Responses fake with the official openai SDK', () => {
  it('answers responses.create with reasoning, message and function_call items, usage, and records the request', async () => {
    const { fake, client } = await responsesFake([reasoningTextAndCalls]);
    const response = await client.responses.create({
      model: 'gpt-5-fake',
      input: 'weather in Paris and Tokyo?',
      tools: [WEATHER_TOOL],
      include: ['reasoning.encrypted_content'],
      store: false,
    });

    expect(response).toMatchObject({ object: 'response', status: 'completed', model: 'gpt-5-fake', error: null });
    expect(response.id).toMatch(/^resp_/);
    expect(response.output_text).toBe('Checking 東京 and Paris ☀️.');
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message', 'function_call', 'function_call']);
    expect(response.output[0]).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'Two cities, two calls.' }], encrypted_content: 'enc-sig-1' });
    expect(response.output[1]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Checking 東京 and Paris ☀️.' }] });
    expect(response.output.slice(2)).toMatchObject([
      { type: 'function_call', call_id: 'call_paris', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' },
      { type: 'function_call', call_id: 'call_tokyo', name: 'get_weather', arguments: '{"city":"東京"}', status: 'completed' },
    ]);
    expect(response.usage).toMatchObject({ input_tokens: 300, output_tokens: 40, total_tokens: 340, input_tokens_details: { cached_tokens: 200 } });

    // Without asking, no encrypted reasoning comes back.
    const plain = await client.responses.create({ model: 'gpt-5-fake', input: 'again' });
    expect(plain.output[0]).not.toHaveProperty('encrypted_content');

    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[0]).toMatchObject({ method: 'POST', path: '/v1/responses' });
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer sk-resp-test');
    expect(fake.requests[0]!.body).toMatchObject({ model: 'gpt-5-fake', input: 'weather in Paris and Tokyo?', tools: [{ type: 'function', name: 'get_weather' }] });
  });

  it('streams a response that responses.stream().finalResponse() reassembles, with text deltas along the way', async () => {
    const { client } = await responsesFake([reasoningTextAndCalls]);
    const stream = client.responses.stream({ model: 'gpt-5-fake', input: 'weather?', tools: [WEATHER_TOOL] });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const response = await stream.finalResponse();

    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Checking 東京 and Paris ☀️.');
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('Checking 東京 and Paris ☀️.');
    expect(response.output.slice(2)).toMatchObject([
      { type: 'function_call', call_id: 'call_paris', arguments: '{"city":"Paris"}' },
      { type: 'function_call', call_id: 'call_tokyo', arguments: '{"city":"東京"}' },
    ]);
    expect(response.usage).toMatchObject({ input_tokens: 300, output_tokens: 40 });
  });

  it('follows the event grammar: named events, sequence numbers rising from 0, items opened and closed in order', async () => {
    const { fake } = await responsesFake([reasoningTextAndCalls]);
    const response = await fetch(`${fake.url}/responses`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-resp-test', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-5-fake', input: 'x', stream: true }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await rawEvents(response);

    expect(events.every((event) => event.name === event.data.type)).toBe(true);
    expect(events.map((event) => event.data.sequence_number)).toEqual(events.map((_, index) => index));

    // Collapse runs of deltas so the sequence reads as the grammar.
    const shape = events
      .map(({ data }) => ('output_index' in data ? `${data.type} ${data.output_index}` : data.type))
      .filter((entry, i, all) => entry !== all[i - 1]);
    expect(shape).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added 0',
      'response.reasoning_summary_part.added 0',
      'response.reasoning_summary_text.delta 0',
      'response.reasoning_summary_text.done 0',
      'response.reasoning_summary_part.done 0',
      'response.output_item.done 0',
      'response.output_item.added 1',
      'response.content_part.added 1',
      'response.output_text.delta 1',
      'response.output_text.done 1',
      'response.content_part.done 1',
      'response.output_item.done 1',
      'response.output_item.added 2',
      'response.function_call_arguments.delta 2',
      'response.function_call_arguments.done 2',
      'response.output_item.done 2',
      'response.output_item.added 3',
      'response.function_call_arguments.delta 3',
      'response.function_call_arguments.done 3',
      'response.output_item.done 3',
      'response.completed',
    ]);

    const created = events[0]!.data;
    expect(created.type === 'response.created' && created.response).toMatchObject({ status: 'in_progress', output: [] });
    const added = events.find((event) => event.data.type === 'response.output_item.added' && event.data.output_index === 2)!.data;
    expect(added).toMatchObject({ item: { type: 'function_call', call_id: 'call_paris', name: 'get_weather', arguments: '', status: 'in_progress' } });
    const itemId = added.type === 'response.output_item.added' ? added.item.id : undefined;
    const fragments = events.flatMap(({ data }) => (data.type === 'response.function_call_arguments.delta' && data.item_id === itemId ? [data.delta] : []));
    expect(fragments.length).toBeGreaterThan(1);
    expect(fragments.join('')).toBe('{"city":"Paris"}');
    const completed = events.at(-1)!.data;
    expect(completed.type === 'response.completed' && completed.response).toMatchObject({ status: 'completed', usage: { input_tokens: 300, output_tokens: 40 } });
  });

  it('reassembles frames written a few bytes at a time, even through multi-byte characters', async () => {
    const text = 'Grüße 🌍 from 東京 👋🏽';
    const { client } = await responsesFake([{ text, chunkSize: 2 }], { fragmentBytes: 5 });
    const stream = await client.responses.create({ model: 'm', input: 'x', stream: true });
    let received = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') received += event.delta;
    expect(received).toBe(text);
  });

  it('ends a turn cut at the length limit as incomplete', async () => {
    const { client } = await responsesFake([{ text: 'cut sho', stop: 'length' }]);
    const response = await client.responses.create({ model: 'm', input: 'x', max_output_tokens: 2 });
    expect(response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, max_output_tokens: 2 });
    const streamed = await client.responses.stream({ model: 'm', input: 'x' }).finalResponse();
    expect(streamed.status).toBe('incomplete');
  });

  it('rejects a wrong key with an OpenAI-shaped 401 and answers scripted errors', async () => {
    const { fake, client } = await responsesFake([{ status: 503 }, { text: 'after' }]);
    const intruder = new OpenAI({ apiKey: 'sk-wrong-key-123', baseURL: fake.url, maxRetries: 0 });
    const denied = await intruder.responses.create({ model: 'm', input: 'x' }).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((denied as Error).message).not.toContain('sk-wrong-key-123');

    const overloaded = await client.responses.create({ model: 'm', input: 'x' }).catch((e: unknown) => e);
    expect(overloaded).toBeInstanceOf(OpenAI.InternalServerError);
    expect(overloaded).toMatchObject({ status: 503 });
    expect((await client.responses.create({ model: 'm', input: 'x' })).output_text).toBe('after');
  });
});
