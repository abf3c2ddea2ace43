import http, { type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedTurn as OfflineTurn } from '../../src/backends/offline/script.js';
import type { FakeUpstream } from '../fakes/fake-server.js';
import type { ScriptedTurn } from '../fakes/scripted-turn.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { parseSse } from '../helpers/sse-frames.js';
import { addBackend, setRoute, SKU, startUpstream, UPSTREAM_KINDS, WEATHER_SCHEMA } from '../integration/support.js';
import { document, eventProblems, responseProblems } from './open-responses-schema.js';

/**
 * Every `/v1/responses` body and stream event the real server writes, over every backend kind,
 * checked against the Open Responses specification (release 2026-04-24): text, parallel function
 * calls, reasoning (sealed for replay), an answer cut at the output cap, and a stream that fails
 * mid-answer.
 */

const HTTP_KINDS = UPSTREAM_KINDS;
type HttpKind = (typeof HTTP_KINDS)[number];
const KINDS = [...HTTP_KINDS, 'offline'] as const;
type Kind = (typeof KINDS)[number];

let router: TestRouter;
const closers: Array<() => Promise<void>> = [];
/** How many bodies and events were checked over each backend kind. */
const tally = new Map<Kind, { bodies: number; events: number }>(KINDS.map((kind) => [kind, { bodies: 0, events: 0 }]));

beforeAll(async () => {
  router = await startRouter();
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});
afterAll(async () => {
  await router.close();
  if (process.env.CONFORMANCE_TALLY) console.log(JSON.stringify(Object.fromEntries(tally)));
});

const TOOLS = [
  { type: 'function', name: 'get_weather', description: 'Current weather for a city', strict: true, parameters: { ...WEATHER_SCHEMA } },
  // No description and no strict: the echo fills in what the specification requires.
  { type: 'function', name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } } } },
];

/** What the client asks beyond the input; each must come back in the response object. */
const ASKED = {
  instructions: 'Be brief.',
  temperature: 0.5,
  top_p: 0.9,
  presence_penalty: 0.25,
  frequency_penalty: -0.5,
  top_logprobs: 2,
  max_output_tokens: 400,
  max_tool_calls: 3,
  safety_identifier: 'user-7f3a',
  prompt_cache_key: 'conformance-cache',
  metadata: { suite: 'conformance' },
};

interface Case {
  name: string;
  turn: ScriptedTurn;
  body: Record<string, unknown>;
  /** Defaults to completed. */
  status?: 'completed' | 'incomplete';
}

const CASES: Case[] = [
  { name: 'text', turn: { text: 'Hello there, traveller.', usage: { input: 21, output: 6 } }, body: { input: 'Say hello', ...ASKED } },
  {
    name: 'parallel function calls',
    turn: {
      toolCalls: [
        { id: 'call_paris', name: 'get_weather', arguments: { city: 'Paris' } },
        { id: 'call_utc', name: 'get_time', arguments: { zone: 'UTC' } },
      ],
      usage: { input: 60, output: 24 },
    },
    body: { input: 'Weather in Paris, and the time?', tools: TOOLS, tool_choice: 'auto', parallel_tool_calls: true },
  },
  {
    name: 'reasoning then text',
    turn: { reasoning: { text: 'The user wants a greeting.', signature: 'sig-conformance' }, text: 'Hi!', usage: { input: 30, output: 12 } },
    body: { input: 'Greet me', reasoning: { effort: 'medium', summary: 'auto' }, include: ['reasoning.encrypted_content'], store: false },
  },
  {
    name: 'cut at max_output_tokens',
    turn: { text: 'A long story that', stop: 'length', usage: { input: 12, output: 5 } },
    body: { input: 'Tell me a long story', max_output_tokens: 5 },
    status: 'incomplete',
  },
];

const toOfflineTurn = (turn: ScriptedTurn): OfflineTurn => ({
  ...(turn.reasoning ? { reasoning: turn.reasoning.text } : {}),
  ...(turn.text !== undefined ? { text: turn.text } : {}),
  ...(turn.toolCalls ? { toolCalls: turn.toolCalls.map((call) => ({ name: call.name, arguments: call.arguments, ...(call.id ? { id: call.id } : {}) })) } : {}),
});

/** Routes the SKU to a backend of this kind answering `turn`; returns the router to call. */
async function serve(kind: Kind, turn: ScriptedTurn): Promise<TestRouter> {
  if (kind === 'offline') {
    const offline = await startRouter({ offlineScript: [toOfflineTurn(turn)] });
    closers.push(() => offline.close());
    setRoute(offline, SKU, ['offline']);
    return offline;
  }
  const fake: FakeUpstream = await startUpstream(kind, [turn]);
  closers.push(() => fake.close());
  const backend = addBackend(router, `up-${kind}`, kind, fake.url);
  setRoute(router, SKU, [`${backend}:model-for-${kind}`]);
  return router;
}

function post(target: TestRouter, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${target.baseURL}/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${target.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: SKU, ...body }),
  });
}

function expectResource(kind: Kind, body: unknown, where: string): void {
  tally.get(kind)!.bodies++;
  expect(responseProblems(body), `${where} is not an Open Responses ResponseResource`).toEqual([]);
}

type Event = Record<string, any> & { type: string };

/** Reads the whole stream and checks every event (and so every `response` it carries). */
async function checkedEvents(kind: Kind, response: Response): Promise<Event[]> {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const frames = parseSse(await response.text());
  const events = frames.map((frame) => {
    const event = JSON.parse(frame.data) as Event;
    expect(frame.event, 'the SSE event name is the event type').toBe(event.type);
    return event;
  });
  for (const event of events) {
    tally.get(kind)!.events++;
    expect(eventProblems(event), `${event.type} (sequence ${event.sequence_number}) breaks the specification`).toEqual([]);
    if (event.response) expectResource(kind, event.response, `the response in ${event.type}`);
  }
  return events;
}

it('checks against the 2026-04-24 release of the specification', () => {
  expect(document.info.version).toBe('2026-04-24');
});

describe.each(KINDS)('over a %s backend', (kind) => {
  // The offline backend always finishes its scripted answer.
  const cases = kind === 'offline' ? CASES.filter((each) => each.status === undefined) : CASES;
  describe.each(cases)('$name', ({ turn, body, status = 'completed' }) => {
    it('answers with a ResponseResource', async () => {
      const target = await serve(kind, turn);
      const response = await post(target, body);
      expect(response.status).toBe(200);
      const json = (await response.json()) as Record<string, any>;
      expectResource(kind, json, 'the response body');
      expect(json.status).toBe(status);
      if (status === 'completed') expect(json.completed_at).toBeGreaterThanOrEqual(json.created_at);
      else expect(json).toMatchObject({ completed_at: null, incomplete_details: { reason: 'max_output_tokens' } });
      expectEchoes(json, body);
    });

    it('streams events that each match their schema', async () => {
      const target = await serve(kind, turn);
      const events = await checkedEvents(kind, await post(target, { ...body, stream: true }));
      expect(events.map((event) => event.type).slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
      const last = events.at(-1)!;
      expect(last.type).toBe(`response.${status}`);
      expect(events[0]!.response.completed_at).toBeNull();
      if (status === 'completed') expect(last.response.completed_at).toBeGreaterThanOrEqual(last.response.created_at);
      else expect(last.response).toMatchObject({ completed_at: null, incomplete_details: { reason: 'max_output_tokens' } });
      for (const event of events.filter((each) => each.response)) expectEchoes(event.response, body);
    });
  });
});

/** The response object says what the request asked, and the specification's default for what it did not. */
function expectEchoes(resource: Record<string, any>, body: Record<string, unknown>): void {
  const asked = (key: string, fallback: unknown) => (key in body ? body[key] : fallback);
  expect(resource).toMatchObject({
    instructions: asked('instructions', null),
    temperature: asked('temperature', 1),
    top_p: asked('top_p', 1),
    presence_penalty: asked('presence_penalty', 0),
    frequency_penalty: asked('frequency_penalty', 0),
    top_logprobs: asked('top_logprobs', 0),
    max_output_tokens: asked('max_output_tokens', null),
    max_tool_calls: asked('max_tool_calls', null),
    safety_identifier: asked('safety_identifier', null),
    prompt_cache_key: asked('prompt_cache_key', null),
    background: false,
    service_tier: 'default',
    metadata: asked('metadata', {}),
  });
  if ('store' in body) expect(resource.store).toBe(body.store);
  const tools = (body.tools as Array<Record<string, unknown>> | undefined) ?? [];
  // `strict` left out is null when the router echoes it, and what a Responses upstream applied (OpenAI: true) when its reply is forwarded.
  const strictLeftOut = (resource.tools as Array<{ strict: unknown }> | undefined)?.find((_, index) => tools[index]?.strict === undefined)?.strict ?? null;
  expect([null, true]).toContain(strictLeftOut);
  expect(resource.tools).toEqual(
    tools.map((tool) => ({ type: 'function', name: tool.name, description: tool.description ?? null, parameters: tool.parameters ?? null, strict: tool.strict ?? strictLeftOut })),
  );
}

/** An OpenAI response in progress, every member it sends present. */
const OPENING_RESPONSE = {
  id: 'resp_cut',
  object: 'response',
  created_at: 1_700_000_000,
  status: 'in_progress',
  background: false,
  completed_at: null,
  error: null,
  incomplete_details: null,
  instructions: null,
  max_output_tokens: null,
  max_tool_calls: null,
  model: 'm',
  output: [],
  parallel_tool_calls: true,
  previous_response_id: null,
  prompt_cache_key: null,
  reasoning: { effort: null, summary: null },
  safety_identifier: null,
  service_tier: 'default',
  store: false,
  temperature: 1,
  text: { format: { type: 'text' } },
  tool_choice: 'auto',
  tools: [],
  top_logprobs: 0,
  top_p: 1,
  truncation: 'disabled',
  usage: null,
  metadata: {},
  presence_penalty: 0,
  frequency_penalty: 0,
};

describe('a stream that fails mid-answer', () => {
  const sseFrame = (data: unknown, event?: string): string => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

  /** Each upstream's first words of an answer, after which the connection drops. */
  const partialFrames: Record<HttpKind, string[]> = {
    'openai-chat': [
      sseFrame({ id: 'chatcmpl-cut', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: 'Partial answer' }, finish_reason: null }] }),
    ],
    anthropic: [
      sseFrame(
        { type: 'message_start', message: { id: 'msg_cut', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } } },
        'message_start',
      ),
      sseFrame({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start'),
      sseFrame({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Partial answer' } }, 'content_block_delta'),
    ],
    'openai-responses': [
      // A Responses upstream's own events reach the client (same-format forwarding): whole, as OpenAI sends them.
      sseFrame({ type: 'response.created', sequence_number: 0, response: OPENING_RESPONSE }, 'response.created'),
      sseFrame({ type: 'response.in_progress', sequence_number: 1, response: OPENING_RESPONSE }, 'response.in_progress'),
      sseFrame(
        { type: 'response.output_item.added', sequence_number: 2, output_index: 0, item: { id: 'msg_cut', type: 'message', role: 'assistant', status: 'in_progress', content: [] } },
        'response.output_item.added',
      ),
      sseFrame(
        { type: 'response.content_part.added', sequence_number: 3, item_id: 'msg_cut', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } },
        'response.content_part.added',
      ),
      sseFrame({ type: 'response.output_text.delta', sequence_number: 4, item_id: 'msg_cut', output_index: 0, content_index: 0, delta: 'Partial answer', logprobs: [] }, 'response.output_text.delta'),
    ],
    gemini: [sseFrame({ candidates: [{ content: { role: 'model', parts: [{ text: 'Partial answer' }] }, index: 0 }], usageMetadata: { promptTokenCount: 5 }, modelVersion: 'm' })],
  };

  async function serveDropping(kind: HttpKind): Promise<void> {
    const server = http.createServer(async (req, res: ServerResponse) => {
      for await (const _ of req) {
        // Drain the request body.
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(partialFrames[kind].join(''), () => res.destroy());
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const backend = addBackend(router, `cut-${kind}`, kind, kind === 'anthropic' || kind === 'gemini' ? origin : `${origin}/v1`);
    setRoute(router, SKU, [`${backend}:cut-model`]);
  }

  it.each(HTTP_KINDS)('over %s ends in a response.failed that matches its schema', async (kind) => {
    await serveDropping(kind);
    const events = await checkedEvents(kind, await post(router, { input: 'tell me everything', tools: TOOLS, stream: true }));
    const last = events.at(-1)!;
    expect(last.type).toBe('response.failed');
    expect(last.response).toMatchObject({ status: 'failed', completed_at: null, error: { code: expect.any(String), message: expect.any(String) } });
    expect(events.filter((event) => event.type === 'response.output_text.delta').map((event) => event.delta).join('')).toBe('Partial answer');
  });
});

it('checked bodies and events over every backend kind', () => {
  for (const kind of KINDS) {
    const counted = tally.get(kind)!;
    expect(counted.bodies, kind).toBeGreaterThan(0);
    expect(counted.events, kind).toBeGreaterThan(0);
  }
});
