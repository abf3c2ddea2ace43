import { describe, expect, it } from 'vitest';
import { decodeResponsesReply } from '../../../src/backends/openai-responses/decode-reply.js';
import { decodeResponsesStream } from '../../../src/backends/openai-responses/decode-stream.js';
import { expectRouterError } from '../translators/support.js';
import { expectFieldFault, framesOf, REMOVE, runStream, title, withField, type Row } from './support.js';

const BACKEND = 'resp';

/** A response that uses every field the reply decoder reads. */
const REPLY = {
  id: 'resp_1',
  object: 'response',
  status: 'completed',
  error: null,
  output: [
    { id: 'rs_1', type: 'reasoning', encrypted_content: 'gAAAA-sealed', summary: [{ type: 'summary_text', text: 'Need the weather.' }] },
    { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', annotations: [], text: 'Checking now.' }] },
    { id: 'fc_1', type: 'function_call', status: 'completed', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { id: 'ctc_1', type: 'custom_tool_call', call_id: 'call_2', name: 'apply_patch', input: '*** Begin Patch' },
  ],
  usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15, input_tokens_details: { cached_tokens: 2 }, output_tokens_details: { reasoning_tokens: 1 } },
};

const REPLY_ROWS: Row[] = [
  { path: 'output[2].name', value: REMOVE, problem: 'is missing' },
  { path: 'output[2].name', value: '', problem: 'is empty' },
  { path: 'output[2].name', value: 5, problem: 'is not a string' },
  { path: 'output[2].call_id', value: REMOVE, problem: 'is missing' },
  { path: 'output[2].call_id', value: '', problem: 'is empty' },
  { path: 'output[2].arguments', value: REMOVE, problem: 'is missing' },
  { path: 'output[2].arguments', value: { city: 'Paris' }, problem: 'is not a string' },
  { path: 'output[2].namespace', value: null, problem: 'is null' },
  { path: 'output[2].namespace', value: 5, problem: 'is not a string' },
  { path: 'output[3].input', value: REMOVE, problem: 'is missing' },
  { path: 'output[3].name', value: REMOVE, problem: 'is missing' },
  { path: 'output[3].call_id', value: 7, problem: 'is not a string' },
  { path: 'output[0].summary[0].text', value: REMOVE, problem: 'is missing' },
  { path: 'output[0].summary[0]', value: 'text', problem: 'is not an object' },
  { path: 'output[0].summary', value: 'Need the weather.', problem: 'is not an array' },
  { path: 'output[0].encrypted_content', value: 5, problem: 'is not a string' },
  { path: 'output[0].id', value: 5, problem: 'is not a string' },
  { path: 'incomplete_details', value: 'max_output_tokens', problem: 'is not an object' },
  { path: 'incomplete_details.reason', value: 5, problem: 'is not a string' },
  { path: 'output[1].content[0].text', value: 5, problem: 'is not a string' },
  { path: 'output[1].content[0].refusal', value: 5, problem: 'is not a string' },
  { path: 'output[1].content[0]', value: 'Checking now.', problem: 'is not an object' },
  { path: 'output[1].content', value: 'Checking now.', problem: 'is not an array' },
  { path: 'output[1].type', value: REMOVE, problem: 'is missing' },
  { path: 'output[1]', value: null, problem: 'is null' },
  { path: 'output', value: {}, problem: 'is not an array' },
  { path: 'id', value: 5, problem: 'is not a string' },
  { path: 'status', value: 5, problem: 'is not a string' },
  { path: 'error', value: 'bad', problem: 'is not an object' },
  { path: 'usage', value: 'lots', problem: 'is not an object' },
  { path: 'usage.input_tokens', value: '10', problem: 'is not a number' },
  { path: 'usage.output_tokens', value: '5', problem: 'is not a number' },
  { path: 'usage.input_tokens_details.cached_tokens', value: '2', problem: 'is not a number' },
  { path: 'usage.output_tokens_details.reasoning_tokens', value: '1', problem: 'is not a number' },
];

/** A stream that uses every field the stream decoder reads. */
const EVENTS = [
  { type: 'response.created', sequence_number: 0, response: { id: 'resp_1', status: 'in_progress' } },
  { type: 'response.output_item.added', output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [] } },
  { type: 'response.reasoning_summary_text.delta', item_id: 'rs_1', delta: 'Need the weather.' },
  { type: 'response.output_item.done', output_index: 0, item: { id: 'rs_1', type: 'reasoning', encrypted_content: 'gAAAA-sealed', summary: [] } },
  { type: 'response.output_text.delta', item_id: 'msg_1', delta: 'Checking now.' },
  { type: 'response.output_item.done', output_index: 1, item: { id: 'msg_1', type: 'message', content: [] } },
  { type: 'response.output_item.added', output_index: 2, item: { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '' } },
  { type: 'response.function_call_arguments.delta', item_id: 'fc_1', delta: '{"city":"Paris"}' },
  { type: 'response.output_item.done', output_index: 2, item: { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' } },
  { type: 'response.output_item.added', output_index: 3, item: { id: 'ctc_1', type: 'custom_tool_call', call_id: 'call_2', name: 'apply_patch', input: '' } },
  { type: 'response.output_item.done', output_index: 3, item: { id: 'ctc_1', type: 'custom_tool_call', call_id: 'call_2', name: 'apply_patch', input: '*** Begin Patch' } },
  { type: 'response.completed', response: { id: 'resp_1', status: 'completed', usage: { input_tokens: 10, output_tokens: 5, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } } },
];

const EVENT_ROWS: Row[] = [
  { chunk: 6, path: 'item.name', value: REMOVE, problem: 'is missing' },
  { chunk: 6, path: 'item.name', value: '', problem: 'is empty' },
  { chunk: 6, path: 'item.name', value: 5, problem: 'is not a string' },
  { chunk: 6, path: 'item.call_id', value: 5, problem: 'is not a string' },
  { chunk: 6, path: 'item.id', value: 5, problem: 'is not a string' },
  { chunk: 6, path: 'item.namespace', value: null, problem: 'is null' },
  { chunk: 6, path: 'item.type', value: 5, problem: 'is not a string' },
  { chunk: 6, path: 'item', value: 'fc_1', problem: 'is not an object' },
  { chunk: 9, path: 'item.name', value: REMOVE, problem: 'is missing' },
  { chunk: 10, path: 'item.input', value: REMOVE, problem: 'is missing' },
  { chunk: 10, path: 'item.call_id', value: 5, problem: 'is not a string' },
  { chunk: 8, path: 'item.id', value: 5, problem: 'is not a string' },
  { chunk: 3, path: 'item.encrypted_content', value: 5, problem: 'is not a string' },
  { chunk: 3, path: 'item.id', value: 5, problem: 'is not a string' },
  { chunk: 11, path: 'response.incomplete_details', value: 'max_output_tokens', problem: 'is not an object' },
  { chunk: 11, path: 'response.incomplete_details.reason', value: 5, problem: 'is not a string' },
  { chunk: 3, path: 'item', value: 5, problem: 'is not an object' },
  { chunk: 2, path: 'delta', value: 5, problem: 'is not a string' },
  { chunk: 4, path: 'delta', value: ['Checking'], problem: 'is not a string' },
  { chunk: 7, path: 'item_id', value: 5, problem: 'is not a string' },
  { chunk: 7, path: 'delta', value: {}, problem: 'is not a string' },
  { chunk: 0, path: 'response.id', value: 5, problem: 'is not a string' },
  { chunk: 0, path: 'response', value: 'resp_1', problem: 'is not an object' },
  { chunk: 11, path: 'response.status', value: 5, problem: 'is not a string' },
  { chunk: 11, path: 'response.usage', value: 15, problem: 'is not an object' },
  { chunk: 11, path: 'response.usage.input_tokens', value: '10', problem: 'is not a number' },
  { chunk: 11, path: 'response.usage.output_tokens_details.reasoning_tokens', value: '0', problem: 'is not a number' },
  { chunk: 4, path: 'type', value: REMOVE, problem: 'is missing' },
  { chunk: 4, path: 'type', value: 1, problem: 'is not a string' },
];

describe('openai-responses upstream boundary: replies', () => {
  it('decodes the valid reply every row starts from', () => {
    const reply = decodeResponsesReply(BACKEND, REPLY);
    expect(reply.content.map((part) => part.type)).toEqual(['reasoning', 'text', 'tool-call', 'tool-call']);
  });

  it.each(REPLY_ROWS.map((row) => [title(row), row] as const))('%s', (_title, row) => {
    let error: unknown;
    try {
      decodeResponsesReply(BACKEND, withField(REPLY, row.path, row.value));
    } catch (caught) {
      error = caught;
    }
    expectFieldFault(error, BACKEND, 'reply', row);
  });

  it('names a failed response whose error message is not a string', () => {
    const failed = { ...REPLY, status: 'failed', error: { code: 'server_error', message: 5 } };
    expect(() => decodeResponsesReply(BACKEND, failed)).toThrow("Backend 'resp' sent a reply whose error.message is not a string.");
  });
});

describe('openai-responses upstream boundary: stream events', () => {
  it('decodes the valid stream every row starts from', async () => {
    const { events, error } = await runStream(decodeResponsesStream(BACKEND, framesOf(EVENTS)));
    expect(error).toBeUndefined();
    expect(events).toContainEqual({ type: 'tool-call-start', id: 'call_1', name: 'get_weather' });
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'tool-calls' });
  });

  it.each(EVENT_ROWS.map((row) => [title(row), row] as const))('%s', async (_title, row) => {
    const events = EVENTS.map((event, index) => (index === row.chunk ? withField(event, row.path, row.value) : event));
    const { events: decoded, error } = await runStream(decodeResponsesStream(BACKEND, framesOf(events)));
    expectFieldFault(error, BACKEND, 'stream event', row);
    expect(decoded.some((event) => event.type === 'finish')).toBe(false);
  });

  it('names a failed event whose error message is not a string', async () => {
    const failed = { type: 'response.failed', response: { id: 'resp_1', status: 'failed', error: { code: 'server_error', message: 5 } } };
    const { error } = await runStream(decodeResponsesStream(BACKEND, framesOf([EVENTS[0], failed])));
    expect(expectRouterError(error, 502, 'upstream').message).toBe("Backend 'resp' sent a stream event whose response.error.message is not a string.");
  });

  it('lets event types it does not read pass unchecked', async () => {
    const extra = { type: 'response.web_search_call.searching', item_id: 5, output_index: 'x' };
    const { error } = await runStream(decodeResponsesStream(BACKEND, framesOf([EVENTS[0], extra, ...EVENTS.slice(1)])));
    expect(error).toBeUndefined();
  });
});
