import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import OpenAI, { APIError } from 'openai';
import type {
  Response,
  ResponseCreateParamsNonStreaming,
  ResponseFunctionToolCall,
  ResponseInputItem,
  ResponseReasoningItem,
  ResponseStreamEvent,
  Tool,
} from 'openai/resources/responses/responses';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedTurn as OfflineTurn } from '../../src/backends/offline/script.js';
import type { RecordedRequest } from '../fakes/fake-server.js';
import type { ScriptedTurn } from '../fakes/scripted-turn.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import {
  addBackend,
  expectToolResultsUpstream,
  Fakes,
  metaOf,
  parseSse,
  setRoute,
  SKU,
  lastUserText,
  maxOutputTokensOf,
  streamedUpstream,
  systemTextOf,
  toolExchangeOf,
  toolNamesOf,
  upstreamCallId,
  upstreamModelOf,
  UPSTREAM_KINDS,
  WEATHER_SCHEMA,
  type UpstreamKind,
} from './support.js';

/** Every backend type the router has: those with fake upstreams, and the built-in offline one. */
const BACKEND_KINDS = [...UPSTREAM_KINDS, 'offline'] as const;
type BackendKind = (typeof BACKEND_KINDS)[number];

let router: TestRouter;
let client: OpenAI;
const fakes = new Fakes();
const extraRouters: TestRouter[] = [];
const servers: http.Server[] = [];

beforeAll(async () => {
  router = await startRouter();
  client = new OpenAI({ apiKey: router.key, baseURL: router.baseURL, maxRetries: 0 });
});
afterEach(async () => {
  await fakes.closeAll();
  await Promise.all(extraRouters.splice(0).map((extra) => extra.close()));
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    ),
  );
});
afterAll(() => router.close());

const WEATHER_TOOL: Tool = {
  type: 'function',
  name: 'get_weather',
  description: 'Current weather for a city',
  strict: true,
  parameters: { ...WEATHER_SCHEMA },
};

/** Built-in tool types: hosted by OpenAI or run by the client, never by a backend here. */
const BUILT_IN_TOOLS: Tool[] = [
  // Web search is not among them: every route runs it (test/integration/web-search.test.ts).
  { type: 'local_shell' },
  { type: 'file_search', vector_store_ids: ['vs_docs'] },
  { type: 'code_interpreter', container: { type: 'auto' } },
  { type: 'image_generation' },
  { type: 'mcp', server_label: 'docs', server_url: 'https://mcp.example.com/sse', require_approval: 'never' },
  { type: 'computer_use_preview', display_width: 1280, display_height: 800, environment: 'linux' },
  {
    type: 'tool_search',
    execution: 'client',
    description: 'Searches over deferred tool metadata.',
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'], additionalProperties: false },
  },
];
/** Built-in types a translating upstream cannot take; a client-run tool_search is offered as a function instead. */
const BUILT_IN_TYPES = BUILT_IN_TOOLS.map((tool) => tool.type).filter((type) => type !== 'tool_search');

interface Served {
  kind: BackendKind;
  client: OpenAI;
  router: TestRouter;
  /** What the upstream received; always empty for the offline backend. */
  requests: RecordedRequest[];
  backend: string;
  upstreamModel: string;
}

const toOfflineTurn = (turn: ScriptedTurn): OfflineTurn => ({
  ...(turn.reasoning ? { reasoning: turn.reasoning.text } : {}),
  ...(turn.text !== undefined ? { text: turn.text } : {}),
  ...(turn.toolCalls ? { toolCalls: turn.toolCalls.map((call) => ({ name: call.name, arguments: call.arguments, ...(call.id ? { id: call.id } : {}) })) } : {}),
});

/**
 * Routes the SKU to a backend of this kind answering with these turns: a fake upstream, or for
 * `offline` a router of its own whose offline backend follows the same turns.
 */
async function serve(kind: BackendKind, turns: ScriptedTurn[]): Promise<Served> {
  if (kind === 'offline') {
    const offline = await startRouter({ offlineScript: turns.map(toOfflineTurn) });
    extraRouters.push(offline);
    setRoute(offline, SKU, ['offline']);
    return { kind, router: offline, client: new OpenAI({ apiKey: offline.key, baseURL: offline.baseURL, maxRetries: 0 }), requests: [], backend: 'offline', upstreamModel: SKU };
  }
  const fake = await fakes.start(kind, turns);
  const backend = addBackend(router, `up-${kind}`, kind, fake.url);
  const upstreamModel = `model-for-${kind}`;
  setRoute(router, SKU, [`${backend}:${upstreamModel}`]);
  return { kind, router, client, requests: fake.requests, backend, upstreamModel };
}

/** Routes the SKU to a plain HTTP server of our own, registered as a backend of this kind. */
async function serveRaw(kind: UpstreamKind, handle: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<{ backend: string; bodies: unknown[] }> {
  const bodies: unknown[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    bodies.push(body ? JSON.parse(body) : undefined);
    handle(req, res, body);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const backend = addBackend(router, `raw-${kind}`, kind, kind === 'anthropic' ? origin : `${origin}/v1`);
  setRoute(router, SKU, [`${backend}:raw-model`]);
  return { backend, bodies };
}

/** Writes these SSE frames, then drops the connection once they are flushed: a stream cut mid-answer. */
function writeThenDrop(res: ServerResponse, frames: string[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.write(frames.join(''), () => res.destroy());
}

const sseFrame = (data: unknown, event?: string): string => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

type Event = Record<string, any> & { type: string; sequence_number: number };
const TERMINAL = ['response.completed', 'response.incomplete', 'response.failed'];

async function collectEvents(stream: AsyncIterable<ResponseStreamEvent>): Promise<Event[]> {
  const events: Event[] = [];
  for await (const event of stream) events.push(event as unknown as Event);
  return events;
}

/**
 * The Responses stream grammar: created and in_progress first, one terminal event last, sequence
 * numbers 0, 1, 2, …; output items added at 0, 1, 2, … in order; every event about an item names
 * the output_index and item id it was added with, comes after its `added` and (unless the
 * response failed) before its one `done`; the terminal response lists exactly the done items.
 */
function expectWellFormed(events: Event[], terminal: 'response.completed' | 'response.incomplete' | 'response.failed' = 'response.completed'): Event {
  expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
  expect(events.slice(0, 2).map((event) => event.type)).toEqual(['response.created', 'response.in_progress']);
  expect(events.filter((event) => TERMINAL.includes(event.type)).map((event) => event.type)).toEqual([terminal]);
  const last = events.at(-1)!;
  expect(last.type).toBe(terminal);
  const responseId = events[0]!.response.id;
  for (const event of events) if (event.response) expect(event.response.id).toBe(responseId);

  const added = events.filter((event) => event.type === 'response.output_item.added');
  expect(added.map((event) => event.output_index)).toEqual(added.map((_, index) => index));
  expect(new Set(added.map((event) => event.item.id)).size).toBe(added.length);
  events.forEach((event, position) => {
    if (event.output_index === undefined) return;
    const opened = added[event.output_index];
    expect(opened, `${event.type} names output_index ${event.output_index}, which was never added`).toBeDefined();
    expect(position).toBeGreaterThanOrEqual(events.indexOf(opened!));
    if (event.item_id !== undefined) expect(event.item_id).toBe(opened!.item.id);
    if (event.item !== undefined) {
      expect(event.item.id).toBe(opened!.item.id);
      expect(event.item.type).toBe(opened!.item.type);
      if (opened!.item.call_id !== undefined) expect(event.item.call_id).toBe(opened!.item.call_id);
    }
  });
  const done = events.filter((event) => event.type === 'response.output_item.done');
  if (terminal !== 'response.failed') {
    expect(done.map((event) => event.output_index).sort((a, b) => a - b)).toEqual(added.map((_, index) => index));
    for (const item of done) {
      const after = events.slice(events.indexOf(item) + 1).filter((event) => event.output_index === item.output_index);
      expect(after, `events for output_index ${item.output_index} after its output_item.done`).toEqual([]);
    }
  }
  const doneItems = [...done].sort((a, b) => a.output_index - b.output_index).map((event) => event.item);
  expect(last.response.output).toEqual(doneItems);
  return last;
}

const functionCalls = (response: Response): ResponseFunctionToolCall[] =>
  response.output.filter((item): item is ResponseFunctionToolCall => item.type === 'function_call');

/** What a client replays: its input so far, the response's output items, then the given items. */
const replay = (input: ResponseInputItem[], response: Response, ...more: ResponseInputItem[]): ResponseInputItem[] => [
  ...input,
  ...(response.output as ResponseInputItem[]),
  ...more,
];

async function expectApiError(promise: Promise<unknown>, status: number): Promise<APIError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(APIError);
  expect((error as APIError).status).toBe(status);
  return error as APIError;
}

describe.each(BACKEND_KINDS)('responses client (openai SDK) over the %s backend', (kind) => {
  it('answers responses.create with the text, usage and svc_meta', async () => {
    const text = 'Hello from upstream 👋';
    const s = await serve(kind, [{ text, usage: { input: 120, output: 9, cached: 80 } }]);
    const response = await s.client.responses.create({ model: SKU, instructions: 'Be brief.', input: 'Say hello' });

    expect(response).toMatchObject({ object: 'response', status: 'completed', model: SKU, error: null, incomplete_details: null, instructions: 'Be brief.' });
    expect(response.id).toMatch(/^resp_/);
    expect(response.output_text).toBe(text);
    expect(response.output).toHaveLength(1);
    expect(response.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] });
    expect(response.usage!.total_tokens).toBe(response.usage!.input_tokens + response.usage!.output_tokens);
    expect(metaOf(response)).toMatchObject({ sku: SKU, backend: s.backend, upstream_model: s.upstreamModel, attempts: 1 });
    expect(metaOf(response).dropped_tools).toBeUndefined();
    if (kind === 'offline') {
      expect(metaOf(response).offline).toBe(true);
      return;
    }
    expect(response.usage).toMatchObject({ input_tokens: 120, output_tokens: 9, total_tokens: 129, input_tokens_details: { cached_tokens: 80 } });
    expect(s.requests).toHaveLength(1);
    const sent = s.requests[0]!.body;
    expect(upstreamModelOf(s.requests[0]!)).toBe(s.upstreamModel);
    expect(streamedUpstream(s.requests[0]!)).toBe(false);
    expect(systemTextOf(kind, sent)).toBe('Be brief.');
    if (kind === 'openai-responses') expect(sent.input).toBe('Say hello');
    else expect(lastUserText(kind, sent)).toBe('Say hello');
  });

  it('streams through responses.stream(): text deltas, a well-formed event sequence and finalResponse()', async () => {
    const text = 'Streaming works fine, thanks for asking.';
    const s = await serve(kind, [{ text, chunkSize: 3, usage: { input: 30, output: 8 } }]);
    const stream = s.client.responses.stream({ model: SKU, input: [{ role: 'user', content: 'Stream please' }] });
    const deltas: string[] = [];
    const events: Event[] = [];
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    stream.on('event', (event) => events.push(event as unknown as Event));
    const final = await stream.finalResponse();

    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(text);
    expect(final).toMatchObject({ status: 'completed', model: SKU, output_text: text });
    const completed = expectWellFormed(events);
    expect(events.map((event) => event.type).filter((type) => type !== 'response.output_text.delta')).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(metaOf(completed.response)).toMatchObject({ backend: s.backend, attempts: 1 });
    expect(metaOf(final)).toEqual(metaOf(completed.response));
    if (kind !== 'offline') {
      expect(completed.response.usage).toMatchObject({ input_tokens: 30, output_tokens: 8, total_tokens: 38 });
      expect(streamedUpstream(s.requests[0]!)).toBe(true);
    }
  });

  it('streams events for `for await` over responses.create({ stream: true })', async () => {
    const text = 'Chunk by chunk, 東京 included.';
    const s = await serve(kind, [{ text, chunkSize: 2 }]);
    const events = await collectEvents(await s.client.responses.create({ model: SKU, input: 'chunks please', stream: true }));

    const completed = expectWellFormed(events);
    const deltas = events.filter((event) => event.type === 'response.output_text.delta');
    expect(deltas.map((event) => event.delta).join('')).toBe(text);
    for (const delta of deltas) expect(delta).toMatchObject({ output_index: 0, content_index: 0 });
    expect(events.find((event) => event.type === 'response.output_text.done')).toMatchObject({ text, output_index: 0, content_index: 0 });
    expect(completed.response).toMatchObject({ status: 'completed', model: SKU, output: [{ type: 'message', content: [{ type: 'output_text', text }] }] });
  });

  it.each([false, true])('runs a two-turn function-call loop with parallel calls whose call ids round-trip (streaming: %s)', async (streaming) => {
    const answer = 'Paris is 18°C and 東京 is 24°C.';
    const turns: ScriptedTurn[] = [
      {
        toolCalls: [
          { id: 'call_paris_1', name: 'get_weather', arguments: { city: 'Paris' } },
          { id: 'call_tokyo_2', name: 'get_weather', arguments: { city: '東京' } },
        ],
        chunkSize: 4,
      },
      { text: answer },
    ];
    // Offline answers the second turn by quoting the tool result it received.
    const s = await serve(kind, kind === 'offline' ? turns.slice(0, 1) : turns);
    let input: ResponseInputItem[] = [{ role: 'user', content: 'Weather in Paris and Tokyo?' }];
    const ask = async (): Promise<Response> => {
      if (!streaming) return s.client.responses.create({ model: SKU, input, tools: [WEATHER_TOOL] });
      const stream = s.client.responses.stream({ model: SKU, input, tools: [WEATHER_TOOL] });
      const events: Event[] = [];
      stream.on('event', (event) => events.push(event as unknown as Event));
      const final = await stream.finalResponse();
      expectWellFormed(events);
      return final;
    };

    const first = await ask();
    expect(first.status).toBe('completed');
    const calls = functionCalls(first);
    expect(calls.map((call) => ({ name: call.name, args: JSON.parse(call.arguments) }))).toEqual([
      { name: 'get_weather', args: { city: 'Paris' } },
      { name: 'get_weather', args: { city: '東京' } },
    ]);
    expect(calls.map((call) => upstreamCallId(kind, call.call_id))).toEqual(['call_paris_1', 'call_tokyo_2']);
    for (const call of calls) expect(call).toMatchObject({ type: 'function_call', status: 'completed', id: expect.stringMatching(/^fc_/) });
    expect(first.output_text).toBe('');

    const results = calls.map((call) => ({ id: call.call_id, output: `${(JSON.parse(call.arguments) as { city: string }).city}: sunny` }));
    input = replay(input, first, ...results.map((result): ResponseInputItem => ({ type: 'function_call_output', call_id: result.id, output: result.output })));
    const second = await ask();

    expect(second.status).toBe('completed');
    expect(functionCalls(second)).toEqual([]);
    if (kind === 'offline') {
      // The offline backend quotes the first tool result of the last message.
      expect(second.output_text).toContain('tool call call_paris_1');
      expect(second.output_text).toContain('Paris: sunny');
      return;
    }
    expect(second.output_text).toBe(answer);
    expect(s.requests).toHaveLength(2);
    const replayed = s.requests[1]!.body;
    expectToolResultsUpstream(kind, replayed, results);
    expect(toolExchangeOf(kind, replayed).calls).toEqual([
      { id: 'call_paris_1', name: 'get_weather', args: { city: 'Paris' } },
      { id: 'call_tokyo_2', name: 'get_weather', args: { city: '東京' } },
    ]);
  });

  it.each([false, true])('accepts built-in tool types; a translating upstream does not get them and svc_meta.dropped_tools lists them (streaming: %s)', async (streaming) => {
    const s = await serve(kind, [{ text: 'No tools needed.' }]);
    const tools = [WEATHER_TOOL, ...BUILT_IN_TOOLS];
    const response = streaming
      ? await s.client.responses.stream({ model: SKU, input: 'hi', tools }).finalResponse()
      : await s.client.responses.create({ model: SKU, input: 'hi', tools });

    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('No tools needed.');
    // The response echoes the tools as the client declared them.
    expect(response.tools).toEqual(tools);
    if (kind === 'openai-responses') {
      // An upstream Responses API runs its own hosted tools: nothing is dropped.
      expect(metaOf(response).dropped_tools).toBeUndefined();
      expect(s.requests[0]!.body.tools).toEqual(tools);
      return;
    }
    expect(metaOf(response).dropped_tools).toEqual(BUILT_IN_TYPES);
    if (kind === 'offline') return;
    const sent = s.requests[0]!.body;
    expect(toolNamesOf(kind, sent)).toEqual(['get_weather', 'tool_search']);
    const serialised = JSON.stringify(sent);
    for (const type of BUILT_IN_TYPES) expect(serialised).not.toContain(`"${type}"`);
  });

  it('accepts store: true and previous_response_id, echoing both', async () => {
    const s = await serve(kind, [{ text: 'first answer' }, { text: 'second answer' }]);
    const first = await s.client.responses.create({ model: SKU, input: 'one', store: true });
    expect(first).toMatchObject({ status: 'completed', store: true, previous_response_id: null });

    const second = await s.client.responses.create({ model: SKU, input: 'two', store: true, previous_response_id: first.id });
    expect(second).toMatchObject({ status: 'completed', store: true, previous_response_id: first.id });
    expect(second.id).not.toBe(first.id);
    if (kind !== 'offline') expect(second.output_text).toBe('second answer');

    const streamed = await s.client.responses.stream({ model: SKU, input: 'three', store: true, previous_response_id: second.id }).finalResponse();
    expect(streamed).toMatchObject({ status: 'completed', store: true, previous_response_id: second.id });
  });

  it.each([false, true])('ends a reply cut by max_output_tokens as incomplete (streaming: %s)', async (streaming) => {
    const long = 'This answer keeps going well past the small output budget the client set for it, on and on and on.';
    const s = await serve(kind, [{ text: long, stop: 'length', usage: { input: 20, output: 16 } }]);
    const params = { model: SKU, input: 'Write a lot', max_output_tokens: 16 };
    let response: Response;
    if (streaming) {
      const events = await collectEvents(await s.client.responses.create({ ...params, stream: true }));
      response = expectWellFormed(events, 'response.incomplete').response as Response;
    } else {
      response = await s.client.responses.create(params);
    }

    expect(response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, max_output_tokens: 16 });
    expect(metaOf(response).usage.output_tokens).toBeGreaterThan(0);
    const text = (response.output[0] as { content: Array<{ text: string }> }).content[0]!.text;
    expect(text.length).toBeGreaterThan(0);
    expect(long.startsWith(text)).toBe(true);
    if (kind === 'offline') return;
    const sent = s.requests[0]!.body;
    expect(maxOutputTokensOf(kind, sent)).toBe(16);
  });
});

describe('same-format forwarding: responses client → openai-responses backend', () => {
  it('forwards fields the router does not model and the hosted tools, but not previous_response_id', async () => {
    const s = await serve('openai-responses', [{ text: 'ok' }]);
    const body = {
      model: SKU,
      input: [{ role: 'user' as const, content: 'hi' }],
      tools: [WEATHER_TOOL, ...BUILT_IN_TOOLS],
      tool_choice: { type: 'web_search_preview' as const },
      prompt_cache_key: 'cache-key-1',
      text: { verbosity: 'low' as const },
      service_tier: 'flex' as const,
      include: ['reasoning.encrypted_content' as const],
      store: false,
      previous_response_id: 'resp_issued_by_the_router',
    };
    const response = await s.client.responses.create(body);
    expect(response.output_text).toBe('ok');
    expect(response.tool_choice).toEqual({ type: 'web_search_preview' });

    const sent = s.requests[0]!.body;
    expect(sent).toMatchObject({
      model: s.upstreamModel,
      input: [{ role: 'user', content: 'hi' }],
      tools: [WEATHER_TOOL, ...BUILT_IN_TOOLS],
      tool_choice: { type: 'web_search_preview' },
      prompt_cache_key: 'cache-key-1',
      text: { verbosity: 'low' },
      service_tier: 'flex',
      include: ['reasoning.encrypted_content'],
      store: false,
    });
    expect(sent).not.toHaveProperty('previous_response_id');
    expect(metaOf(response).dropped_tools).toBeUndefined();
  });
});

describe('sealed reasoning', () => {
  const thinking = 'The user wants the weather in Paris; call the tool.';
  const signature = 'EqQBCkgIARABGAIiQK1ekAnthropicOriginalSignature==';

  it.each([false, true])('returns Anthropic thinking as a sealed reasoning item and replays it with the original signature (streaming: %s)', async (streaming) => {
    const s = await serve('anthropic', [
      { reasoning: { text: thinking, signature }, toolCalls: [{ id: 'toolu_01paris', name: 'get_weather', arguments: { city: 'Paris' } }] },
      { text: 'Sunny in Paris.' },
    ]);
    let input: ResponseInputItem[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const ask = async (): Promise<Response> => {
      const params = { model: SKU, input, tools: [WEATHER_TOOL], include: ['reasoning.encrypted_content' as const], reasoning: { effort: 'medium' as const } };
      if (!streaming) return s.client.responses.create(params);
      const events = await collectEvents(await s.client.responses.create({ ...params, stream: true }));
      return expectWellFormed(events).response as Response;
    };

    const first = await ask();
    expect(first.output.map((item) => item.type)).toEqual(['reasoning', 'function_call']);
    const reasoning = first.output[0] as ResponseReasoningItem;
    expect(reasoning.summary).toEqual([{ type: 'summary_text', text: thinking }]);
    expect(reasoning.encrypted_content).toMatch(/^svcr2\./);
    // Sealed: neither the signature nor the thinking can be read out of it.
    expect(reasoning.encrypted_content).not.toContain(signature);
    expect(Buffer.from(reasoning.encrypted_content!.slice('svcr2.'.length), 'base64url').toString('latin1')).not.toContain('Paris');

    const call = functionCalls(first)[0]!;
    input = replay(input, first, { type: 'function_call_output', call_id: call.call_id, output: 'sunny' });
    const second = await ask();
    expect(second.output).toEqual([expect.objectContaining({ type: 'message', content: [expect.objectContaining({ type: 'output_text', text: 'Sunny in Paris.' })] })]);

    const messages = s.requests[1]!.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    const assistant = messages.find((message) => message.role === 'assistant')!;
    expect(assistant.content[0]).toEqual({ type: 'thinking', thinking, signature });
    expect(assistant.content[1]).toMatchObject({ type: 'tool_use', id: 'toolu_01paris', name: 'get_weather', input: { city: 'Paris' } });
    expectToolResultsUpstream('anthropic', s.requests[1]!.body, [{ id: 'toolu_01paris', output: 'sunny' }]);
  });

  it('leaves encrypted_content out when the client did not include it', async () => {
    const s = await serve('anthropic', [{ reasoning: { text: thinking, signature }, text: 'Hi.' }]);
    const response = await s.client.responses.create({ model: SKU, input: 'hi', reasoning: { effort: 'low' } });
    const reasoning = response.output[0] as ResponseReasoningItem;
    expect(reasoning).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: thinking }] });
    expect(reasoning.encrypted_content).toBeUndefined();
    expect(JSON.stringify(response)).not.toContain(signature);
  });

  it('replays an openai-responses upstream’s own encrypted reasoning to it unchanged', async () => {
    const upstreamBlob = 'gAAAAABopaqueUpstreamReasoningBlob==';
    const s = await serve('openai-responses', [
      { reasoning: { text: 'Check the weather.', signature: upstreamBlob }, toolCalls: [{ id: 'call_r1', name: 'get_weather', arguments: { city: 'Paris' } }] },
      { text: 'Sunny.' },
    ]);
    const include = ['reasoning.encrypted_content' as const];
    const first = await s.client.responses.create({ model: SKU, input: 'Weather in Paris?', tools: [WEATHER_TOOL], include });
    const reasoning = first.output[0] as ResponseReasoningItem;
    expect(reasoning.encrypted_content).toMatch(/^svcr2\./);
    expect(reasoning.encrypted_content).not.toContain(upstreamBlob);

    const input = replay([{ role: 'user', content: 'Weather in Paris?' }], first, { type: 'function_call_output', call_id: 'call_r1', output: 'sunny' });
    const second = await s.client.responses.create({ model: SKU, input, tools: [WEATHER_TOOL], include });
    expect(second.output_text).toBe('Sunny.');
    const forwarded = (s.requests[1]!.body.input as Array<Record<string, unknown>>).filter((item) => item.type === 'reasoning');
    expect(forwarded).toHaveLength(1);
    expect(forwarded[0]!.encrypted_content).toBe(upstreamBlob);
  });

  it.each(['anthropic', 'openai-responses'] as const)('rejects a tampered encrypted_content with a 400 naming the field, before calling the %s upstream', async (kind) => {
    const s = await serve(kind, [{ reasoning: { text: thinking, signature }, text: 'First.' }]);
    const include = ['reasoning.encrypted_content' as const];
    const first = await s.client.responses.create({ model: SKU, input: 'hi', include, reasoning: { effort: 'low' } });
    const reasoning = first.output[0] as ResponseReasoningItem;
    const sealed = reasoning.encrypted_content!;
    const middle = Math.floor((sealed.length + 'svcr2.'.length) / 2);
    const tampered = sealed.slice(0, middle) + (sealed[middle] === 'A' ? 'B' : 'A') + sealed.slice(middle + 1);
    expect(tampered).not.toBe(sealed);
    const input: ResponseInputItem[] = [
      { role: 'user', content: 'hi' },
      { ...reasoning, encrypted_content: tampered },
      { role: 'assistant', content: 'First.' },
      { role: 'user', content: 'again' },
    ];

    const error = await expectApiError(s.client.responses.create({ model: SKU, input, include }), 400);
    expect(error.type).toBe('invalid_request_error');
    expect(error.param).toContain('encrypted_content');
    expect(error.param).toContain('input[1]');

    // The same, streamed: refused before any stream starts, in OpenAI's error shape.
    const raw = await fetch(`${router.baseURL}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${router.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: SKU, input, include, stream: true }),
    });
    expect(raw.status).toBe(400);
    const body = (await raw.json()) as { error: Record<string, unknown> };
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).toEqual({ message: expect.stringContaining('encrypted_content'), type: 'invalid_request_error', param: 'input[1].encrypted_content', code: expect.any(String) });
    expect(s.requests).toHaveLength(1);
  });
});

describe('parallel function calls in the raw stream', () => {
  /** Checks each call's events: its own output_index, item id and call_id throughout, and its arguments. */
  function expectCalls(events: Event[], expected: Array<{ callId: string; name: string; args: unknown }>, kind: UpstreamKind = 'openai-chat'): Event[] {
    expectWellFormed(events);
    const added = events.filter((event) => event.type === 'response.output_item.added' && event.item.type === 'function_call');
    const callIds: string[] = added.map((event) => event.item.call_id);
    expect(callIds.map((id) => upstreamCallId(kind, id))).toEqual(expected.map((call) => call.callId));
    for (const [position, call] of expected.entries()) {
      const opened = added[position]!;
      const { output_index: index, item } = opened;
      const callId = callIds[position]!;
      expect(item).toMatchObject({ type: 'function_call', status: 'in_progress', call_id: callId, name: call.name, arguments: '' });
      const own = events.filter((event) => event.item_id === item.id || event.item?.id === item.id);
      expect(own.every((event) => event.output_index === index)).toBe(true);
      expect(events.filter((event) => event.output_index === index)).toEqual(own);
      const deltas = own.filter((event) => event.type === 'response.function_call_arguments.delta');
      // A Gemini part carries a call whole (`args` is an object, not text to stream), so its arguments come in one delta.
      if (kind === 'gemini') expect(deltas).toHaveLength(1);
      else expect(deltas.length).toBeGreaterThan(1);
      expect(JSON.parse(deltas.map((event) => event.delta).join(''))).toEqual(call.args);
      const argsDone = own.filter((event) => event.type === 'response.function_call_arguments.done');
      expect(argsDone).toHaveLength(1);
      expect(argsDone[0]).toMatchObject({ name: call.name, arguments: deltas.map((event) => event.delta).join('') });
      const itemDone = own.filter((event) => event.type === 'response.output_item.done');
      expect(itemDone).toHaveLength(1);
      expect(itemDone[0]!.item).toMatchObject({ type: 'function_call', status: 'completed', call_id: callId, name: call.name, arguments: argsDone[0]!.arguments });
      expect(own.map((event) => event.type)).toEqual([
        'response.output_item.added',
        ...deltas.map(() => 'response.function_call_arguments.delta'),
        'response.function_call_arguments.done',
        'response.output_item.done',
      ]);
    }
    return added;
  }

  it.each(UPSTREAM_KINDS)('keeps each call’s output_index and call_id in every event over %s', async (kind) => {
    const s = await serve(kind, [
      {
        text: 'Checking both.',
        toolCalls: [
          { id: 'call_par_a', name: 'get_weather', arguments: { city: 'Paris' } },
          { id: 'call_par_b', name: 'get_weather', arguments: { city: '東京' } },
        ],
        chunkSize: 3,
      },
    ]);
    const events = await collectEvents(await s.client.responses.create({ model: SKU, input: 'both', tools: [WEATHER_TOOL], stream: true }));
    const added = expectCalls(
      events,
      [
        { callId: 'call_par_a', name: 'get_weather', args: { city: 'Paris' } },
        { callId: 'call_par_b', name: 'get_weather', args: { city: '東京' } },
      ],
      kind,
    );
    expect(added.map((event) => event.output_index)).toEqual([1, 2]);
    expect(events.find((event) => event.type === 'response.output_item.added')!.item.type).toBe('message');
  });

  it('keeps interleaved argument deltas apart (an openai-chat upstream streaming two calls at once)', async () => {
    const fixture = readFileSync(new URL('../fixtures/wire/openai-chat/stream-interleaved-tool-calls.sse', import.meta.url), 'utf8');
    await serveRaw('openai-chat', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(fixture);
    });
    const tools: Tool[] = ['read_file', 'list_dir'].map((name) => ({ type: 'function', name, strict: false, parameters: { type: 'object', properties: {} } }));
    const events = await collectEvents(await client.responses.create({ model: SKU, input: 'look around', tools, stream: true }));
    const added = expectCalls(events, [
      { callId: 'chatcmpl-tool-a1', name: 'read_file', args: { path: 'src/a.ts' } },
      { callId: 'chatcmpl-tool-b2', name: 'list_dir', args: { dir: 'src' } },
    ]);
    const deltaOwners = events.filter((event) => event.type === 'response.function_call_arguments.delta').map((event) => event.item_id);
    const [a, b] = added.map((event) => event.item.id as string);
    expect(deltaOwners).toEqual([a, b, a, b]);
  });
});

describe('upstream failure mid-stream', () => {
  const partialFrames: Record<UpstreamKind, string[]> = {
    'openai-chat': [
      sseFrame({ id: 'chatcmpl-cut', object: 'chat.completion.chunk', created: 1, model: 'raw-model', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
      sseFrame({ id: 'chatcmpl-cut', object: 'chat.completion.chunk', created: 1, model: 'raw-model', choices: [{ index: 0, delta: { content: 'Partial answer' }, finish_reason: null }] }),
    ],
    anthropic: [
      sseFrame(
        {
          type: 'message_start',
          message: { id: 'msg_cut', type: 'message', role: 'assistant', model: 'raw-model', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } },
        },
        'message_start',
      ),
      sseFrame({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start'),
      sseFrame({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Partial answer' } }, 'content_block_delta'),
    ],
    'openai-responses': [
      sseFrame({ type: 'response.created', sequence_number: 0, response: { id: 'resp_cut', object: 'response', status: 'in_progress', output: [] } }, 'response.created'),
      sseFrame({ type: 'response.in_progress', sequence_number: 1, response: { id: 'resp_cut', object: 'response', status: 'in_progress', output: [] } }, 'response.in_progress'),
      sseFrame(
        { type: 'response.output_item.added', sequence_number: 2, output_index: 0, item: { id: 'msg_cut', type: 'message', role: 'assistant', status: 'in_progress', content: [] } },
        'response.output_item.added',
      ),
      sseFrame(
        { type: 'response.content_part.added', sequence_number: 3, item_id: 'msg_cut', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } },
        'response.content_part.added',
      ),
      sseFrame({ type: 'response.output_text.delta', sequence_number: 4, item_id: 'msg_cut', output_index: 0, content_index: 0, delta: 'Partial answer' }, 'response.output_text.delta'),
    ],
    gemini: [sseFrame({ candidates: [{ content: { role: 'model', parts: [{ text: 'Partial answer' }] }, index: 0 }], modelVersion: 'raw-model' })],
  };

  async function expectFailedStream(backend: string): Promise<void> {
    const events = await collectEvents(await client.responses.create({ model: SKU, input: 'tell me everything', stream: true }));
    const failed = expectWellFormed(events, 'response.failed');
    expect(events.filter((event) => event.type === 'response.output_text.delta').map((event) => event.delta).join('')).toBe('Partial answer');
    expect(failed.response).toMatchObject({ status: 'failed', error: { code: expect.any(String), message: expect.stringContaining(backend) } });

    // The SDK's helper settles too, on the failed response, rather than waiting for more.
    const final = await client.responses.stream({ model: SKU, input: 'tell me everything' }).finalResponse();
    expect(final.status).toBe('failed');
    expect(final.error?.message).toContain(backend);
  }

  it.each(UPSTREAM_KINDS)('turns a %s connection dropped mid-answer into response.failed, and the stream ends', { timeout: 10_000 }, async (kind) => {
    const { backend, bodies } = await serveRaw(kind, (_req, res) => writeThenDrop(res, partialFrames[kind]));
    await expectFailedStream(backend);
    expect(bodies).toHaveLength(2);
  });

  it('turns an Anthropic error event mid-stream into response.failed', { timeout: 10_000 }, async () => {
    const frames = [
      ...partialFrames.anthropic,
      sseFrame({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, 'error'),
    ];
    const { backend } = await serveRaw('anthropic', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(frames.join(''));
    });
    await expectFailedStream(backend);
  });

  it('turns an upstream response.failed mid-stream into response.failed', { timeout: 10_000 }, async () => {
    const frames = [
      ...partialFrames['openai-responses'],
      sseFrame(
        { type: 'response.failed', sequence_number: 5, response: { id: 'resp_cut', object: 'response', status: 'failed', output: [], error: { code: 'server_error', message: 'The model crashed' } } },
        'response.failed',
      ),
    ];
    const { backend } = await serveRaw('openai-responses', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(frames.join(''));
    });
    await expectFailedStream(backend);
  });

  it('keeps serving after a failed stream', async () => {
    await serveRaw('anthropic', (_req, res) => writeThenDrop(res, partialFrames.anthropic));
    const events = await collectEvents(await client.responses.create({ model: SKU, input: 'x', stream: true }));
    expect(events.at(-1)!.type).toBe('response.failed');
    const s = await serve('anthropic', [{ text: 'Back to normal.' }]);
    expect((await s.client.responses.create({ model: SKU, input: 'again' })).output_text).toBe('Back to normal.');
  });
});

describe('errors a client must not retry are 4xx', () => {
  it('answers a body without input with 400 naming the field', async () => {
    const error = await expectApiError(client.responses.create({ model: SKU } as ResponseCreateParamsNonStreaming), 400);
    expect(error).toMatchObject({ type: 'invalid_request_error', param: 'input' });
  });

  it('answers an unknown model with a 4xx naming the model', async () => {
    const error = await expectApiError(client.responses.create({ model: 'no-such-model', input: 'hi' }), 400);
    expect(error).toMatchObject({ type: 'invalid_request_error', param: 'model', code: 'model_not_found' });
  });

  it('answers encrypted_content that was never sealed by this router with a 400', async () => {
    const input = [{ type: 'reasoning', id: 'rs_forged', summary: [], encrypted_content: 'svcr1.AAAAforgedAAAA' }, { role: 'user', content: 'hi' }] as ResponseInputItem[];
    const error = await expectApiError(client.responses.create({ model: SKU, input }), 400);
    expect(error.param).toBe('input[0].encrypted_content');
  });

  it.each(UPSTREAM_KINDS)('passes a %s upstream’s 400 on as a 400 the SDK does not retry, streaming or not', async (kind) => {
    const errorBodies: Record<UpstreamKind, unknown> = {
      'openai-chat': { error: { message: 'prompt is too long', type: 'invalid_request_error', param: null, code: null } },
      'openai-responses': { error: { message: 'prompt is too long', type: 'invalid_request_error', param: null, code: null } },
      anthropic: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long' } },
      gemini: { error: { code: 400, message: 'prompt is too long', status: 'INVALID_ARGUMENT' } },
    };
    const rejection: ScriptedTurn = { status: 400, errorBody: errorBodies[kind] };
    const s = await serve(kind, [rejection]);
    const retrying = new OpenAI({ apiKey: router.key, baseURL: router.baseURL, maxRetries: 2 });

    const error = await expectApiError(retrying.responses.create({ model: SKU, input: 'hi' }), 400);
    expect(error.message).toContain('prompt is too long');
    expect(s.requests).toHaveLength(1);

    await expectApiError(retrying.responses.create({ model: SKU, input: 'hi', stream: true }), 400);
    expect(s.requests).toHaveLength(2);
  });
});

describe('a Codex-shaped request (from captured Codex CLI traffic) over an anthropic backend', () => {
  const LARK = [
    'start: begin_patch hunk+ end_patch',
    'begin_patch: "*** Begin Patch" LF',
    'end_patch: "*** End Patch" LF?',
    '',
    'hunk: add_hunk | delete_hunk | update_hunk',
    'add_hunk: "*** Add File: " filename LF add_line+',
    'delete_hunk: "*** Delete File: " filename LF',
    'update_hunk: "*** Update File: " filename LF change_move? change?',
    '',
    'filename: /(.+)/',
    'add_line: "+" /(.*)/ LF -> line',
    '',
    'change_move: "*** Move to: " filename LF',
    'change: (change_context | change_line)+ eof_line?',
    'change_context: ("@@" | "@@ " /(.+)/) LF',
    'change_line: ("+" | "-" | " ") /(.*)/ LF',
    'eof_line: "*** End of File" LF',
    '',
    '%import common.LF',
  ].join('\n');
  const PATCH = '*** Begin Patch\n*** Add File: hello.txt\n+hi 👋\n+"quoted" and \\backslash\\\n*** End Patch\n';

  const tools = [
    {
      type: 'function',
      name: 'exec_command',
      description: 'Runs a command in a PTY, returning output or a session ID for ongoing interaction.',
      strict: false,
      parameters: {
        type: 'object',
        properties: { cmd: { type: 'string', description: 'Shell command to execute.' }, workdir: { type: 'string', description: 'Working directory for the command.' } },
        required: ['cmd'],
        additionalProperties: false,
      },
    },
    {
      type: 'namespace',
      name: 'multi_agent_v1',
      description: 'Tools for spawning and managing sub-agents.',
      tools: [
        {
          type: 'function',
          name: 'spawn_agent',
          description: 'Spawn a sub-agent for a well-scoped task.',
          strict: false,
          parameters: {
            type: 'object',
            properties: { message: { type: 'string', description: 'Initial plain-text task for the new agent.' }, fork_context: { type: 'boolean' } },
            additionalProperties: false,
          },
        },
        {
          type: 'function',
          name: 'wait_agent',
          description: 'Wait for agents to finish.',
          strict: false,
          parameters: { type: 'object', properties: { targets: { type: 'array', items: { type: 'string' } } }, required: ['targets'], additionalProperties: false },
        },
      ],
    },
    {
      type: 'custom',
      name: 'apply_patch',
      description: 'The `apply_patch` tool can be used to edit files. This is a FREEFORM tool, so do not wrap the patch in JSON.',
      format: { type: 'grammar', syntax: 'lark', definition: LARK },
    },
    {
      type: 'tool_search',
      execution: 'client',
      description: '# Tool discovery\n\nSearches over deferred tool metadata with BM25.',
      parameters: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'number' } }, required: ['query'], additionalProperties: false },
    },
    { type: 'web_search', external_web_access: false, search_content_types: ['text', 'image'] },
  ];
  const history = [
    { type: 'message', id: 'msg_673640dc-f7ee-5b4b-8f24-eb9d366d54d2', role: 'developer', content: [{ type: 'input_text', text: 'You are a coding agent running in the Codex CLI.' }] },
    { type: 'message', id: 'msg_01a201ac-b98e-7c23-be50-c96f9c55925c', role: 'developer', content: [{ type: 'input_text', text: '<skills_instructions>\n## Skills\n</skills_instructions>' }] },
    { type: 'message', id: 'msg_01a201ac-b98e-7c23-be50-c9726072d1fb', role: 'user', content: [{ type: 'input_text', text: '<environment_context>\n  <cwd>/home/dev/repo</cwd>\n</environment_context>' }] },
    { type: 'message', id: 'msg_01a201ac-b998-7f33-89c3-6ec6a9342c10', role: 'user', content: [{ type: 'input_text', text: 'Run echo hi' }] },
    // An earlier turn served by an OpenAI model: its reasoning is opaque to any other upstream.
    { type: 'reasoning', id: 'rs_5cbeba3cc257b2fa6f647145', summary: [{ type: 'summary_text', text: '**Thinking** about it' }], content: null, encrypted_content: 'ENC_OsJYdvNbrpLVkJnwf+C+Fg==' },
    { type: 'function_call', status: 'completed', id: 'fc_6a8d5ee2568362720d9c5829', name: 'exec_command', arguments: '{"cmd":"echo hi"}', call_id: 'call_c5357b2bf087eb40080d6e83' },
    { type: 'function_call_output', id: 'fco_01a201ac-bae7-7121-8be4-db619b506b50', call_id: 'call_c5357b2bf087eb40080d6e83', output: 'Process exited with code 0\nOutput:\nhi\n' },
    { type: 'message', id: 'msg_01a201ad-ca73-7f90-957d-42d1073406f3', role: 'user', content: [{ type: 'input_text', text: 'Create hello.txt and ask a helper to review it' }] },
  ];
  const codexBody = (input: unknown[]) => ({
    model: SKU,
    input,
    tools,
    tool_choice: 'auto',
    parallel_tool_calls: true,
    reasoning: { effort: 'medium' },
    store: false,
    stream: true,
    include: ['reasoning.encrypted_content'],
    prompt_cache_key: '01a201ac-b94f-76b3-91e0-2aeb3fc5e0c0',
    text: { verbosity: 'low' },
    client_metadata: { session_id: '01a201ac-b94f-76b3-91e0-2aeb3fc5e0c0', turn_id: '01a201ac-b969-7e70-9a7f-cc5275a74142' },
  });
  const post = (body: unknown) =>
    fetch(`${router.baseURL}/responses`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${router.key}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
        originator: 'codex_exec',
        'session-id': '01a201ac-b94f-76b3-91e0-2aeb3fc5e0c0',
        'x-codex-beta-features': 'remote_compaction_v2',
      },
      body: JSON.stringify(body),
    });
  const eventsOf = async (response: globalThis.Response): Promise<Event[]> => {
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    return parseSse(await response.text()).map((frame) => {
      const data = JSON.parse(frame.data) as Event;
      expect(frame.event).toBe(data.type);
      return data;
    });
  };

  it('flattens namespaces and custom tools upstream, and maps the calls back to custom_tool_call and namespaced function_call', async () => {
    const thinking = 'Write the file, then get a review.';
    const signature = 'sig-codex-anthropic-1';
    const s = await serve('anthropic', [
      {
        reasoning: { text: thinking, signature },
        toolCalls: [
          { id: 'toolu_patch', name: 'apply_patch', arguments: { input: PATCH } },
          { id: 'toolu_spawn', name: 'multi_agent_v1__spawn_agent', arguments: { message: 'Review hello.txt' } },
        ],
        chunkSize: 7,
      },
      { text: 'Created hello.txt; a helper is reviewing it.' },
    ]);

    const events = await eventsOf(await post(codexBody(history)));
    const completed = expectWellFormed(events);

    // What the Anthropic upstream saw.
    const sent = s.requests[0]!.body;
    expect(Object.keys(sent).sort()).toEqual(['max_tokens', 'messages', 'model', 'stream', 'system', 'thinking', 'tool_choice', 'tools'].filter((key) => key in sent).sort());
    for (const key of ['client_metadata', 'prompt_cache_key', 'include', 'store', 'text', 'input', 'reasoning']) expect(sent).not.toHaveProperty(key);
    expect(sent.tools.map((tool: { name: string }) => tool.name)).toEqual(['exec_command', 'multi_agent_v1__spawn_agent', 'multi_agent_v1__wait_agent', 'apply_patch', 'tool_search', 'web_search']);
    // Codex's hosted web_search reaches Anthropic as its own search server tool.
    expect(sent.tools.at(-1)).toMatchObject({ type: 'web_search_20250305', name: 'web_search' });
    const applyPatch = sent.tools.find((tool: { name: string }) => tool.name === 'apply_patch');
    expect(applyPatch.input_schema).toMatchObject({ type: 'object', properties: { input: { type: 'string' } }, required: ['input'] });
    expect(Object.keys(applyPatch.input_schema.properties)).toEqual(['input']);
    expect(applyPatch.description).toContain('begin_patch: "*** Begin Patch" LF');
    expect(sent.tools.find((tool: { name: string }) => tool.name === 'multi_agent_v1__spawn_agent').input_schema.properties).toHaveProperty('message');
    const system = systemTextOf('anthropic', sent)!;
    expect(system).toContain('You are a coding agent running in the Codex CLI.');
    expect(system).toContain('<skills_instructions>');
    expect(JSON.stringify(sent.messages)).not.toContain('ENC_OsJYdvNbrpLVkJnwf');
    expect(sent.messages.flatMap((message: { content: Array<{ type: string }> }) => message.content.map((block) => block.type))).not.toContain('thinking');
    expect(toolExchangeOf('anthropic', sent)).toEqual({
      calls: [{ id: 'call_c5357b2bf087eb40080d6e83', name: 'exec_command', args: { cmd: 'echo hi' } }],
      results: [{ id: 'call_c5357b2bf087eb40080d6e83', output: 'Process exited with code 0\nOutput:\nhi\n' }],
    });

    // What the client got back.
    const output = completed.response.output as Array<Record<string, any>>;
    expect(output.map((item) => item.type)).toEqual(['reasoning', 'custom_tool_call', 'function_call']);
    expect(output[0]!.encrypted_content).toMatch(/^svcr2\./);
    expect(output[1]).toMatchObject({ type: 'custom_tool_call', status: 'completed', call_id: 'toolu_patch', name: 'apply_patch', input: PATCH });
    expect(output[1]).not.toHaveProperty('namespace');
    expect(output[2]).toMatchObject({ type: 'function_call', status: 'completed', call_id: 'toolu_spawn', name: 'spawn_agent', namespace: 'multi_agent_v1' });
    expect(JSON.parse(output[2]!.arguments)).toEqual({ message: 'Review hello.txt' });
    expect(completed.response).toMatchObject({ status: 'completed', store: false, text: { verbosity: 'low' }, tools });
    expect(metaOf(completed.response).dropped_tools).toBeUndefined();

    const customEvents = events.filter((event) => event.output_index === 1).map((event) => event.type);
    expect(customEvents).toEqual([
      'response.output_item.added',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.done',
      'response.output_item.done',
    ]);
    expect(events.find((event) => event.type === 'response.output_item.added' && event.output_index === 1)!.item).toMatchObject({ type: 'custom_tool_call', name: 'apply_patch', call_id: 'toolu_patch' });
    expect(events.filter((event) => event.output_index === 1 && event.type.startsWith('response.custom_tool_call_input.')).map((event) => event.delta ?? event.input)).toEqual([PATCH, PATCH]);
    const namespacedAdded = events.find((event) => event.type === 'response.output_item.added' && event.output_index === 2)!;
    expect(namespacedAdded.item).toMatchObject({ type: 'function_call', name: 'spawn_agent', namespace: 'multi_agent_v1', call_id: 'toolu_spawn' });
    expect(events.find((event) => event.type === 'response.function_call_arguments.done')).toMatchObject({ output_index: 2, name: 'spawn_agent' });

    // Codex replays the items with its tool outputs; the upstream sees its own calls and signed thinking.
    const outputs = [
      { type: 'custom_tool_call_output', id: 'ctco_1', call_id: 'toolu_patch', output: 'Success. Updated the following files:\nA hello.txt\n' },
      { type: 'function_call_output', id: 'fco_2', call_id: 'toolu_spawn', output: '{"agent_id":"agent_7"}' },
    ];
    const second = await eventsOf(await post(codexBody([...history, ...output, ...outputs])));
    expect(expectWellFormed(second).response.output).toEqual([expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: 'Created hello.txt; a helper is reviewing it.' })] })]);

    const replayed = s.requests[1]!.body;
    const assistant = replayed.messages.filter((message: { role: string }) => message.role === 'assistant').at(-1);
    expect(assistant.content[0]).toEqual({ type: 'thinking', thinking, signature });
    expect(toolExchangeOf('anthropic', replayed)).toEqual({
      calls: [
        { id: 'call_c5357b2bf087eb40080d6e83', name: 'exec_command', args: { cmd: 'echo hi' } },
        { id: 'toolu_patch', name: 'apply_patch', args: { input: PATCH } },
        { id: 'toolu_spawn', name: 'multi_agent_v1__spawn_agent', args: { message: 'Review hello.txt' } },
      ],
      results: [
        { id: 'call_c5357b2bf087eb40080d6e83', output: 'Process exited with code 0\nOutput:\nhi\n' },
        { id: 'toolu_patch', output: 'Success. Updated the following files:\nA hello.txt\n' },
        { id: 'toolu_spawn', output: '{"agent_id":"agent_7"}' },
      ],
    });
  });
});

describe('responses client over an anthropic backend: Anthropic stops and cache usage in Responses terms', () => {
  it.each([false, true])('a refusal is incomplete with reason content_filter; cache reads are cached_tokens (streaming: %s)', async (streaming) => {
    const s = await serve('anthropic', [{ text: 'I cannot help with that.', usage: { input: 300, output: 9, cached: 80, cacheWrite: 100 }, anthropicStop: { reason: 'refusal' } }]);
    const params = { model: SKU, input: 'Do something bad' };
    const response = streaming ? await s.client.responses.stream(params).finalResponse() : await s.client.responses.create(params);
    expect(response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'content_filter' } });
    expect(response.usage).toMatchObject({ input_tokens: 300, input_tokens_details: { cached_tokens: 80 }, output_tokens: 9 });
  });

  it.each([false, true])('a pause_turn or a matched stop sequence is completed (streaming: %s)', async (streaming) => {
    const s = await serve('anthropic', [
      { text: 'Paused', anthropicStop: { reason: 'pause_turn' } },
      { text: 'Up to', anthropicStop: { reason: 'stop_sequence', sequence: '###' } },
    ]);
    for (let turn = 0; turn < 2; turn++) {
      const params = { model: SKU, input: 'Go on' };
      const response = streaming ? await s.client.responses.stream(params).finalResponse() : await s.client.responses.create(params);
      expect(response).toMatchObject({ status: 'completed', incomplete_details: null });
    }
  });

  it('sends an input_file by URL as an Anthropic document with a url source', async () => {
    const s = await serve('anthropic', [{ text: 'Read it.' }]);
    await s.client.responses.create({ model: SKU, input: [{ role: 'user', content: [{ type: 'input_file', file_url: 'https://example.com/paper.pdf' }, { type: 'input_text', text: 'Summarise' }] }] });
    expect((s.requests[0]!.body as any).messages[0].content[0]).toEqual({ type: 'document', source: { type: 'url', url: 'https://example.com/paper.pdf' } });
  });
});
