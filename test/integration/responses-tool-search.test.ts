import OpenAI from 'openai';
import type { Response, ResponseInputItem, Tool } from 'openai/resources/responses/responses';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedTurn } from '../fakes/scripted-turn.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { Fakes, metaOf, SKU, toolNamesOf, upstreamCallId, UPSTREAM_KINDS } from './support.js';

/**
 * Tool search from a Responses client (https://developers.openai.com/api/docs/guides/tools-tool-search):
 * an openai-responses upstream gets the client's own tool_search, deferred functions and search
 * items as sent; any other upstream is offered a client-run tool_search as a function, the model's
 * call reaches the client as a tool_search_call, and the tools a tool_search_output returns reach
 * the upstream as ordinary functions from then on. A hosted tool_search is refused there.
 */

const SEARCH_TURN = { toolCalls: [{ id: 'call_search', name: 'tool_search', arguments: { query: 'weather' } }] };
const WEATHER_TURN = { toolCalls: [{ id: 'call_weather', name: 'get_weather', arguments: { city: 'Paris' } }] };

let router: TestRouter;
let client: OpenAI;
const fakes = new Fakes();

beforeAll(async () => {
  router = await startRouter({ offlineScript: [SEARCH_TURN, WEATHER_TURN] });
  client = new OpenAI({ apiKey: router.key, baseURL: router.baseURL, maxRetries: 0 });
});
afterEach(() => fakes.closeAll());
afterAll(() => router.close());

const params = (properties: string) => ({ type: 'object', properties: { [properties]: { type: 'string' } }, required: [properties], additionalProperties: false });
const WEATHER: Tool = { type: 'function', name: 'get_weather', description: 'Weather for a city.', parameters: params('city'), strict: true, defer_loading: true };
const TOOLS: Tool[] = [
  { type: 'function', name: 'exec_command', description: 'Runs a command.', parameters: params('cmd'), strict: false },
  { type: 'tool_search', execution: 'client', description: 'Searches the deferred tools.', parameters: params('query') },
  WEATHER,
  { type: 'function', name: 'send_mail', description: 'Sends mail.', parameters: params('to'), strict: false, defer_loading: true },
];

const FIRST: ResponseInputItem[] = [{ role: 'user', content: 'Weather in Paris?' }];
/** The client replays the search call it got and answers it with the tools its search found. */
const afterSearch = (callId = 'call_search'): ResponseInputItem[] => [
  ...FIRST,
  { type: 'tool_search_call', call_id: callId, execution: 'client', arguments: { query: 'weather' }, status: 'completed' },
  { type: 'tool_search_output', call_id: callId, execution: 'client', status: 'completed', tools: [WEATHER] },
];
const AFTER_SEARCH = afterSearch();

function ask(streaming: boolean, input: ResponseInputItem[]): Promise<Response> {
  const body = { model: SKU, input, tools: TOOLS, store: false };
  return streaming ? client.responses.stream(body).finalResponse() : client.responses.create(body);
}

const TRANSLATED = UPSTREAM_KINDS.filter((kind) => kind !== 'openai-responses');

describe.each(TRANSLATED)('tool search from a Responses client over %s', (kind) => {
  it.each([false, true])('offers tool_search, answers its call as a tool_search_call, then sends the loaded function (streaming: %s)', async (streaming) => {
    const script: ScriptedTurn[] = [SEARCH_TURN, WEATHER_TURN];
    const { fake } = await fakes.routeSku(router, kind, script);

    const first = await ask(streaming, FIRST);
    expect(toolNamesOf(kind, fake.requests[0]!.body)).toEqual(['exec_command', 'tool_search']);
    expect(first.output).toEqual([expect.objectContaining({ type: 'tool_search_call', execution: 'client', arguments: { query: 'weather' }, status: 'completed' })]);
    const searchCall = first.output[0] as { call_id: string };
    // Gemini's calls get ids of the router's own that carry Gemini's.
    expect(upstreamCallId(kind, searchCall.call_id)).toBe('call_search');
    if (!streaming) expect(metaOf(first).dropped_tools).toBeUndefined();

    const second = await ask(streaming, afterSearch(searchCall.call_id));
    const sent = fake.requests[1]!.body;
    expect(toolNamesOf(kind, sent)).toEqual(['exec_command', 'tool_search', 'get_weather']);
    expect(JSON.stringify(sent)).toContain('Tool loaded: get_weather. It is in your tool list now; call it directly.');
    expect(second.output).toEqual([expect.objectContaining({ type: 'function_call', name: 'get_weather', arguments: '{"city":"Paris"}' })]);
    expect(upstreamCallId(kind, (second.output[0] as { call_id: string }).call_id)).toBe('call_weather');
  });
});

describe('tool search from a Responses client over the offline backend', () => {
  it.each([false, true])('answers with a tool_search_call, then a call to the loaded function (streaming: %s)', async (streaming) => {
    router.config.update((settings) => {
      settings.routes[SKU] = ['offline'];
    });
    const first = await ask(streaming, FIRST);
    expect(first.output).toEqual([expect.objectContaining({ type: 'tool_search_call', call_id: 'call_search', arguments: { query: 'weather' } })]);
    const second = await ask(streaming, AFTER_SEARCH);
    expect(second.output).toEqual([expect.objectContaining({ type: 'function_call', name: 'get_weather' })]);
  });
});

describe('tool search from a Responses client over openai-responses (same format)', () => {
  it.each([false, true])('forwards tool_search, the deferred functions and the search items as sent (streaming: %s)', async (streaming) => {
    const { fake } = await fakes.routeSku(router, 'openai-responses', [{ text: 'ok' }]);
    await ask(streaming, AFTER_SEARCH);
    expect(fake.requests[0]!.body.tools).toEqual(TOOLS);
    expect(fake.requests[0]!.body.input).toEqual(AFTER_SEARCH);
  });
});

describe('a hosted tool_search', () => {
  const hosted: Tool[] = [{ type: 'tool_search' }, WEATHER];

  it.each(TRANSLATED)('is refused with a 400 naming it over %s', async (kind) => {
    const { fake } = await fakes.routeSku(router, kind, [{ text: 'ok' }]);
    await expect(client.responses.create({ model: SKU, input: FIRST, tools: hosted })).rejects.toMatchObject({ status: 400, error: { message: expect.stringContaining('tools[0]: the hosted tool_search runs only on an OpenAI Responses upstream'), param: 'tools[0]' } });
    expect(fake.requests).toHaveLength(0);
  });
});
