import { describe, expect, it } from 'vitest';
import { RouterError } from '../../src/core/errors.js';
import type { Usage } from '../../src/core/reply.js';
import type { StreamEvent } from '../../src/core/stream-events.js';
import type { EncodeContext, SvcMeta } from '../../src/formats/client-format.js';
import { decodeResponsesRequest, type ResponsesOptions } from '../../src/formats/responses/decode-request.js';
import { encodeResponsesStream } from '../../src/formats/responses/encode-stream.js';
import { cutAtTerminal } from '../helpers/cut-at-terminal.js';
import { unsealReasoning } from '../../src/formats/responses/seal-reasoning.js';

const SECRET = 'test-secret';
const MODEL = 'svc.intelligent-basic';
const CREATED = 1_750_000_000;

type Event = Record<string, any> & { type: string; sequence_number: number };

const metaFor = (usage: Usage): SvcMeta => ({
  request_id: 'req_golden',
  sku: MODEL,
  backend: 'golden',
  upstream_model: 'golden-model',
  attempts: 1,
  latency_ms: 0,
  usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens },
  remaining_tokens: 1000,
});

async function* from(events: StreamEvent[]): AsyncGenerator<StreamEvent[]> {
  for (const event of events) yield [event];
}

/**
 * Runs the encoder over canonical events with a context built as the handler builds it (options
 * from decoding a small request body), and reads the SSE text back into events.
 */
async function encode(events: StreamEvent[], body: Record<string, unknown> = {}) {
  const decoded = decodeResponsesRequest({ model: MODEL, input: 'hi', ...body }, { secret: SECRET });
  const finished: Usage[] = [];
  const context: EncodeContext<ResponsesOptions> = {
    requestId: 'req_golden',
    model: MODEL,
    created: CREATED,
    options: decoded.options,
    request: decoded.request,
    secret: SECRET,
    svcMeta: () => metaFor(finished.at(-1) ?? { inputTokens: 0, outputTokens: 0 }),
  };
  let text = '';
  // As the pipeline hands it on: cut at the terminal event, the finish's usage recorded first.
  for await (const chunk of encodeResponsesStream(cutAtTerminal(from(events), (event) => event.type === 'finish' && finished.push(event.usage)), context)) text += chunk;
  expect(text.endsWith('\n\n')).toBe(true);
  const parsed = text
    .slice(0, -2)
    .split('\n\n')
    .map((frame) => {
      const lines = frame.split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^event: /);
      expect(lines[1]).toMatch(/^data: /);
      const data = JSON.parse(lines[1]!.slice('data: '.length)) as Event;
      expect(lines[0]!.slice('event: '.length)).toBe(data.type);
      return data;
    });
  return { events: parsed, finished };
}

/**
 * One readable line per event: its type, `#output_index`, content or summary index, the item's
 * type, status and call id where it carries one, and any delta. An item_id that does not belong
 * to the item added at that output_index shows up as `item_id≠`.
 */
function golden(events: Event[]): string[] {
  const ids = new Map<number, string>();
  return events.map((event) => {
    const parts = [event.type];
    if (event.type === 'response.output_item.added') ids.set(event.output_index, event.item.id);
    if (event.output_index !== undefined) parts.push(`#${event.output_index}`);
    if (event.item_id !== undefined && event.item_id !== ids.get(event.output_index)) parts.push('item_id≠');
    if (event.item !== undefined && event.item.id !== ids.get(event.output_index)) parts.push('item.id≠');
    if (event.content_index !== undefined) parts.push(`c${event.content_index}`);
    if (event.summary_index !== undefined) parts.push(`s${event.summary_index}`);
    if (event.item) parts.push(`${event.item.type}(${event.item.status})${event.item.call_id ? ` ${event.item.call_id}` : ''}`);
    if (event.delta !== undefined) parts.push(JSON.stringify(event.delta));
    return parts.join(' ');
  });
}

/**
 * What holds for every stream: sequence numbers 0, 1, 2, …; one response id; created and
 * in_progress first with an empty output; one terminal event, last; items added at 0, 1, 2, …;
 * unless the response failed, every added item gets exactly one done, after which nothing more
 * is said about it; the terminal response lists the done items in output_index order.
 */
function expectGrammar(events: Event[], terminal: string): Event {
  expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
  const [created, inProgress] = events;
  expect(created!.type).toBe('response.created');
  expect(inProgress!.type).toBe('response.in_progress');
  for (const opening of [created!, inProgress!]) expect(opening.response).toMatchObject({ status: 'in_progress', output: [], usage: null, error: null });
  const id = created!.response.id as string;
  expect(id).toMatch(/^resp_/);
  for (const event of events) if (event.response) expect(event.response).toMatchObject({ id, object: 'response', created_at: CREATED, model: MODEL });

  const terminals = events.filter((event) => ['response.completed', 'response.incomplete', 'response.failed'].includes(event.type));
  expect(terminals.map((event) => event.type)).toEqual([terminal]);
  expect(events.at(-1)).toBe(terminals[0]);

  const added = events.filter((event) => event.type === 'response.output_item.added');
  expect(added.map((event) => event.output_index)).toEqual(added.map((_, index) => index));
  const done = events.filter((event) => event.type === 'response.output_item.done');
  if (terminal !== 'response.failed') {
    expect(done.map((event) => event.output_index).sort()).toEqual(added.map((event) => event.output_index));
    for (const item of done) {
      expect(events.slice(events.indexOf(item) + 1).filter((event) => event.output_index === item.output_index)).toEqual([]);
    }
  }
  expect(terminals[0]!.response.output).toEqual([...done].sort((a, b) => a.output_index - b.output_index).map((event) => event.item));
  return terminals[0]!;
}

const PATCH = '*** Begin Patch\n*** Add File: hello.txt\n+hi "there" \\o/\n*** End Patch\n';

describe('encodeResponsesStream golden streams', () => {
  it('text only', async () => {
    const usage: Usage = { inputTokens: 12, outputTokens: 3, cachedInputTokens: 4 };
    const { events, finished } = await encode([
      { type: 'start', id: 'upstream-1', usage: { inputTokens: 12, outputTokens: 0 } },
      { type: 'text-start' },
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: '' },
      { type: 'text-delta', text: 'lo 👋' },
      { type: 'text-end' },
      { type: 'finish', reason: 'stop', usage },
    ]);

    expect(golden(events)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added #0 message(in_progress)',
      'response.content_part.added #0 c0',
      'response.output_text.delta #0 c0 "Hel"',
      'response.output_text.delta #0 c0 "lo 👋"',
      'response.output_text.done #0 c0',
      'response.content_part.done #0 c0',
      'response.output_item.done #0 message(completed)',
      'response.completed',
    ]);
    const completed = expectGrammar(events, 'response.completed');
    expect(events[2]!.item).toMatchObject({ type: 'message', role: 'assistant', content: [] });
    expect(events[3]!.part).toMatchObject({ type: 'output_text', text: '' });
    expect(events[6]).toMatchObject({ text: 'Hello 👋' });
    expect(events[7]!.part).toEqual({ type: 'output_text', text: 'Hello 👋', annotations: [], logprobs: [] });
    expect(completed.response).toMatchObject({
      status: 'completed',
      error: null,
      incomplete_details: null,
      output: [{ id: events[2]!.item.id, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hello 👋', annotations: [], logprobs: [] }] }],
      usage: { input_tokens: 12, input_tokens_details: { cached_tokens: 4 }, output_tokens: 3, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 },
      svc_meta: metaFor(usage),
    });
    expect(completed.response.id).not.toBe('upstream-1');
    expect(finished).toEqual([usage]);
  });

  it('text cut by the token limit ends response.incomplete', async () => {
    const usage: Usage = { inputTokens: 5, outputTokens: 16 };
    const { events, finished } = await encode(
      [
        { type: 'start' },
        { type: 'text-start' },
        { type: 'text-delta', text: 'A long answ' },
        { type: 'text-end' },
        { type: 'finish', reason: 'length', usage },
      ],
      { max_output_tokens: 16 },
    );
    expect(golden(events).at(-1)).toBe('response.incomplete');
    const incomplete = expectGrammar(events, 'response.incomplete');
    expect(incomplete.response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      max_output_tokens: 16,
      usage: { input_tokens: 5, output_tokens: 16, total_tokens: 21 },
      svc_meta: metaFor(usage),
    });
    expect(finished).toEqual([usage]);
  });

  it('text plus two parallel function calls with interleaved deltas, ending out of order', async () => {
    const usage: Usage = { inputTokens: 40, outputTokens: 20 };
    const { events, finished } = await encode(
      [
        { type: 'start' },
        { type: 'text-start' },
        { type: 'text-delta', text: 'Checking.' },
        { type: 'text-end' },
        { type: 'tool-call-start', id: 'call_a', name: 'get_weather' },
        { type: 'tool-call-start', id: 'call_b', name: 'get_weather' },
        { type: 'tool-call-delta', id: 'call_a', argumentsDelta: '{"city":' },
        { type: 'tool-call-delta', id: 'call_b', argumentsDelta: '{"city":' },
        { type: 'tool-call-delta', id: 'call_a', argumentsDelta: '"Paris"}' },
        { type: 'tool-call-delta', id: 'call_b', argumentsDelta: '"東京"}' },
        { type: 'tool-call-end', id: 'call_b' },
        { type: 'tool-call-end', id: 'call_a' },
        { type: 'finish', reason: 'tool-calls', usage },
      ],
      { tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }] },
    );

    expect(golden(events)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added #0 message(in_progress)',
      'response.content_part.added #0 c0',
      'response.output_text.delta #0 c0 "Checking."',
      'response.output_text.done #0 c0',
      'response.content_part.done #0 c0',
      'response.output_item.done #0 message(completed)',
      'response.output_item.added #1 function_call(in_progress) call_a',
      'response.output_item.added #2 function_call(in_progress) call_b',
      'response.function_call_arguments.delta #1 "{\\"city\\":"',
      'response.function_call_arguments.delta #2 "{\\"city\\":"',
      'response.function_call_arguments.delta #1 "\\"Paris\\"}"',
      'response.function_call_arguments.delta #2 "\\"東京\\"}"',
      'response.function_call_arguments.done #2',
      'response.output_item.done #2 function_call(completed) call_b',
      'response.function_call_arguments.done #1',
      'response.output_item.done #1 function_call(completed) call_a',
      'response.completed',
    ]);
    const completed = expectGrammar(events, 'response.completed');
    const [a, b] = [events[8]!.item.id as string, events[9]!.item.id as string];
    expect(a).toMatch(/^fc_/);
    expect(b).toMatch(/^fc_/);
    expect(a).not.toBe(b);
    expect(events[8]!.item).toEqual({ id: a, type: 'function_call', status: 'in_progress', call_id: 'call_a', name: 'get_weather', arguments: '' });
    expect(events[14]).toMatchObject({ item_id: b, output_index: 2, name: 'get_weather', arguments: '{"city":"東京"}' });
    expect(events[16]).toMatchObject({ item_id: a, output_index: 1, name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(completed.response.output).toEqual([
      expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: 'Checking.' })] }),
      { id: a, type: 'function_call', status: 'completed', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: b, type: 'function_call', status: 'completed', call_id: 'call_b', name: 'get_weather', arguments: '{"city":"東京"}' },
    ]);
    expect(completed.response.usage).toMatchObject({ input_tokens: 40, output_tokens: 20, total_tokens: 60 });
    expect(finished).toEqual([usage]);
  });

  it.each([true, false])('reasoning then a function call (encrypted_content included: %s)', async (include) => {
    const usage: Usage = { inputTokens: 30, outputTokens: 25, reasoningTokens: 5 };
    const { events } = await encode(
      [
        { type: 'start' },
        { type: 'reasoning-start' },
        { type: 'reasoning-delta', text: 'Need the ' },
        { type: 'reasoning-delta', text: 'weather.' },
        { type: 'reasoning-end', providerMetadata: { anthropic: { signature: 'sig-anthropic-1' } } },
        { type: 'tool-call-start', id: 'toolu_1', name: 'get_weather' },
        { type: 'tool-call-delta', id: 'toolu_1', argumentsDelta: '{"city":"Paris"}' },
        { type: 'tool-call-end', id: 'toolu_1' },
        { type: 'finish', reason: 'tool-calls', usage },
      ],
      { tools: [{ type: 'function', name: 'get_weather' }], ...(include ? { include: ['reasoning.encrypted_content'] } : {}) },
    );

    expect(golden(events)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added #0 reasoning(in_progress)',
      'response.reasoning_summary_part.added #0 s0',
      'response.reasoning_summary_text.delta #0 s0 "Need the "',
      'response.reasoning_summary_text.delta #0 s0 "weather."',
      'response.reasoning_summary_text.done #0 s0',
      'response.reasoning_summary_part.done #0 s0',
      'response.output_item.done #0 reasoning(completed)',
      'response.output_item.added #1 function_call(in_progress) toolu_1',
      'response.function_call_arguments.delta #1 "{\\"city\\":\\"Paris\\"}"',
      'response.function_call_arguments.done #1',
      'response.output_item.done #1 function_call(completed) toolu_1',
      'response.completed',
    ]);
    const completed = expectGrammar(events, 'response.completed');
    expect(events[2]!.item).toMatchObject({ type: 'reasoning', summary: [] });
    expect(events[2]!.item).not.toHaveProperty('encrypted_content');
    expect(events[6]).toMatchObject({ text: 'Need the weather.' });
    expect(events[7]!.part).toEqual({ type: 'summary_text', text: 'Need the weather.' });
    const reasoning = events[8]!.item;
    expect(reasoning).toMatchObject({ id: events[2]!.item.id, type: 'reasoning', status: 'completed', summary: [{ type: 'summary_text', text: 'Need the weather.' }] });
    if (include) {
      expect(reasoning.encrypted_content).toMatch(/^svcr2\./);
      expect(unsealReasoning(reasoning.encrypted_content, SECRET, 'x')).toEqual({ type: 'reasoning', text: 'Need the weather.', providerMetadata: { anthropic: { signature: 'sig-anthropic-1' } } });
      expect(() => unsealReasoning(reasoning.encrypted_content, 'another-secret', 'input[0].encrypted_content')).toThrow(/encrypted_content/);
    } else {
      expect(reasoning).not.toHaveProperty('encrypted_content');
    }
    expect(completed.response.output.map((item: { type: string }) => item.type)).toEqual(['reasoning', 'function_call']);
    expect(completed.response.usage).toMatchObject({ output_tokens: 25, output_tokens_details: { reasoning_tokens: 5 } });
  });

  it('a custom tool call and a namespaced function call', async () => {
    const args = JSON.stringify({ input: PATCH });
    const { events } = await encode(
      [
        { type: 'start' },
        { type: 'tool-call-start', id: 'call_patch', name: 'apply_patch' },
        { type: 'tool-call-delta', id: 'call_patch', argumentsDelta: args.slice(0, 10) },
        { type: 'tool-call-delta', id: 'call_patch', argumentsDelta: args.slice(10, 30) },
        { type: 'tool-call-delta', id: 'call_patch', argumentsDelta: args.slice(30) },
        { type: 'tool-call-end', id: 'call_patch' },
        { type: 'tool-call-start', id: 'call_spawn', name: 'multi_agent_v1__spawn_agent' },
        { type: 'tool-call-delta', id: 'call_spawn', argumentsDelta: '{"message":"review"}' },
        { type: 'tool-call-end', id: 'call_spawn' },
        { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 50, outputTokens: 30 } },
      ],
      {
        tools: [
          { type: 'custom', name: 'apply_patch', description: 'Edit files.', format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' } },
          { type: 'namespace', name: 'multi_agent_v1', description: 'Sub-agents.', tools: [{ type: 'function', name: 'spawn_agent', parameters: { type: 'object', properties: {} } }] },
        ],
      },
    );

    expect(golden(events)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added #0 custom_tool_call(in_progress) call_patch',
      `response.custom_tool_call_input.delta #0 ${JSON.stringify(PATCH)}`,
      'response.custom_tool_call_input.done #0',
      'response.output_item.done #0 custom_tool_call(completed) call_patch',
      'response.output_item.added #1 function_call(in_progress) call_spawn',
      'response.function_call_arguments.delta #1 "{\\"message\\":\\"review\\"}"',
      'response.function_call_arguments.done #1',
      'response.output_item.done #1 function_call(completed) call_spawn',
      'response.completed',
    ]);
    const completed = expectGrammar(events, 'response.completed');
    const custom = events[2]!.item.id as string;
    expect(custom).toMatch(/^ctc_/);
    expect(events[2]!.item).toEqual({ id: custom, type: 'custom_tool_call', status: 'in_progress', call_id: 'call_patch', name: 'apply_patch', input: '' });
    expect(events[4]).toMatchObject({ item_id: custom, output_index: 0, input: PATCH });
    expect(events[6]!.item).toMatchObject({ type: 'function_call', name: 'spawn_agent', namespace: 'multi_agent_v1' });
    expect(events[8]).toMatchObject({ name: 'spawn_agent', arguments: '{"message":"review"}' });
    expect(completed.response.output).toEqual([
      { id: custom, type: 'custom_tool_call', status: 'completed', call_id: 'call_patch', name: 'apply_patch', input: PATCH },
      { id: events[6]!.item.id, type: 'function_call', status: 'completed', call_id: 'call_spawn', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{"message":"review"}' },
    ]);
  });

  it('a mid-stream failure ends with response.failed carrying the error and only the finished items', async () => {
    const { events, finished } = await encode(
      [
        { type: 'start', usage: { inputTokens: 9, outputTokens: 0 } },
        { type: 'tool-call-start', id: 'call_1', name: 'get_weather' },
        { type: 'tool-call-delta', id: 'call_1', argumentsDelta: '{"city":"Oslo"}' },
        { type: 'tool-call-end', id: 'call_1' },
        { type: 'text-start' },
        { type: 'text-delta', text: 'Partial' },
        { type: 'error', error: new RouterError(502, 'upstream', "Backend 'up' failed mid-stream: connection reset") },
        // Nothing after the error reaches the client.
        { type: 'text-delta', text: ' more' },
        { type: 'finish', reason: 'stop', usage: { inputTokens: 9, outputTokens: 4 } },
      ],
      { tools: [{ type: 'function', name: 'get_weather' }] },
    );

    expect(golden(events)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added #0 function_call(in_progress) call_1',
      'response.function_call_arguments.delta #0 "{\\"city\\":\\"Oslo\\"}"',
      'response.function_call_arguments.done #0',
      'response.output_item.done #0 function_call(completed) call_1',
      'response.output_item.added #1 message(in_progress)',
      'response.content_part.added #1 c0',
      'response.output_text.delta #1 c0 "Partial"',
      'response.failed',
    ]);
    const failed = expectGrammar(events, 'response.failed');
    expect(failed.response).toMatchObject({
      status: 'failed',
      error: { code: 'server_error', message: "Backend 'up' failed mid-stream: connection reset" },
      incomplete_details: null,
      usage: null,
      output: [{ type: 'function_call', status: 'completed', call_id: 'call_1', arguments: '{"city":"Oslo"}' }],
    });
    expect(failed.response).not.toHaveProperty('svc_meta');
    expect(finished).toEqual([]);
  });

  it('a failure keeps the error’s own code', async () => {
    const { events } = await encode([
      { type: 'start' },
      { type: 'error', error: new RouterError(429, 'rate_limit', 'Backend is rate limited', undefined, 'rate_limit_exceeded') },
    ]);
    expect(golden(events)).toEqual(['response.created', 'response.in_progress', 'response.failed']);
    expect(expectGrammar(events, 'response.failed').response.error).toEqual({ code: 'rate_limit_exceeded', message: 'Backend is rate limited' });
  });
});
