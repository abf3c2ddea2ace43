import Anthropic from '@anthropic-ai/sdk';
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openEventStream, sendJson, startFakeServer } from '../fakes/fake-server.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { addBackend, Fakes, parseSse, setRoute, SKU } from './support.js';

/**
 * A Messages client over an Anthropic upstream is forwarded the reply, so it gets back what the
 * router has no canonical form for, exactly: Claude Code's auto-mode verdicts
 * (message_delta.delta.safeguard_results), every other unread field of message_delta and of the
 * reply, and server-tool blocks.
 */

let router: TestRouter;
let client: Anthropic;
const fakes = new Fakes();
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  router = await startRouter();
  client = new Anthropic({ apiKey: router.key, baseURL: router.origin, maxRetries: 0 });
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  await fakes.closeAll();
});
afterAll(() => router.close());

const SAFEGUARDS = [{ type: 'dangerous_tool_use', classifier_context: { permission_mode: 'auto', cwd: '/work/project' } }];
const SAFEGUARD_RESULTS = [
  { type: 'dangerous_tool_use', status: { type: 'available', tool_uses: { toolu_01Bash: { type: 'evaluated', outcome: 'not_flagged' } } } },
];
// Fields no decoder reads, with values whose JSON must come back unchanged.
const FUTURE_DELTA_FIELD = { nested: [1, 2.5, 'ü', null, { deep: true }], empty: {} };
const CONTEXT_MANAGEMENT = { applied_edits: [] };

const SERVER_TOOL_USE = { type: 'server_tool_use', id: 'srvtoolu_01Search', name: 'web_search', input: {} };
const SEARCH_RESULT = {
  type: 'web_search_tool_result',
  tool_use_id: 'srvtoolu_01Search',
  content: [{ type: 'web_search_result', url: 'https://example.com/svc', title: 'svc-router', encrypted_content: 'EqgfCioIAhgB…', page_age: null }],
};
const CITATION = { type: 'web_search_result_location', url: 'https://example.com/svc', title: 'svc-router', encrypted_index: 'Eo8BCioI…', cited_text: 'A local router' };

/** The upstream's events after message_start, as Anthropic sends them. */
const UPSTREAM_EVENTS: Array<Record<string, unknown>> = [
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Searching.' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'content_block_start', index: 1, content_block: SERVER_TOOL_USE },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"query": "svc' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: ' router"}' } },
  { type: 'content_block_stop', index: 1 },
  { type: 'content_block_start', index: 2, content_block: SEARCH_RESULT },
  { type: 'content_block_stop', index: 2 },
  { type: 'content_block_start', index: 3, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 3, delta: { type: 'text_delta', text: 'It routes.' } },
  { type: 'content_block_delta', index: 3, delta: { type: 'citations_delta', citation: CITATION } },
  { type: 'content_block_stop', index: 3 },
  { type: 'content_block_start', index: 4, content_block: { type: 'tool_use', id: 'toolu_01Bash', name: 'Bash', input: {} } },
  { type: 'content_block_delta', index: 4, delta: { type: 'input_json_delta', partial_json: '{"command":"ls"}' } },
  { type: 'content_block_stop', index: 4 },
  {
    type: 'message_delta',
    delta: { stop_reason: 'tool_use', stop_sequence: null, safeguard_results: SAFEGUARD_RESULTS, future_field: FUTURE_DELTA_FIELD },
    usage: { input_tokens: 40, output_tokens: 30 },
    context_management: CONTEXT_MANAGEMENT,
  },
  { type: 'message_stop' },
];

/** The same answer as one `message` body. */
const UPSTREAM_MESSAGE = {
  id: 'msg_01Forward',
  type: 'message',
  role: 'assistant',
  model: 'claude-upstream',
  content: [
    { type: 'text', text: 'Searching.' },
    { ...SERVER_TOOL_USE, input: { query: 'svc router' } },
    SEARCH_RESULT,
    { type: 'text', text: 'It routes.', citations: [CITATION] },
    { type: 'tool_use', id: 'toolu_01Bash', name: 'Bash', input: { command: 'ls' } },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 40, output_tokens: 30 },
  safeguard_results: SAFEGUARD_RESULTS,
  container: { id: 'container_01', expires_at: '2026-11-24T00:00:00Z' },
  future_field: FUTURE_DELTA_FIELD,
};

/** A small Anthropic upstream answering every request with the answer above. */
async function forwardingUpstream() {
  const fake = await startFakeServer(async (request, res) => {
    if (!request.path.endsWith('/messages')) return sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'Not Found' } });
    if (!request.body?.stream) return sendJson(res, 200, UPSTREAM_MESSAGE);
    const sse = openEventStream(res, {}, {});
    const send = (event: Record<string, unknown>) => sse.frame(`event: ${event.type as string}\ndata: ${JSON.stringify(event)}\n\n`);
    await send({ type: 'message_start', message: { ...UPSTREAM_MESSAGE, content: [], stop_reason: null, safeguard_results: undefined, future_field: undefined } });
    await sse.frame('event: ping\ndata: {"type": "ping"}\n\n');
    for (const event of UPSTREAM_EVENTS) await send(event);
    sse.end();
  });
  closers.push(fake.close);
  const backend = addBackend(router, 'up-anthropic-forwarded', 'anthropic', fake.origin);
  setRoute(router, SKU, [`${backend}:claude-upstream`]);
  return fake;
}

const REQUEST = {
  model: SKU,
  max_tokens: 1024,
  messages: [{ role: 'user' as const, content: 'List the files' }],
  tools: [{ name: 'Bash', description: 'Run a command', input_schema: { type: 'object' as const, properties: { command: { type: 'string' } } } }],
  safeguards: SAFEGUARDS,
};

/** Events after message_start and ping: what must reach the client as the upstream sent it. */
const afterStart = (events: unknown[]) => events.filter((event) => !['message_start', 'ping'].includes((event as { type: string }).type));

describe('messages client over an anthropic upstream: forwarded as sent', () => {
  it('streams safeguard_results, unread message_delta fields, server-tool blocks and citations exactly (SDK raw events)', async () => {
    const fake = await forwardingUpstream();
    const stream = await client.messages.create({ ...REQUEST, stream: true } as Anthropic.MessageCreateParamsStreaming);
    const events: RawMessageStreamEvent[] = [];
    for await (const event of stream) events.push(event);

    expect(fake.requests[0]!.body.safeguards).toEqual(SAFEGUARDS);
    const forwarded = afterStart(events) as Array<Record<string, unknown>>;
    // Every block event comes back as it was sent, in order (a text block's citations close it).
    expect(forwarded.filter((event) => event.type !== 'message_delta')).toEqual(UPSTREAM_EVENTS.filter((event) => event.type !== 'message_delta'));
    const messageDelta = forwarded.find((event) => event.type === 'message_delta')!;
    expect(messageDelta.delta).toEqual(UPSTREAM_EVENTS.at(-2)!.delta);
    expect(messageDelta.context_management).toEqual(CONTEXT_MANAGEMENT);
    expect(messageDelta.svc_meta).toBeUndefined();
    // message_start's own unread fields come back too.
    const start = events.find((event) => event.type === 'message_start') as unknown as { message: Record<string, unknown> };
    expect(start.message.container).toEqual(UPSTREAM_MESSAGE.container);
  });

  it('writes the forwarded JSON values byte for byte on the wire (raw SSE)', async () => {
    await forwardingUpstream();
    const res = await fetch(`${router.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': router.key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ ...REQUEST, stream: true }),
    });
    expect(res.status).toBe(200);
    const frames = parseSse(await res.text());
    const delta = frames.find((frame) => frame.event === 'message_delta')!;
    expect(delta.data).toContain(`"safeguard_results":${JSON.stringify(SAFEGUARD_RESULTS)}`);
    expect(delta.data).toContain(`"future_field":${JSON.stringify(FUTURE_DELTA_FIELD)}`);
    expect(delta.data).toContain(`"context_management":${JSON.stringify(CONTEXT_MANAGEMENT)}`);
    const starts = frames.filter((frame) => frame.event === 'content_block_start').map((frame) => frame.data);
    expect(starts).toContain(JSON.stringify({ type: 'content_block_start', index: 1, content_block: SERVER_TOOL_USE }));
    expect(starts).toContain(JSON.stringify({ type: 'content_block_start', index: 2, content_block: SEARCH_RESULT }));
  });

  it('gives the SDK stream helper the whole message, server-tool blocks and citations included', async () => {
    await forwardingUpstream();
    const message = await client.messages.stream(REQUEST as Anthropic.MessageStreamParams).finalMessage();
    expect(message.content).toEqual(UPSTREAM_MESSAGE.content);
  });

  it('returns a non-streamed reply with its unread fields and server-tool blocks in place', async () => {
    const fake = await forwardingUpstream();
    const message = (await client.messages.create(REQUEST as Anthropic.MessageCreateParamsNonStreaming)) as unknown as Record<string, unknown>;
    expect(fake.requests[0]!.body.safeguards).toEqual(SAFEGUARDS);
    expect(message.content).toEqual(UPSTREAM_MESSAGE.content);
    expect(message.safeguard_results).toEqual(SAFEGUARD_RESULTS);
    expect(message.container).toEqual(UPSTREAM_MESSAGE.container);
    expect(message.future_field).toEqual(FUTURE_DELTA_FIELD);
    expect(message.stop_reason).toBe('tool_use');
    expect((message.svc_meta as { warnings?: string[] }).warnings).toBeUndefined();
  });
});

describe('another client format over an anthropic upstream', () => {
  it('gives the search as citations on the message, and names the search itself in svc_meta.warnings', async () => {
    await forwardingUpstream();
    const res = await fetch(`${router.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${router.key}` },
      body: JSON.stringify({ model: SKU, messages: [{ role: 'user', content: 'List the files' }] }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { svc_meta: { warnings?: string[] }; choices: Array<{ message: { content: string; annotations?: unknown[] } }> };
    expect(JSON.stringify(body)).not.toContain('srvtoolu_01Search');
    expect(JSON.stringify(body)).not.toContain('safeguard_results');
    const message = body.choices[0]!.message;
    expect(message.content).toBe('Searching.It routes.');
    // Anthropic cites a whole block: the annotation spans the block's text within the content.
    expect(message.annotations).toEqual([{ type: 'url_citation', url_citation: { url: 'https://example.com/svc', title: 'svc-router', start_index: 10, end_index: 20 } }]);
    expect(body.svc_meta.warnings).toEqual(expect.arrayContaining([expect.stringContaining('searched the web ("svc router")')]));
  });
});

describe('messages client over a translating upstream: no verdict is made up', () => {
  // The router answers auto mode's check itself there (test/server/safety-verdicts.test.ts): a
  // reply without tool calls has nothing to judge, and with no classifier set a tool call gets no verdict.
  const NOTHING_JUDGED = [{ type: 'dangerous_tool_use', status: { type: 'available', tool_uses: {} } }];
  const NO_VERDICT = [{ type: 'dangerous_tool_use', status: { type: 'unavailable', reason: 'disabled' } }];

  it('answers a reply without tool calls with no verdicts, and tool calls with none when no classifier is set', async () => {
    await fakes.routeSku(router, 'openai-chat', [{ text: 'Hello' }, { text: 'Hello' }, { toolCalls: [{ id: 'call_ls', name: 'Bash', arguments: { command: 'ls' } }] }]);
    const message = (await client.messages.create(REQUEST as Anthropic.MessageCreateParamsNonStreaming)) as unknown as Record<string, unknown>;
    expect(message.safeguard_results).toEqual(NOTHING_JUDGED);

    const streamed = async () => {
      const res = await fetch(`${router.origin}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': router.key, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ ...REQUEST, stream: true }),
      });
      const frames = parseSse(await res.text());
      return JSON.parse(frames.find((frame) => frame.event === 'message_delta')!.data);
    };
    const text = await streamed();
    expect(Object.keys(text.delta).sort()).toEqual(['safeguard_results', 'stop_reason', 'stop_sequence']);
    expect(text.delta.safeguard_results).toEqual(NOTHING_JUDGED);
    const tools = await streamed();
    expect(tools.delta.safeguard_results).toEqual(NO_VERDICT);
  });
});

describe('sampling under the client’s anthropic-version, forwarded', () => {
  /** The body the upstream received, and the warning the client got, for temperature 0 under version 2026-10-21 to `model`. */
  async function sampled(model: string): Promise<{ body: Record<string, unknown>; warning: string | null }> {
    const upstream = await fakes.start('anthropic', [{ text: 'ok' }]);
    addBackend(router, 'versioned', 'anthropic', upstream.url);
    setRoute(router, SKU, [`versioned:${model}`]);
    // The SDK's types for 2026-10-21 have no temperature; a client written for an earlier version still sends it.
    const params = { model: SKU, max_tokens: 16, temperature: 0, messages: [{ role: 'user', content: 'hi' }] } as unknown as Anthropic.MessageCreateParamsNonStreaming;
    const reply = await client.messages.create(params, { headers: { 'anthropic-version': '2026-10-21' } }).withResponse();
    return { body: upstream.requests[0]!.body, warning: reply.response.headers.get('x-svc-warning') };
  }

  it('goes as the client sent it to a model the catalog does not know (a server speaking the format, such as llama.cpp, takes it)', async () => {
    const { body, warning } = await sampled('served-model');
    expect(body.temperature).toBe(0);
    expect(warning).toBeNull();
  });

  it('is left out, and named, for a Claude model whose catalog row says that version refuses it', async () => {
    const { body, warning } = await sampled('claude-opus-4-8');
    expect(body).not.toHaveProperty('temperature');
    expect(decodeURIComponent(warning ?? '')).toContain('temperature not sent: anthropic-version 2026-10-21 has no sampling settings');
  });
});
