import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLEARED_TOOL_RESULT } from '../../src/core/context-edits.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { Fakes, metaOf, setRoute, SKU, toolExchangeOf, WEATHER_SCHEMA, type UpstreamKind } from './support.js';

/**
 * Anthropic's context editing (`context_management.edits`) on every upstream type, over real
 * sockets: a translating upstream (openai-chat, openai-responses, gemini, the offline backend)
 * gets the conversation as the router edited it, and the client gets `context_management` where
 * Anthropic puts it (the message body; the final message_delta event when streamed); an Anthropic
 * upstream gets the client's body untouched, edits included, and answers for itself.
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

const TOOLS: Tool[] = [{ name: 'get_weather', description: 'Current weather for a city', input_schema: { ...WEATHER_SCHEMA } }];
const CITIES = ['Paris', 'Oslo', 'Lima', 'Rome', 'Kyiv'];
const report = (city: string) => `Weather report for ${city}: ${'clear skies and a light breeze, '.repeat(40)}`;

/** Five weather lookups, each answered, then a question. */
function conversation(): MessageParam[] {
  const messages: MessageParam[] = [{ role: 'user', content: 'Compare the weather in five cities.' }];
  CITIES.forEach((city, index) => {
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `toolu_0${index}`, name: 'get_weather', input: { city } }] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_0${index}`, content: report(city) }] });
  });
  return messages;
}

/** Past two tool uses, all but the last two results are cleared. */
const CONTEXT_MANAGEMENT = { edits: [{ type: 'clear_tool_uses_20250919', trigger: { type: 'tool_uses', value: 2 }, keep: { type: 'tool_uses', value: 2 } }] };
const params = () => ({ model: SKU, max_tokens: 256, tools: TOOLS, messages: conversation(), context_management: CONTEXT_MANAGEMENT }) as any;

/** The reply's context_management, from the JSON body or from the streamed message_delta event. */
async function ask(stream: boolean): Promise<{ contextManagement: unknown; warnings: string[] }> {
  if (!stream) {
    const message: any = await client.messages.create(params());
    return { contextManagement: message.context_management, warnings: metaOf(message).warnings ?? [] };
  }
  const events: any[] = [];
  const streamed = (await client.messages.create({ ...params(), stream: true })) as unknown as AsyncIterable<unknown>;
  for await (const event of streamed) events.push(event);
  const delta = events.find((event) => event.type === 'message_delta');
  expect(events.at(-1)?.type).toBe('message_stop');
  return { contextManagement: delta?.context_management, warnings: delta?.svc_meta?.warnings ?? [] };
}

const expectApplied = (contextManagement: any) => {
  expect(contextManagement).toEqual({ applied_edits: [{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 3, cleared_input_tokens: expect.any(Number) }] });
  // Three reports of about 1,300 characters each, less the placeholder.
  expect(contextManagement.applied_edits[0].cleared_input_tokens).toBeGreaterThan(900);
};

const TRANSLATING: Array<Exclude<UpstreamKind, 'anthropic'>> = ['openai-chat', 'openai-responses', 'gemini'];

describe.each(TRANSLATING)('context editing over an %s upstream', (kind) => {
  it.each([false, true])('the upstream gets the oldest results cleared, and the client gets context_management (streamed: %s)', async (stream) => {
    const { fake } = await fakes.routeSku(router, kind, [{ text: 'Paris is sunniest.' }]);
    const { contextManagement, warnings } = await ask(stream);

    const sent = toolExchangeOf(kind, fake.requests[0]!.body);
    expect(sent.results.map((result) => result.output)).toEqual([CLEARED_TOOL_RESULT, CLEARED_TOOL_RESULT, CLEARED_TOOL_RESULT, report('Rome'), report('Kyiv')]);
    // The calls themselves stay, inputs included (clear_tool_inputs was not asked).
    expect(sent.calls.map((call) => call.args)).toEqual(CITIES.map((city) => ({ city })));
    expectApplied(contextManagement);
    expect(warnings.filter((warning) => warning.includes('context_management'))).toEqual([]);
  });
});

describe('context editing over the offline backend', () => {
  it.each([false, true])('the offline backend sees the cleared result, and the client gets context_management (streamed: %s)', async (stream) => {
    setRoute(router, SKU, ['offline']);
    // The last result is cleared too (keep 0): the offline reply quotes what it received.
    const body = { ...params(), context_management: { edits: [{ ...CONTEXT_MANAGEMENT.edits[0], keep: { type: 'tool_uses', value: 0 } }] } };
    const message: any = stream ? await client.messages.stream(body).finalMessage() : await client.messages.create(body);
    expect(message.content[0].text).toContain(`received the result of tool call toolu_04: "${CLEARED_TOOL_RESULT}"`);
    if (!stream) expect(message.context_management).toEqual({ applied_edits: [{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 5, cleared_input_tokens: expect.any(Number) }] });
    else {
      const { contextManagement } = await ask(true);
      expectApplied(contextManagement);
    }
  });
});

describe('context editing over an Anthropic upstream (forwarded)', () => {
  it.each([false, true])("the upstream gets the client's body, edits included, and its own answer reaches the client (streamed: %s)", async (stream) => {
    const upstreamEdits = { applied_edits: [{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 3, cleared_input_tokens: 987 }] };
    const { fake } = await fakes.routeSku(router, 'anthropic', [{ text: 'Paris is sunniest.', ...(stream ? {} : { anthropicExtra: { context_management: upstreamEdits } }) }]);
    const { contextManagement } = await ask(stream);

    const sent = fake.requests[0]!.body as any;
    expect(sent.messages).toEqual(conversation());
    expect(sent.context_management).toEqual(CONTEXT_MANAGEMENT);
    // What the client gets is the upstream's word, never the router's own count.
    expect(contextManagement).toEqual(stream ? undefined : upstreamEdits);
  });
});

describe('bad context edits', () => {
  it.each(['openai-chat', 'anthropic'] as const)('are refused with a 400 in Anthropic’s shape, naming the field, before any %s upstream is called', async (kind) => {
    const { fake } = await fakes.routeSku(router, kind, [{ text: 'never' }]);
    const response = await fetch(`${router.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': router.key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ ...params(), context_management: { edits: [{ type: 'clear_tool_uses_20250919', keep: { type: 'tool_uses', value: -2 } }] } }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'context_management.edits.0.keep.value: must be at least 0.' },
    });
    expect(fake.requests).toHaveLength(0);
  });
});
