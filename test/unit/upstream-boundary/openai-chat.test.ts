import { describe, expect, it } from 'vitest';
import { decodeChatReply } from '../../../src/backends/openai-chat/decode-reply.js';
import { decodeChatStream } from '../../../src/backends/openai-chat/decode-stream.js';
import { expectRouterError, userRequest } from '../translators/support.js';
import { expectFieldFault, framesOf, REMOVE, runStream, title, withField, type Row } from './support.js';

const BACKEND = 'oai';

/** A chat.completion that uses every field the reply decoder reads. */
const REPLY = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1751886000,
  model: 'gpt-4o-mini',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: 'Checking.',
        refusal: null,
        reasoning_content: 'The user wants the weather.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      logprobs: null,
      finish_reason: 'tool_calls',
    },
  ],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 2 }, completion_tokens_details: { reasoning_tokens: 1 } },
};

const REPLY_ROWS: Row[] = [
  { path: 'choices[0].message.tool_calls[0].function.name', value: REMOVE, problem: 'is missing' },
  { path: 'choices[0].message.tool_calls[0].function.name', value: null, problem: 'is null' },
  { path: 'choices[0].message.tool_calls[0].function.name', value: '', problem: 'is empty' },
  { path: 'choices[0].message.tool_calls[0].function.name', value: 42, problem: 'is not a string' },
  { path: 'choices[0].message.tool_calls[0].function.arguments', value: REMOVE, problem: 'is missing' },
  { path: 'choices[0].message.tool_calls[0].function.arguments', value: { city: 'Paris' }, problem: 'is not a string' },
  { path: 'choices[0].message.tool_calls[0].function', value: REMOVE, problem: 'is missing' },
  { path: 'choices[0].message.tool_calls[0].function', value: 'get_weather', problem: 'is not an object' },
  { path: 'choices[0].message.tool_calls[0].id', value: 7, problem: 'is not a string' },
  { path: 'choices[0].message.tool_calls[0]', value: 'call', problem: 'is not an object' },
  { path: 'choices[0].message.tool_calls', value: {}, problem: 'is not an array' },
  { path: 'choices[0].message.content', value: 5, problem: 'is not a string' },
  { path: 'choices[0].message.refusal', value: ['no'], problem: 'is not a string' },
  { path: 'choices[0].message.reasoning_content', value: 5, problem: 'is not a string' },
  { path: 'choices[0].message.reasoning', value: true, problem: 'is not a string' },
  { path: 'choices[0].message', value: 'Checking.', problem: 'is not an object' },
  { path: 'choices[0].finish_reason', value: 1, problem: 'is not a string' },
  { path: 'choices[0]', value: 'choice', problem: 'is not an object' },
  { path: 'choices', value: {}, problem: 'is not an array' },
  { path: 'id', value: 5, problem: 'is not a string' },
  { path: 'usage', value: 'lots', problem: 'is not an object' },
  { path: 'usage.prompt_tokens', value: '10', problem: 'is not a number' },
  { path: 'usage.completion_tokens', value: '5', problem: 'is not a number' },
  { path: 'usage.prompt_tokens_details', value: 2, problem: 'is not an object' },
  { path: 'usage.prompt_tokens_details.cached_tokens', value: '2', problem: 'is not a number' },
  { path: 'usage.completion_tokens_details.reasoning_tokens', value: '1', problem: 'is not a number' },
];

/** A stream that uses every field the stream decoder reads: reasoning, text, one tool call, finish, usage. */
const CHUNKS = [
  { id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: '', reasoning_content: 'Hm.' }, finish_reason: null }], usage: null },
  { id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'Checking.', refusal: null, reasoning: null }, finish_reason: null }], usage: null },
  {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }, finish_reason: null }],
    usage: null,
  },
  { id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":"Paris"}' } }] }, finish_reason: null }], usage: null },
  { id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], usage: null },
  {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    choices: [],
    usage: { prompt_tokens: 10, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } },
  },
];

const CHUNK_ROWS: Row[] = [
  { chunk: 2, path: 'choices[0].delta.tool_calls[0].function.name', value: REMOVE, problem: 'is missing' },
  { chunk: 2, path: 'choices[0].delta.tool_calls[0].function.name', value: null, problem: 'is missing' },
  { chunk: 2, path: 'choices[0].delta.tool_calls[0].function.name', value: '', problem: 'is empty' },
  { chunk: 2, path: 'choices[0].delta.tool_calls[0].function.name', value: 5, problem: 'is not a string' },
  { chunk: 2, path: 'choices[0].delta.tool_calls[0].function', value: 'get_weather', problem: 'is not an object' },
  { chunk: 2, path: 'choices[0].delta.tool_calls[0].index', value: -1, problem: 'is not a whole number' },
  { chunk: 2, path: 'choices[0].delta.tool_calls[0].index', value: '0', problem: 'is not a whole number' },
  { chunk: 2, path: 'choices[0].delta.tool_calls[0].id', value: 5, problem: 'is not a string' },
  { chunk: 2, path: 'choices[0].delta.tool_calls[0]', value: 'call', problem: 'is not an object' },
  { chunk: 2, path: 'choices[0].delta.tool_calls', value: 'call', problem: 'is not an array' },
  { chunk: 3, path: 'choices[0].delta.tool_calls[0].function.arguments', value: { city: 'Paris' }, problem: 'is not a string' },
  { chunk: 0, path: 'choices[0].delta.reasoning_content', value: 5, problem: 'is not a string' },
  { chunk: 1, path: 'choices[0].delta.content', value: 5, problem: 'is not a string' },
  { chunk: 1, path: 'choices[0].delta.refusal', value: {}, problem: 'is not a string' },
  { chunk: 1, path: 'choices[0].delta.reasoning', value: 1, problem: 'is not a string' },
  { chunk: 1, path: 'choices[0].delta', value: 'Checking.', problem: 'is not an object' },
  { chunk: 4, path: 'choices[0].finish_reason', value: 1, problem: 'is not a string' },
  { chunk: 1, path: 'choices[0]', value: 1, problem: 'is not an object' },
  { chunk: 1, path: 'choices', value: 'x', problem: 'is not an array' },
  { chunk: 0, path: 'id', value: 5, problem: 'is not a string' },
  { chunk: 5, path: 'usage', value: 15, problem: 'is not an object' },
  { chunk: 5, path: 'usage.prompt_tokens', value: '10', problem: 'is not a number' },
  { chunk: 5, path: 'usage.completion_tokens', value: '5', problem: 'is not a number' },
  { chunk: 5, path: 'usage.prompt_tokens_details.cached_tokens', value: 'none', problem: 'is not a number' },
  { chunk: 5, path: 'usage.completion_tokens_details', value: [], problem: 'is not an object' },
];

describe('openai-chat upstream boundary: replies', () => {
  it('decodes the valid reply every row starts from', () => {
    const reply = decodeChatReply(BACKEND, REPLY, userRequest());
    expect(reply.content.map((part) => part.type)).toEqual(['reasoning', 'text', 'tool-call']);
  });

  it.each(REPLY_ROWS.map((row) => [title(row), row] as const))('%s', (_title, row) => {
    let error: unknown;
    try {
      decodeChatReply(BACKEND, withField(REPLY, row.path, row.value), userRequest());
    } catch (caught) {
      error = caught;
    }
    expectFieldFault(error, BACKEND, 'reply', row);
  });

  it('names a body that is not a JSON object', () => {
    expect(() => decodeChatReply(BACKEND, ['choices'], userRequest())).toThrow("Backend 'oai' sent a reply that is not a JSON object.");
  });
});

describe('openai-chat upstream boundary: stream chunks', () => {
  it('decodes the valid stream every row starts from', async () => {
    const { events, error } = await runStream(decodeChatStream(BACKEND, framesOf(CHUNKS, true), userRequest()));
    expect(error).toBeUndefined();
    expect(events).toContainEqual({ type: 'tool-call-start', id: 'call_1', name: 'get_weather' });
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'tool-calls' });
  });

  it.each(CHUNK_ROWS.map((row) => [title(row), row] as const))('%s', async (_title, row) => {
    const chunks = CHUNKS.map((chunk, index) => (index === row.chunk ? withField(chunk, row.path, row.value) : chunk));
    const { events, error } = await runStream(decodeChatStream(BACKEND, framesOf(chunks, true), userRequest()));
    expectFieldFault(error, BACKEND, 'stream chunk', row);
    expect(events.some((event) => event.type === 'finish')).toBe(false);
  });

  it('names a chunk that is not a JSON object', async () => {
    const { error } = await runStream(decodeChatStream(BACKEND, framesOf(['hello', ...CHUNKS], true), userRequest()));
    expect(expectRouterError(error, 502, 'upstream').message).toBe("Backend 'oai' sent a stream chunk that is not a JSON object.");
  });

  it('lets a later delta of an open call leave the name out', async () => {
    const chunks = CHUNKS.map((chunk, index) => (index === 3 ? withField(chunk, 'choices[0].delta.tool_calls[0].function.name', null) : chunk));
    const { error } = await runStream(decodeChatStream(BACKEND, framesOf(chunks, true), userRequest()));
    expect(error).toBeUndefined();
  });
});
