import { describe, expect, it } from 'vitest';
import { decodeAnthropicReply } from '../../../src/backends/anthropic/decode-reply.js';
import { decodeAnthropicStream } from '../../../src/backends/anthropic/decode-stream.js';
import { expectRouterError } from '../translators/support.js';
import { expectFieldFault, framesOf, REMOVE, runStream, title, withField, type Row } from './support.js';

const BACKEND = 'ant';

/** A message that uses every field the reply decoder reads. */
const REPLY = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [
    { type: 'thinking', thinking: 'The user wants the weather.', signature: 'EqQBCgIYAh' },
    { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va' },
    { type: 'text', text: 'Checking.' },
    { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 2, cache_creation_input_tokens: 0 },
};

const REPLY_ROWS: Row[] = [
  { path: 'content[3].name', value: REMOVE, problem: 'is missing' },
  { path: 'content[3].name', value: '', problem: 'is empty' },
  { path: 'content[3].name', value: 5, problem: 'is not a string' },
  { path: 'content[3].id', value: REMOVE, problem: 'is missing' },
  { path: 'content[3].id', value: '', problem: 'is empty' },
  { path: 'content[2].text', value: REMOVE, problem: 'is missing' },
  { path: 'content[2].text', value: 5, problem: 'is not a string' },
  { path: 'content[0].thinking', value: REMOVE, problem: 'is missing' },
  { path: 'content[0].signature', value: 5, problem: 'is not a string' },
  { path: 'content[1].data', value: REMOVE, problem: 'is missing' },
  { path: 'content[0].type', value: REMOVE, problem: 'is missing' },
  { path: 'content[0]', value: 'thinking', problem: 'is not an object' },
  { path: 'content', value: {}, problem: 'is not an array' },
  { path: 'id', value: 5, problem: 'is not a string' },
  { path: 'stop_reason', value: 5, problem: 'is not a string' },
  { path: 'stop_sequence', value: 5, problem: 'is not a string' },
  { path: 'usage', value: 'lots', problem: 'is not an object' },
  { path: 'usage.input_tokens', value: '10', problem: 'is not a number' },
  { path: 'usage.output_tokens', value: '5', problem: 'is not a number' },
  { path: 'usage.cache_read_input_tokens', value: '2', problem: 'is not a number' },
  { path: 'usage.cache_creation_input_tokens', value: '0', problem: 'is not a number' },
];

/** A stream that uses every field the stream decoder reads. */
const EVENTS = [
  { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], usage: { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'The user wants the weather.' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'EqQBCgIYAh' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va' } },
  { type: 'content_block_stop', index: 1 },
  { type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'Checking.' } },
  { type: 'content_block_stop', index: 2 },
  { type: 'content_block_start', index: 3, content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} } },
  { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '{"city":"Paris"}' } },
  { type: 'content_block_stop', index: 3 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 5 } },
  { type: 'message_stop' },
];

const EVENT_ROWS: Row[] = [
  { chunk: 10, path: 'content_block.name', value: REMOVE, problem: 'is missing' },
  { chunk: 10, path: 'content_block.name', value: '', problem: 'is empty' },
  { chunk: 10, path: 'content_block.name', value: 5, problem: 'is not a string' },
  { chunk: 10, path: 'content_block.id', value: 5, problem: 'is not a string' },
  { chunk: 5, path: 'content_block.data', value: REMOVE, problem: 'is missing' },
  { chunk: 7, path: 'content_block.type', value: REMOVE, problem: 'is missing' },
  { chunk: 7, path: 'content_block', value: 'text', problem: 'is not an object' },
  { chunk: 7, path: 'index', value: -1, problem: 'is not a whole number' },
  { chunk: 8, path: 'index', value: '2', problem: 'is not a whole number' },
  { chunk: 9, path: 'index', value: 2.5, problem: 'is not a whole number' },
  { chunk: 8, path: 'delta.text', value: 5, problem: 'is not a string' },
  { chunk: 8, path: 'delta.type', value: 5, problem: 'is not a string' },
  { chunk: 8, path: 'delta', value: 'Checking.', problem: 'is not an object' },
  { chunk: 2, path: 'delta.thinking', value: 5, problem: 'is not a string' },
  { chunk: 3, path: 'delta.signature', value: 5, problem: 'is not a string' },
  { chunk: 11, path: 'delta.partial_json', value: {}, problem: 'is not a string' },
  { chunk: 0, path: 'message.id', value: 5, problem: 'is not a string' },
  { chunk: 0, path: 'message.usage', value: 10, problem: 'is not an object' },
  { chunk: 0, path: 'message.usage.input_tokens', value: '10', problem: 'is not a number' },
  { chunk: 0, path: 'message.usage.cache_read_input_tokens', value: '0', problem: 'is not a number' },
  { chunk: 0, path: 'message', value: 'msg_1', problem: 'is not an object' },
  { chunk: 13, path: 'delta.stop_reason', value: 5, problem: 'is not a string' },
  { chunk: 13, path: 'delta.stop_sequence', value: 5, problem: 'is not a string' },
  { chunk: 13, path: 'usage.output_tokens', value: '5', problem: 'is not a number' },
  { chunk: 13, path: 'usage', value: 5, problem: 'is not an object' },
  { chunk: 8, path: 'type', value: REMOVE, problem: 'is missing' },
  { chunk: 8, path: 'type', value: 7, problem: 'is not a string' },
];

describe('anthropic upstream boundary: replies', () => {
  it('decodes the valid reply every row starts from', () => {
    const reply = decodeAnthropicReply(BACKEND, REPLY);
    expect(reply.content.map((part) => part.type)).toEqual(['reasoning', 'reasoning', 'text', 'tool-call']);
  });

  it.each(REPLY_ROWS.map((row) => [title(row), row] as const))('%s', (_title, row) => {
    let error: unknown;
    try {
      decodeAnthropicReply(BACKEND, withField(REPLY, row.path, row.value));
    } catch (caught) {
      error = caught;
    }
    expectFieldFault(error, BACKEND, 'reply', row);
  });

  it('passes blocks of types it does not read, whatever they hold', () => {
    const reply = decodeAnthropicReply(BACKEND, { ...REPLY, content: [...REPLY.content, { type: 'server_tool_use', id: 5, name: null }] });
    expect(reply.content).toHaveLength(4);
  });
});

describe('anthropic upstream boundary: stream events', () => {
  it('decodes the valid stream every row starts from', async () => {
    const { events, error } = await runStream(decodeAnthropicStream(BACKEND, framesOf(EVENTS)));
    expect(error).toBeUndefined();
    expect(events).toContainEqual({ type: 'tool-call-start', id: 'toolu_1', name: 'get_weather' });
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'tool-calls' });
  });

  it.each(EVENT_ROWS.map((row) => [title(row), row] as const))('%s', async (_title, row) => {
    const events = EVENTS.map((event, index) => (index === row.chunk ? withField(event, row.path, row.value) : event));
    const { events: decoded, error } = await runStream(decodeAnthropicStream(BACKEND, framesOf(events)));
    expectFieldFault(error, BACKEND, 'stream event', row);
    expect(decoded.some((event) => event.type === 'finish')).toBe(false);
  });

  it('names an error event whose message is not a string', async () => {
    const failed = { type: 'error', error: { type: 'api_error', message: 5 } };
    const { error } = await runStream(decodeAnthropicStream(BACKEND, framesOf([EVENTS[0], failed])));
    expect(expectRouterError(error, 502, 'upstream').message).toBe("Backend 'ant' sent a stream event whose error.message is not a string.");
  });

  it('lets ping and event types it does not read pass unchecked', async () => {
    const { error } = await runStream(decodeAnthropicStream(BACKEND, framesOf([EVENTS[0], { type: 'ping' }, { type: 'future_event', index: 'x' }, ...EVENTS.slice(1)])));
    expect(error).toBeUndefined();
  });
});
