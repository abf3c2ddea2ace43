import Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsNonStreaming, MessageParam, ToolUnion } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedTurn } from '../fakes/scripted-turn.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { Fakes, metaOf, SKU, toolNamesOf, UPSTREAM_KINDS, type UpstreamKind } from './support.js';

/**
 * Tool search (Anthropic's defer_loading + tool_reference) from a Messages client, over every
 * upstream type: a deferred tool is held back until a tool result's tool_reference loads it, then
 * reaches the upstream as an ordinary tool, and the model's call to it reaches the client.
 */

let router: TestRouter;
let client: Anthropic;
const fakes = new Fakes();

beforeAll(async () => {
  router = await startRouter({ offlineScript: [{ text: 'Let me look for a fetch tool.' }, { toolCalls: [{ name: 'WebFetch', arguments: { url: 'https://example.com' } }] }] });
  client = new Anthropic({ apiKey: router.key, baseURL: router.origin, maxRetries: 0 });
});
afterEach(() => fakes.closeAll());
afterAll(() => router.close());

const schema = (property: string) => ({ type: 'object' as const, properties: { [property]: { type: 'string' } }, required: [property] });
/** Claude Code's shape: ordinary tools, its client-side ToolSearch, and deferred ones (its placeholder among them). */
const TOOLS: ToolUnion[] = [
  { name: 'Bash', description: 'Runs a command.', input_schema: schema('command') },
  { name: 'CronList', description: 'Lists scheduled jobs.', input_schema: schema('filter'), defer_loading: true },
  { name: 'ToolSearch', description: 'Loads deferred tools.', input_schema: schema('query') },
  { name: 'WebFetch', description: 'Fetches a URL.', input_schema: schema('url'), defer_loading: true },
  { name: 'DeferredToolPlaceholder', description: 'Never call this tool.', input_schema: { type: 'object', properties: {} }, defer_loading: true },
];

const FIRST: MessageParam[] = [{ role: 'user', content: 'Fetch example.com' }];
/** The second request: the model searched, Claude Code's ToolSearch answered with a tool_reference. */
const AFTER_SEARCH: MessageParam[] = [
  ...FIRST,
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_search', name: 'ToolSearch', input: { query: 'select:WebFetch' } }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_search', content: [{ type: 'tool_reference', tool_name: 'WebFetch' }] }] },
];

const SCRIPT: ScriptedTurn[] = [{ text: 'Let me look for a fetch tool.' }, { toolCalls: [{ name: 'WebFetch', arguments: { url: 'https://example.com' } }] }];

function ask(streaming: boolean, messages: MessageParam[]): Promise<Message> {
  const params: MessageCreateParamsNonStreaming = { model: SKU, max_tokens: 512, tools: TOOLS, messages };
  return streaming ? client.messages.stream(params).finalMessage() : client.messages.create(params);
}

const TRANSLATED = UPSTREAM_KINDS.filter((kind): kind is Exclude<UpstreamKind, 'anthropic'> => kind !== 'anthropic');

describe.each(TRANSLATED)('tool search from a Messages client over %s', (kind) => {
  it.each([false, true])('holds deferred tools back, then sends exactly the referenced one; its call reaches the client (streaming: %s)', async (streaming) => {
    const { fake } = await fakes.routeSku(router, kind, SCRIPT);

    const first = await ask(streaming, FIRST);
    expect(toolNamesOf(kind, fake.requests[0]!.body)).toEqual(['Bash', 'ToolSearch']);
    // Held back, not dropped (svc_meta rides on the JSON reply).
    if (!streaming) expect(metaOf(first).dropped_tools).toBeUndefined();

    const second = await ask(streaming, AFTER_SEARCH);
    const sent = fake.requests[1]!.body;
    // Appended after the ordinary tools, as an ordinary function; the placeholder and CronList stay back.
    expect(toolNamesOf(kind, sent)).toEqual(['Bash', 'ToolSearch', 'WebFetch']);
    expect(JSON.stringify(sent)).not.toContain('defer_loading');
    expect(JSON.stringify(sent)).not.toContain('"deferred"');
    // The search's result tells the model what loaded, not a placeholder.
    expect(JSON.stringify(sent)).toContain('Tool loaded: WebFetch. It is in your tool list now; call it directly.');
    expect(JSON.stringify(sent)).not.toContain('Tool available');

    expect(second.stop_reason).toBe('tool_use');
    expect(second.content.filter((block) => block.type === 'tool_use')).toEqual([expect.objectContaining({ type: 'tool_use', name: 'WebFetch', input: { url: 'https://example.com' } })]);
  });
});

describe('tool search from a Messages client over the offline backend', () => {
  it.each([false, true])('answers the loaded tool with a call to it, the search result read as the loaded note (streaming: %s)', async (streaming) => {
    router.config.update((settings) => {
      settings.routes[SKU] = ['offline'];
    });
    const first = await ask(streaming, FIRST);
    expect(first.stop_reason).toBe('end_turn');
    const second = await ask(streaming, AFTER_SEARCH);
    expect(second.content.filter((block) => block.type === 'tool_use')).toEqual([expect.objectContaining({ name: 'WebFetch', input: { url: 'https://example.com' } })]);
    if (!streaming) expect(metaOf(second).dropped_tools).toBeUndefined();
    // Past its script, the offline backend repeats the last tool result it read: the loaded note.
    const later = await ask(streaming, [FIRST[0]!, { role: 'assistant', content: 'Searching.' }, { role: 'user', content: 'Go on.' }, ...AFTER_SEARCH.slice(1)]);
    expect(later.content).toEqual([expect.objectContaining({ type: 'text', text: expect.stringContaining('received the result of tool call toolu_search: "Tool loaded: WebFetch. It is in your tool list now') })]);
  });
});

describe('tool search from a Messages client over anthropic (same format)', () => {
  it.each([false, true])('forwards deferred tools and tool references as sent, for Anthropic to load (streaming: %s)', async (streaming) => {
    const { fake } = await fakes.routeSku(router, 'anthropic', SCRIPT);
    await ask(streaming, FIRST);
    expect(fake.requests[0]!.body.tools).toEqual(TOOLS);
    const second = await ask(streaming, AFTER_SEARCH);
    expect(fake.requests[1]!.body.tools).toEqual(TOOLS);
    expect(fake.requests[1]!.body.messages).toEqual(AFTER_SEARCH);
    expect(second.content.filter((block) => block.type === 'tool_use')).toEqual([expect.objectContaining({ name: 'WebFetch' })]);
  });
});

describe("Anthropic's tool search server tool", () => {
  const withServerSearch: ToolUnion[] = [{ type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' }, ...TOOLS];

  it.each(TRANSLATED)('is refused with a 400 naming it over %s, never silently dropped', async (kind) => {
    const { fake } = await fakes.routeSku(router, kind, SCRIPT);
    const refused = client.messages.create({ model: SKU, max_tokens: 512, tools: withServerSearch, messages: FIRST });
    await expect(refused).rejects.toMatchObject({ status: 400, error: { type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining("tools.0: the server tool 'tool_search_tool_regex_20251119' runs only on an Anthropic upstream") } } });
    expect(fake.requests).toHaveLength(0);
  });

  it('reaches an Anthropic upstream as sent', async () => {
    const { fake } = await fakes.routeSku(router, 'anthropic', SCRIPT);
    await client.messages.create({ model: SKU, max_tokens: 512, tools: withServerSearch, messages: FIRST });
    expect(fake.requests[0]!.body.tools).toEqual(withServerSearch);
  });
});
