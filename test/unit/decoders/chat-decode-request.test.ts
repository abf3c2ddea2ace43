import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../src/core/request.js';
import { decodeChatRequest } from '../../../src/formats/chat/decode-request.js';
import { atLeast, atMost, expected, expectInvalid, type InvalidCase, pick, required, text, userHi } from './support.js';

const MODEL = 'svc.intelligent-pro';
const USER_HI = { role: 'user', content: 'hi' };
/** A valid body with the given fields added or replaced. */
const body = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({ model: MODEL, messages: [USER_HI], ...fields });


describe('decodeChatRequest: valid bodies', () => {
  it.each<[string, Record<string, unknown>, Partial<CanonicalRequest>]>([
    [
      'a minimal body',
      body(),
      {
        model: MODEL,
        system: [],
        messages: [userHi],
        tools: [],
        toolChoice: undefined,
        parallelToolCalls: undefined,
        maxOutputTokens: undefined,
        temperature: undefined,
        topP: undefined,
        stop: undefined,
        reasoningEffort: undefined,
        reasoningBudget: undefined,
        outputSchema: undefined,
        metadata: undefined,
      },
    ],
    // system and developer messages
    ['a leading system message as the system prompt', body({ messages: [{ role: 'system', content: 'Be brief.' }, USER_HI] }), { system: [text('Be brief.')], messages: [userHi] }],
    ['a leading developer message as the system prompt', body({ messages: [{ role: 'developer', content: 'Be brief.' }, USER_HI] }), { system: [text('Be brief.')], messages: [userHi] }],
    [
      'several leading system and developer messages, in order',
      body({ messages: [{ role: 'system', content: 'A' }, { role: 'developer', content: [text('B'), text('C')] }, USER_HI] }),
      { system: [text('A'), text('B'), text('C')], messages: [userHi] },
    ],
    [
      'a later system message kept in place',
      body({ messages: [USER_HI, { role: 'system', content: 'Now in French.' }] }),
      { system: [], messages: [userHi, { role: 'system', content: [text('Now in French.')] }] },
    ],
    ['a system message whose text part is a refusal part', body({ messages: [{ role: 'system', content: [{ type: 'refusal', refusal: 'No.' }] }, USER_HI] }), { system: [text('No.')] }],
    // user content
    [
      'user text and image parts (image_url object and string)',
      body({
        messages: [
          {
            role: 'user',
            content: [
              text('What is this?'),
              { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
              { type: 'image_url', image_url: 'data:image/png;base64,AAAA' },
            ],
          },
        ],
      }),
      {
        messages: [
          {
            role: 'user',
            content: [text('What is this?'), { type: 'image', url: 'https://example.com/cat.png' }, { type: 'image', url: 'data:image/png;base64,AAAA' }],
          },
        ],
      },
    ],
    ['an empty user string', body({ messages: [{ role: 'user', content: '' }] }), { messages: [{ role: 'user', content: [text('')] }] }],
    ['an empty list of user parts', body({ messages: [{ role: 'user', content: [] }] }), { messages: [{ role: 'user', content: [] }] }],
    // assistant turns
    [
      'an assistant turn with reasoning_content, text and tool calls, in that order',
      body({
        messages: [
          USER_HI,
          {
            role: 'assistant',
            reasoning_content: 'Think first.',
            content: 'Checking.',
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
              { id: 'call_2', type: 'function', function: { name: 'get_time' } },
            ],
          },
        ],
      }),
      {
        messages: [
          userHi,
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'Think first.' },
              text('Checking.'),
              { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
              { type: 'tool-call', id: 'call_2', name: 'get_time', arguments: '{}' },
            ],
          },
        ],
      },
    ],
    [
      'an assistant turn with null content and only tool calls',
      body({ messages: [USER_HI, { role: 'assistant', content: null, tool_calls: [{ id: 'c', function: { name: 'f', arguments: '{}' } }] }] }),
      { messages: [userHi, { role: 'assistant', content: [{ type: 'tool-call', id: 'c', name: 'f', arguments: '{}' }] }] },
    ],
    ['an assistant turn with no content at all', body({ messages: [USER_HI, { role: 'assistant' }] }), { messages: [userHi, { role: 'assistant', content: [] }] }],
    ['an empty reasoning_content, which adds no part', body({ messages: [USER_HI, { role: 'assistant', reasoning_content: '', content: 'ok' }] }), { messages: [userHi, { role: 'assistant', content: [text('ok')] }] }],
    [
      'an assistant refusal part as text',
      body({ messages: [USER_HI, { role: 'assistant', content: [{ type: 'refusal', refusal: 'I cannot.' }] }] }),
      { messages: [userHi, { role: 'assistant', content: [text('I cannot.')] }] },
    ],
    ['null tool_calls', body({ messages: [USER_HI, { role: 'assistant', content: 'ok', tool_calls: null }] }), { messages: [userHi, { role: 'assistant', content: [text('ok')] }] }],
    // tool results
    [
      'a tool message as a tool result',
      body({ messages: [USER_HI, { role: 'tool', tool_call_id: 'call_1', content: '12°C' }] }),
      { messages: [userHi, { role: 'tool', content: [{ type: 'tool-result', callId: 'call_1', content: [text('12°C')] }] }] },
    ],
    [
      'a tool message with text and image parts',
      body({ messages: [{ role: 'tool', tool_call_id: 'call_1', content: [text('see'), { type: 'image_url', image_url: { url: 'https://x/y.png' } }] }] }),
      { messages: [{ role: 'tool', content: [{ type: 'tool-result', callId: 'call_1', content: [text('see'), { type: 'image', url: 'https://x/y.png' }] }] }] },
    ],
    [
      'a legacy function message, its name as the call id',
      body({ messages: [{ role: 'function', name: 'get_time', content: '12:00' }] }),
      { messages: [{ role: 'tool', content: [{ type: 'tool-result', callId: 'get_time', content: [text('12:00')] }] }] },
    ],
    // tools
    [
      'function tools with and without parameters and description',
      body({
        tools: [
          { type: 'function', function: { name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
          { type: 'function', function: { name: 'ping' } },
        ],
      }),
      {
        tools: [
          { name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
          { name: 'ping', parameters: { type: 'object', properties: {} } },
        ],
      },
    ],
    ['null tools', body({ tools: null }), { tools: [] }],
    [
      'legacy functions after tools',
      body({ tools: [{ type: 'function', function: { name: 'a' } }], functions: [{ name: 'b', parameters: { type: 'object' } }] }),
      { tools: [{ name: 'a', parameters: { type: 'object', properties: {} } }, { name: 'b', parameters: { type: 'object' } }] },
    ],
    // tool choice and parallel calls
    ["tool_choice 'auto'", body({ tool_choice: 'auto' }), { toolChoice: 'auto' }],
    ["tool_choice 'none'", body({ tool_choice: 'none' }), { toolChoice: 'none' }],
    ["tool_choice 'required'", body({ tool_choice: 'required' }), { toolChoice: 'required' }],
    ['tool_choice naming a function', body({ tool_choice: { type: 'function', function: { name: 'get_weather' } } }), { toolChoice: { name: 'get_weather' } }],
    ['null tool_choice', body({ tool_choice: null }), { toolChoice: undefined }],
    ['parallel_tool_calls false', body({ parallel_tool_calls: false }), { parallelToolCalls: false }],
    ['parallel_tool_calls true', body({ parallel_tool_calls: true }), { parallelToolCalls: true }],
    // sampling and limits
    ['max_completion_tokens', body({ max_completion_tokens: 512 }), { maxOutputTokens: 512 }],
    ['max_tokens', body({ max_tokens: 256 }), { maxOutputTokens: 256 }],
    ['max_completion_tokens over max_tokens', body({ max_completion_tokens: 512, max_tokens: 256 }), { maxOutputTokens: 512 }],
    ['temperature 0', body({ temperature: 0 }), { temperature: 0 }],
    ['temperature 2, the maximum', body({ temperature: 2 }), { temperature: 2 }],
    ['top_p 1', body({ top_p: 1 }), { topP: 1 }],
    ['top_p 0.5', body({ top_p: 0.5 }), { topP: 0.5 }],
    ['stop as one string', body({ stop: 'END' }), { stop: ['END'] }],
    ['stop as a list', body({ stop: ['END', '###'] }), { stop: ['END', '###'] }],
    ['null stop', body({ stop: null }), { stop: undefined }],
    // reasoning effort
    ["reasoning_effort 'minimal'", body({ reasoning_effort: 'minimal' }), { reasoningEffort: 'minimal' }],
    ["reasoning_effort 'low'", body({ reasoning_effort: 'low' }), { reasoningEffort: 'low' }],
    ["reasoning_effort 'medium'", body({ reasoning_effort: 'medium' }), { reasoningEffort: 'medium' }],
    ["reasoning_effort 'high'", body({ reasoning_effort: 'high' }), { reasoningEffort: 'high' }],
    ["reasoning_effort 'xhigh', kept for the backend to map", body({ reasoning_effort: 'xhigh' }), { reasoningEffort: 'xhigh' }],
    ["reasoning_effort 'none', kept: no reasoning asked", body({ reasoning_effort: 'none' }), { reasoningEffort: 'none' }],
    // structured output
    [
      'response_format json_schema with name and strict',
      body({ response_format: { type: 'json_schema', json_schema: { name: 'answer', strict: true, schema: { type: 'object' } } } }),
      { outputSchema: { name: 'answer', schema: { type: 'object' }, strict: true } },
    ],
    [
      "response_format json_schema without a name, named 'output'",
      body({ response_format: { type: 'json_schema', json_schema: { schema: { type: 'object' } } } }),
      { outputSchema: { name: 'output', schema: { type: 'object' } } },
    ],
    ['response_format text, as no schema', body({ response_format: { type: 'text' } }), { outputSchema: undefined }],
    // metadata and n
    ['metadata', body({ metadata: { session: 's1', team: 'core' } }), { metadata: { session: 's1', team: 'core' } }],
    ['n 1', body({ n: 1 }), { messages: [userHi] }],
    // the prompt cache, for every upstream that takes it
    ['prompt_cache_key and a 24h retention', body({ prompt_cache_key: 'session-1', prompt_cache_retention: '24h' }), { promptCacheKey: 'session-1', promptCacheRetention: '24h' }],
    ['in_memory retention', body({ prompt_cache_retention: 'in_memory' }), { promptCacheRetention: 'in_memory' }],
    [
      'a retention this router does not know: kept for a Chat upstream, named elsewhere',
      body({ prompt_cache_retention: 'forever' }),
      { promptCacheRetention: undefined, sameFormatOnly: [{ param: 'prompt_cache_retention', message: "'forever' is passed only to an upstream of the client's own format; this route caches as its upstream does by default.", refuse: false }] },
    ],
  ])('%s', (_label, input, want) => {
    const { request } = decodeChatRequest(input);
    expect(pick(request, want)).toEqual(want);
  });

  it.each<[string, Record<string, unknown>, boolean, boolean]>([
    ['no stream fields', body(), false, false],
    ['stream true', body({ stream: true }), true, false],
    ['stream with include_usage', body({ stream: true, stream_options: { include_usage: true } }), true, true],
    ['null stream_options', body({ stream: true, stream_options: null }), true, false],
  ])('stream options: %s', (_label, input, stream, includeUsage) => {
    const decoded = decodeChatRequest(input);
    expect({ stream: decoded.stream, includeUsage: decoded.options.includeUsage }).toEqual({ stream, includeUsage });
  });

  it('keeps the client body itself as the chat forward body, unknown fields included', () => {
    const input = body({ seed: 7, logit_bias: { '42': 1 } });
    expect(decodeChatRequest(input).request.forwardBody).toEqual({ format: 'chat', body: input });
    expect(decodeChatRequest(input).request.forwardBody?.body).toBe(input);
  });
});

describe('decodeChatRequest: invalid bodies are a 400 naming the field', () => {
  const notHere = (path: string, type: string): InvalidCase => ({ param: `${path}.type`, message: `${path}.type: content part type '${type}' is not supported here.` });
  const badToolChoice: InvalidCase = { param: 'tool_choice', message: "tool_choice: expected 'auto', 'none', 'required' or {type: 'function', function: {name}}." };

  it.each<[string, unknown, InvalidCase]>([
    // body, model, messages, n
    ['a body that is not an object', [], expected('body', 'an object')],
    ['a null body', null, expected('body', 'an object')],
    ['no model', { messages: [USER_HI] }, required('model')],
    ['a model that is not a string', body({ model: 42 }), expected('model', 'a string')],
    ['no messages', { model: MODEL }, required('messages')],
    ['null messages', body({ messages: null }), required('messages')],
    ['messages that are not an array', body({ messages: USER_HI }), expected('messages', 'an array')],
    ['no message at all', body({ messages: [] }), { param: 'messages', message: 'messages: must contain at least one message.' }],
    ['n 2', body({ n: 2 }), { param: 'n', message: 'n: only 1 choice per request is supported.' }],
    ['n 0', body({ n: 0 }), atLeast('n', 1)],
    ['n not an integer', body({ n: 1.5 }), expected('n', 'an integer')],
    // messages
    ['a message that is not an object', body({ messages: [USER_HI, 'hi'] }), expected('messages[1]', 'an object')],
    ['a message with no role', body({ messages: [{ content: 'hi' }] }), required('messages[0].role')],
    ['a role that is not a string', body({ messages: [{ role: 1, content: 'hi' }] }), expected('messages[0].role', 'a string')],
    ['an unknown role', body({ messages: [{ role: 'bot', content: 'hi' }] }), { param: 'messages[0].role', message: 'messages[0].role: expected one of system, developer, user, assistant, tool.' }],
    ['a user message with no content', body({ messages: [{ role: 'user' }] }), required('messages[0].content')],
    ['a system message with null content', body({ messages: [{ role: 'system', content: null }, USER_HI] }), required('messages[0].content')],
    ['content that is a number', body({ messages: [{ role: 'user', content: 3 }] }), expected('messages[0].content', 'a string or an array of content parts')],
    ['content that is an object', body({ messages: [{ role: 'user', content: text('hi') }] }), expected('messages[0].content', 'a string or an array of content parts')],
    ['a part that is not an object', body({ messages: [{ role: 'user', content: ['hi'] }] }), expected('messages[0].content[0]', 'an object')],
    ['a part with no type', body({ messages: [{ role: 'user', content: [{ text: 'hi' }] }] }), required('messages[0].content[0].type')],
    ['a text part with no text', body({ messages: [{ role: 'user', content: [text('a'), { type: 'text' }] }] }), required('messages[0].content[1].text')],
    ['a text part whose text is a number', body({ messages: [{ role: 'user', content: [{ type: 'text', text: 1 }] }] }), expected('messages[0].content[0].text', 'a string')],
    ['a refusal part with no refusal', body({ messages: [USER_HI, { role: 'assistant', content: [{ type: 'refusal' }] }] }), required('messages[1].content[0].refusal')],
    ['an image_url part with no url', body({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] }), required('messages[0].content[0].image_url.url')],
    ['an image_url part with no image_url', body({ messages: [{ role: 'user', content: [{ type: 'image_url' }] }] }), expected('messages[0].content[0].image_url', 'an object')],
    ['an image_url that is a number', body({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: 5 }] }] }), expected('messages[0].content[0].image_url', 'an object')],
    ['an image in a system message', body({ messages: [{ role: 'system', content: [{ type: 'image_url', image_url: 'https://x/y.png' }] }, USER_HI] }), notHere('messages[0].content[0]', 'image_url')],
    ['an image in an assistant message', body({ messages: [USER_HI, { role: 'assistant', content: [{ type: 'image_url', image_url: 'https://x/y.png' }] }] }), notHere('messages[1].content[0]', 'image_url')],
    ['an image in a function message', body({ messages: [{ role: 'function', name: 'f', content: [{ type: 'image_url', image_url: 'https://x/y.png' }] }] }), notHere('messages[0].content[0]', 'image_url')],
    ['an input_audio part', body({ messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }] }), notHere('messages[0].content[0]', 'input_audio')],
    [
      'a file part with neither file_data nor file_id',
      body({ messages: [{ role: 'user', content: [{ type: 'file', file: { filename: 'a.pdf' } }] }] }),
      { param: 'messages[0].content[0].file', message: 'messages[0].content[0].file: a file part needs file_data or file_id.' },
    ],
    [
      'a file part in a tool message',
      body({ messages: [{ role: 'tool', tool_call_id: 'c', content: [{ type: 'file', file: { file_id: 'file_1' } }] }] }),
      { param: 'messages[0].content[0]', message: 'messages[0].content[0]: a tool message cannot carry a file; put it in a user message.' },
    ],
    // tool and function messages
    ['a tool message with no tool_call_id', body({ messages: [{ role: 'tool', content: 'x' }] }), required('messages[0].tool_call_id')],
    ['a tool message with no content', body({ messages: [{ role: 'tool', tool_call_id: 'c' }] }), required('messages[0].content')],
    ['a function message with no name', body({ messages: [{ role: 'function', content: 'x' }] }), required('messages[0].name')],
    // assistant fields
    ['reasoning_content that is not a string', body({ messages: [USER_HI, { role: 'assistant', reasoning_content: ['x'], content: 'ok' }] }), expected('messages[1].reasoning_content', 'a string')],
    ['tool_calls that are not an array', body({ messages: [USER_HI, { role: 'assistant', tool_calls: { id: 'c' } }] }), expected('messages[1].tool_calls', 'an array')],
    ['a tool call that is not an object', body({ messages: [USER_HI, { role: 'assistant', tool_calls: ['c'] }] }), expected('messages[1].tool_calls[0]', 'an object')],
    ['a tool call with no function', body({ messages: [USER_HI, { role: 'assistant', tool_calls: [{ id: 'c' }] }] }), expected('messages[1].tool_calls[0].function', 'an object')],
    ['a tool call with no id', body({ messages: [USER_HI, { role: 'assistant', tool_calls: [{ function: { name: 'f' } }] }] }), required('messages[1].tool_calls[0].id')],
    ['a tool call with no function name', body({ messages: [USER_HI, { role: 'assistant', tool_calls: [{ id: 'c', function: {} }] }] }), required('messages[1].tool_calls[0].function.name')],
    [
      'tool call arguments that are an object',
      body({ messages: [USER_HI, { role: 'assistant', tool_calls: [{ id: 'c', function: { name: 'f', arguments: { a: 1 } } }] }] }),
      expected('messages[1].tool_calls[0].function.arguments', 'a string'),
    ],
    // tools
    ['tools that are not an array', body({ tools: { type: 'function' } }), expected('tools', 'an array')],
    ['a tool that is not an object', body({ tools: ['get_weather'] }), expected('tools[0]', 'an object')],
    ['a function tool with no function', body({ tools: [{ type: 'function' }] }), expected('tools[0].function', 'an object')],
    ['a function tool with no name', body({ tools: [{ type: 'function', function: { parameters: {} } }] }), required('tools[0].function.name')],
    ['function parameters that are not an object', body({ tools: [{ type: 'function', function: { name: 'f', parameters: 'x' } }] }), expected('tools[0].function.parameters', 'an object')],
    ['a function description that is not a string', body({ tools: [{ type: 'function', function: { name: 'f', description: 1 } }] }), expected('tools[0].function.description', 'a string')],
    ['functions that are not an array', body({ functions: { name: 'f' } }), expected('functions', 'an array')],
    ['a legacy function with no name', body({ functions: [{ parameters: {} }] }), required('functions[0].name')],
    // tool choice and the rest
    ["tool_choice 'any'", body({ tool_choice: 'any' }), badToolChoice],
    ['tool_choice with no function', body({ tool_choice: { type: 'function' } }), badToolChoice],
    ['tool_choice whose function has no name', body({ tool_choice: { type: 'function', function: {} } }), badToolChoice],
    ['tool_choice that is a number', body({ tool_choice: 1 }), badToolChoice],
    ['tool_choice that is an array', body({ tool_choice: ['auto'] }), badToolChoice],
    ['parallel_tool_calls that is a string', body({ parallel_tool_calls: 'yes' }), expected('parallel_tool_calls', 'a boolean')],
    ['max_completion_tokens 0', body({ max_completion_tokens: 0 }), atLeast('max_completion_tokens', 1)],
    ['max_completion_tokens that is a string', body({ max_completion_tokens: '100' }), expected('max_completion_tokens', 'an integer')],
    ['max_tokens that is a fraction', body({ max_tokens: 10.5 }), expected('max_tokens', 'an integer')],
    ['temperature over 2', body({ temperature: 2.5 }), atMost('temperature', 2)],
    ['temperature under 0', body({ temperature: -0.1 }), atLeast('temperature', 0)],
    ['temperature that is a string', body({ temperature: '0.7' }), expected('temperature', 'a number')],
    ['top_p over 1', body({ top_p: 1.2 }), atMost('top_p', 1)],
    ['top_p under 0', body({ top_p: -1 }), atLeast('top_p', 0)],
    ['stop holding a number', body({ stop: ['a', 1] }), expected('stop', 'a string or an array of strings')],
    ['an unknown reasoning_effort', body({ reasoning_effort: 'extreme' }), { param: 'reasoning_effort', message: 'reasoning_effort: expected one of none, minimal, low, medium, high, xhigh, max.' }],
    ['reasoning_effort that is a number', body({ reasoning_effort: 3 }), expected('reasoning_effort', 'a string')],
    ['metadata that is an array', body({ metadata: ['a'] }), expected('metadata', 'an object')],
    ['stream that is a string', body({ stream: 'true' }), expected('stream', 'a boolean')],
    ['stream_options that is a string', body({ stream_options: 'usage' }), expected('stream_options', 'an object')],
    ['include_usage that is a string', body({ stream_options: { include_usage: 'yes' } }), expected('stream_options.include_usage', 'a boolean')],
  ])('%s', (_label, input, error) => {
    expectInvalid(() => decodeChatRequest(input), error);
  });
});

describe('decodeChatRequest: every part is carried, kept for a same-format upstream, or refused', () => {
  it("a tool of type 'custom' is kept for a Chat upstream and refused elsewhere", () => {
    const request = decodeChatRequest(body({ tools: [{ type: 'custom', custom: { name: 'apply_patch' } }] })).request;
    expect(request.tools).toEqual([]);
    expect(request.sameFormatOnly).toEqual([
      { param: 'tools[0]', message: "tools of type 'custom' can be passed only to an OpenAI Chat upstream, and this model routes elsewhere; declare it as a function tool.", refuse: true },
    ]);
  });

  it("response_format {type: 'json_object'} is JSON mode", () => {
    const request = decodeChatRequest(body({ response_format: { type: 'json_object' } })).request;
    expect(request.jsonObject).toBe(true);
    expect(request.outputSchema).toBeUndefined();
  });

  it.each(['low', 'high', 'auto'] as const)("image_url.detail '%s' is carried on the image part", (detail) => {
    const messages = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://e.x/a.png', detail } }] }];
    expect(decodeChatRequest(body({ messages })).request.messages[0]!.content).toEqual([{ type: 'image', url: 'https://e.x/a.png', detail }]);
  });

  it('an unknown image_url.detail is a 400', () => {
    const messages = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://e.x/a.png', detail: 'huge' } }] }];
    expectInvalid(() => decodeChatRequest(body({ messages })), { param: 'messages[0].content[0].image_url.detail', message: 'messages[0].content[0].image_url.detail: expected one of low, high, auto, original.' });
  });

  it("an assistant message's refusal is replayed as its text", () => {
    const messages = [USER_HI, { role: 'assistant', content: null, refusal: 'I cannot help with that.' }, USER_HI];
    expect(decodeChatRequest(body({ messages })).request.messages[1]).toEqual({ role: 'assistant', content: [text('I cannot help with that.')] });
  });

  it('the top-level user is carried as metadata.user_id', () => {
    expect(decodeChatRequest(body({ user: 'u-42', metadata: { team: 'a' } })).request.metadata).toEqual({ team: 'a', user_id: 'u-42' });
  });

  it('seed and the penalties are modelled; logit_bias and logprobs are kept for a Chat upstream and warned of elsewhere', () => {
    const request = decodeChatRequest(body({ seed: 7, frequency_penalty: 0.5, presence_penalty: -0.5, logit_bias: { '50256': -100 }, logprobs: true, top_logprobs: 2 })).request;
    expect(pick(request, { seed: 7, frequencyPenalty: 0.5, presencePenalty: -0.5 })).toEqual({ seed: 7, frequencyPenalty: 0.5, presencePenalty: -0.5 });
    expect(request.sameFormatOnly).toEqual([
      { param: 'logit_bias', message: 'not sent: token ids are OpenAI-specific, and this model routes elsewhere.', refuse: false },
      { param: 'logprobs', message: 'not returned: only an OpenAI Chat upstream gives log probabilities, and this model routes elsewhere.', refuse: false },
    ]);
  });

  it('a penalty out of range is a 400', () => {
    expectInvalid(() => decodeChatRequest(body({ presence_penalty: 3 })), atMost('presence_penalty', 2));
  });
});
