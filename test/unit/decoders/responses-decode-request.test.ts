import { describe, expect, it } from 'vitest';
import type { CanonicalRequest, ReasoningPart } from '../../../src/core/request.js';
import { decodeResponsesRequest, type ResponsesOptions } from '../../../src/formats/responses/decode-request.js';
import { sealReasoning } from '../../../src/formats/responses/seal-reasoning.js';
import { atLeast, atMost, expected, expectInvalid, type InvalidCase, pick, required, text, userHi } from './support.js';

const MODEL = 'svc.intelligent-pro';
const CONTEXT = { secret: 'unit-test-secret-0123456789abcdef' };
const body = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({ model: MODEL, input: 'hi', ...fields });
const items = (...input: unknown[]) => body({ input });
const HI_ITEM = { role: 'user', content: 'hi' };
const decode = (input: unknown) => decodeResponsesRequest(input, CONTEXT);

const anthropicThinking: ReasoningPart = { type: 'reasoning', text: 'Let me think.', providerMetadata: { anthropic: { signature: 'sig-abc' } } };
const openaiReasoning: ReasoningPart = { type: 'reasoning', text: 'Summary.', providerMetadata: { openai: { encryptedContent: 'gAAAA-upstream' } } };
const sealedAnthropic = sealReasoning(anthropicThinking, CONTEXT.secret);
const sealedOpenai = sealReasoning(openaiReasoning, CONTEXT.secret);

const CUSTOM_DESCRIPTION = 'Free-form tool: put the whole raw input in the "input" string, not JSON-encoded.';
const CUSTOM_PARAMETERS = { type: 'object', properties: { input: { type: 'string', description: 'The raw input for the tool.' } }, required: ['input'] };
const EMPTY_PARAMETERS = { type: 'object', properties: {} };


describe('decodeResponsesRequest: valid bodies', () => {
  it.each<[string, Record<string, unknown>, Partial<CanonicalRequest>]>([
    [
      'a string input',
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
    ['instructions as the system prompt', body({ instructions: 'Be brief.' }), { system: [text('Be brief.')], messages: [userHi] }],
    ['empty instructions, as no system prompt', body({ instructions: '' }), { system: [] }],
    ['null instructions', body({ instructions: null }), { system: [] }],
    // message items
    ['a message item with no type', items(HI_ITEM), { messages: [userHi] }],
    ["a message item with type 'message'", items({ type: 'message', role: 'user', content: 'hi' }), { messages: [userHi] }],
    [
      'input_text, output_text, text and refusal parts as text',
      items(
        { role: 'user', content: [{ type: 'input_text', text: 'a' }, { type: 'text', text: 'b' }] },
        { role: 'assistant', content: [{ type: 'output_text', text: 'c' }, { type: 'refusal', refusal: 'd' }] },
      ),
      { messages: [{ role: 'user', content: [text('a'), text('b')] }, { role: 'assistant', content: [text('c'), text('d')] }] },
    ],
    [
      'an input_image with a URL',
      items({ role: 'user', content: [{ type: 'input_text', text: 'What is this?' }, { type: 'input_image', image_url: 'https://example.com/cat.png' }] }),
      { messages: [{ role: 'user', content: [text('What is this?'), { type: 'image', url: 'https://example.com/cat.png' }] }] },
    ],
    ['an empty list of parts', items({ role: 'user', content: [] }), { messages: [{ role: 'user', content: [] }] }],
    ['an empty input list', items(), { messages: [] }],
    [
      'leading developer and system items after the instructions',
      body({ instructions: 'A', input: [{ role: 'developer', content: 'B' }, { role: 'system', content: [{ type: 'input_text', text: 'C' }] }, HI_ITEM] }),
      { system: [text('A'), text('B'), text('C')], messages: [userHi] },
    ],
    [
      'a later developer item kept in place',
      items(HI_ITEM, { role: 'developer', content: 'Now in French.' }),
      { system: [], messages: [userHi, { role: 'system', content: [text('Now in French.')] }] },
    ],
    [
      'consecutive items of one role joined into one message',
      items(HI_ITEM, { role: 'user', content: 'again' }),
      { messages: [{ role: 'user', content: [text('hi'), text('again')] }] },
    ],
    [
      'consecutive later system items kept apart',
      items(HI_ITEM, { role: 'system', content: 'A' }, { role: 'system', content: 'B' }),
      { messages: [userHi, { role: 'system', content: [text('A')] }, { role: 'system', content: [text('B')] }] },
    ],
    // tool calls
    [
      'an assistant turn: summary reasoning, text and a function call as one message',
      items(
        HI_ITEM,
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Step one.' }, { type: 'summary_text', text: 'Step two.' }] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      ),
      {
        messages: [
          userHi,
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'Step one.\nStep two.' },
              text('Checking.'),
              { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
            ],
          },
        ],
      },
    ],
    [
      'a function call with a namespace and no arguments',
      items({ type: 'function_call', call_id: 'c', name: 'read', namespace: 'fs' }),
      { messages: [{ role: 'assistant', content: [{ type: 'tool-call', id: 'c', name: 'fs__read', arguments: '{}' }] }] },
    ],
    [
      'a custom tool call, its raw input wrapped as {"input"}',
      items({ type: 'custom_tool_call', call_id: 'c', name: 'apply_patch', input: '*** Begin Patch' }),
      { messages: [{ role: 'assistant', content: [{ type: 'tool-call', id: 'c', name: 'apply_patch', arguments: '{"input":"*** Begin Patch"}' }] }] },
    ],
    [
      'a custom tool call with a namespace and no input',
      items({ type: 'custom_tool_call', call_id: 'c', name: 'run', namespace: 'ns' }),
      { messages: [{ role: 'assistant', content: [{ type: 'tool-call', id: 'c', name: 'ns__run', arguments: '{"input":""}' }] }] },
    ],
    [
      'a local shell call, its action as the arguments',
      items({ type: 'local_shell_call', call_id: 'c', action: { type: 'exec', command: ['ls'] } }),
      { messages: [{ role: 'assistant', content: [{ type: 'tool-call', id: 'c', name: 'local_shell', arguments: '{"type":"exec","command":["ls"]}' }] }] },
    ],
    [
      'a local shell call with only an id and no action',
      items({ type: 'local_shell_call', id: 'ls_1' }),
      { messages: [{ role: 'assistant', content: [{ type: 'tool-call', id: 'ls_1', name: 'local_shell', arguments: '{}' }] }] },
    ],
    // tool outputs
    [
      'a function call output as a string',
      items({ type: 'function_call_output', call_id: 'call_1', output: '12°C' }),
      { messages: [{ role: 'tool', content: [{ type: 'tool-result', callId: 'call_1', content: [text('12°C')] }] }] },
    ],
    [
      'a function call output as text and image parts',
      items({ type: 'function_call_output', call_id: 'c', output: [{ type: 'input_text', text: 'see' }, { type: 'input_image', image_url: 'https://x/y.png' }] }),
      { messages: [{ role: 'tool', content: [{ type: 'tool-result', callId: 'c', content: [text('see'), { type: 'image', url: 'https://x/y.png' }] }] }] },
    ],
    [
      'a function call output with no output',
      items({ type: 'function_call_output', call_id: 'c' }),
      { messages: [{ role: 'tool', content: [{ type: 'tool-result', callId: 'c', content: [] }] }] },
    ],
    [
      'custom and local shell outputs (id as the fallback call id), joined into one tool message',
      items({ type: 'custom_tool_call_output', call_id: 'c1', output: 'done' }, { type: 'local_shell_call_output', id: 'ls_1', output: 'file.txt' }),
      {
        messages: [
          {
            role: 'tool',
            content: [
              { type: 'tool-result', callId: 'c1', content: [text('done')] },
              { type: 'tool-result', callId: 'ls_1', content: [text('file.txt')] },
            ],
          },
        ],
      },
    ],
    // reasoning items
    [
      "a reasoning item with another upstream's encrypted content",
      items({ type: 'reasoning', summary: [], encrypted_content: 'gAAAA-foreign' }),
      { messages: [{ role: 'assistant', content: [{ type: 'reasoning', text: '', providerMetadata: { openai: { encryptedContent: 'gAAAA-foreign' } } }] }] },
    ],
    [
      'a reasoning item this router sealed (Anthropic thinking), opened with its signature',
      items({ type: 'reasoning', summary: [], encrypted_content: sealedAnthropic }),
      { messages: [{ role: 'assistant', content: [anthropicThinking] }] },
    ],
    [
      'a reasoning item this router sealed (OpenAI reasoning), opened with its encrypted data',
      items({ type: 'reasoning', summary: [], encrypted_content: sealedOpenai }),
      { messages: [{ role: 'assistant', content: [openaiReasoning] }] },
    ],
    ['a reasoning item with neither summary nor encrypted content, which adds nothing', items(HI_ITEM, { type: 'reasoning', summary: [] }), { messages: [userHi] }],
    // tools
    [
      'function tools, with and without parameters and description',
      body({
        tools: [
          { type: 'function', name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
          { name: 'ping' },
          { type: 'function', name: 'pong', parameters: null },
        ],
      }),
      {
        tools: [
          { name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
          { name: 'ping', parameters: EMPTY_PARAMETERS },
          { name: 'pong', parameters: EMPTY_PARAMETERS },
        ],
      },
    ],
    [
      'a custom tool as a function taking one string, with its grammar in the description',
      body({ tools: [{ type: 'custom', name: 'apply_patch', description: 'Edit files.', format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' } }] }),
      { tools: [{ name: 'apply_patch', description: `Edit files.\n\n${CUSTOM_DESCRIPTION}\n\nThe input must match this grammar:\nstart: "x"`, parameters: CUSTOM_PARAMETERS }] },
    ],
    [
      'a namespace of tools, flattened to namespace__name',
      body({ tools: [{ type: 'namespace', name: 'fs', tools: [{ type: 'function', name: 'read' }, { type: 'custom', name: 'write' }] }] }),
      { tools: [{ name: 'fs__read', parameters: EMPTY_PARAMETERS }, { name: 'fs__write', description: CUSTOM_DESCRIPTION, parameters: CUSTOM_PARAMETERS }] },
    ],
    ['built-in tools, left out of the canonical tools', body({ tools: [{ type: 'web_search' }, { type: 'function', name: 'f' }] }), { tools: [{ name: 'f', parameters: EMPTY_PARAMETERS }] }],
    // tool choice
    ["tool_choice 'auto'", body({ tool_choice: 'auto' }), { toolChoice: 'auto' }],
    ["tool_choice 'none'", body({ tool_choice: 'none' }), { toolChoice: 'none' }],
    ["tool_choice 'required'", body({ tool_choice: 'required' }), { toolChoice: 'required' }],
    ['tool_choice naming a function', body({ tool_choice: { type: 'function', name: 'get_weather' } }), { toolChoice: { name: 'get_weather' } }],
    ['tool_choice naming a namespaced custom tool', body({ tool_choice: { type: 'custom', name: 'write', namespace: 'fs' } }), { toolChoice: { name: 'fs__write' } }],
    ['tool_choice naming a built-in tool, as no choice (that tool is not sent when translating)', body({ tool_choice: { type: 'web_search_preview' } }), { toolChoice: undefined }],
    ['parallel_tool_calls false', body({ parallel_tool_calls: false }), { parallelToolCalls: false }],
    // limits, sampling, effort
    ['max_output_tokens', body({ max_output_tokens: 2048 }), { maxOutputTokens: 2048 }],
    ['temperature 2, the maximum', body({ temperature: 2 }), { temperature: 2 }],
    ['temperature 0', body({ temperature: 0 }), { temperature: 0 }],
    ['top_p 0.9', body({ top_p: 0.9 }), { topP: 0.9 }],
    ["reasoning.effort 'minimal'", body({ reasoning: { effort: 'minimal' } }), { reasoningEffort: 'minimal' }],
    ["reasoning.effort 'high'", body({ reasoning: { effort: 'high' } }), { reasoningEffort: 'high' }],
    ["reasoning.effort 'xhigh', kept for the backend to map", body({ reasoning: { effort: 'xhigh' } }), { reasoningEffort: 'xhigh' }],
    ["reasoning.effort 'none', kept: no reasoning asked", body({ reasoning: { effort: 'none' } }), { reasoningEffort: 'none' }],
    ['reasoning with a summary and no effort: summaries asked, the effort left to the model', body({ reasoning: { summary: 'auto' } }), { reasoningEffort: undefined, reasoningDisplay: 'summarized' }],
    ["reasoning.summary 'none', as none asked", body({ reasoning: { effort: 'low', summary: 'none' } }), { reasoningEffort: 'low', reasoningDisplay: undefined }],
    ['null reasoning', body({ reasoning: null }), { reasoningEffort: undefined }],
    // structured output
    [
      'text.format json_schema with name and strict',
      body({ text: { format: { type: 'json_schema', name: 'answer', strict: true, schema: { type: 'object' } } } }),
      { outputSchema: { name: 'answer', schema: { type: 'object' }, strict: true } },
    ],
    ["text.format json_schema without a name, named 'output'", body({ text: { format: { type: 'json_schema', schema: { type: 'object' } } } }), { outputSchema: { name: 'output', schema: { type: 'object' } } }],
    ['text.format text, as no schema', body({ text: { format: { type: 'text' } } }), { outputSchema: undefined }],
    // metadata
    ['metadata', body({ metadata: { session: 's1' } }), { metadata: { session: 's1' } }],
    ['user as metadata.user_id', body({ user: 'u-42' }), { metadata: { user_id: 'u-42' } }],
    ['metadata and user together', body({ metadata: { session: 's1' }, user: 'u-42' }), { metadata: { session: 's1', user_id: 'u-42' } }],
    ['empty metadata and no user, as no metadata', body({ metadata: {} }), { metadata: undefined }],
  ])('%s', (_label, input, want) => {
    expect(pick(decode(input).request, want)).toEqual(want);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['no tools', body(), []],
    // Web search is offered on every route (request.webSearch), so it is not dropped.
    ['built-in tools, listed by type', body({ tools: [{ type: 'web_search' }, { type: 'file_search' }, { type: 'function', name: 'f' }] }), ['file_search']],
    ['a namespace inside a namespace, listed as dropped', body({ tools: [{ type: 'namespace', name: 'a', tools: [{ type: 'namespace', name: 'b', tools: [] }] }] }), ['namespace']],
  ])('droppedTools: %s', (_label, input, dropped) => {
    expect(decode(input).droppedTools).toEqual(dropped);
  });

  it.each<[string, Record<string, unknown>, Partial<Omit<ResponsesOptions, 'toolsByName'>>]>([
    [
      'defaults',
      body(),
      {
        instructions: null,
        tools: [],
        toolChoice: 'auto',
        // Nothing is stored, so the echo claims store only when the client asked.
        store: false,
        previousResponseId: null,
        reasoning: { effort: null, summary: null },
        text: { format: { type: 'text' } },
        truncation: 'disabled',
        metadata: {},
        serviceTier: null,
        user: null,
        promptCacheKey: null,
        includeEncryptedReasoning: false,
      },
    ],
    [
      'every echoed field set',
      body({
        instructions: 'Be brief.',
        tools: [{ type: 'web_search' }],
        tool_choice: 'required',
        store: false,
        previous_response_id: 'resp_1',
        reasoning: { effort: 'xhigh', summary: 'detailed' },
        text: { format: { type: 'json_object' } },
        truncation: 'auto',
        metadata: { a: 'b' },
        service_tier: 'flex',
        user: 'u',
        prompt_cache_key: 'k',
        include: ['reasoning.encrypted_content'],
      }),
      {
        instructions: 'Be brief.',
        tools: [{ type: 'web_search' }],
        toolChoice: 'required',
        store: false,
        previousResponseId: 'resp_1',
        reasoning: { effort: 'xhigh', summary: 'detailed' },
        text: { format: { type: 'json_object' } },
        truncation: 'auto',
        metadata: { a: 'b' },
        serviceTier: 'flex',
        user: 'u',
        promptCacheKey: 'k',
        includeEncryptedReasoning: true,
      },
    ],
    ['include without encrypted reasoning', body({ include: ['message.output_text.logprobs'] }), { includeEncryptedReasoning: false }],
  ])('options: %s', (_label, input, want) => {
    const { options } = decode(input);
    expect(Object.fromEntries(Object.keys(want).map((key) => [key, options[key as keyof ResponsesOptions]]))).toEqual(want);
  });

  it.each<[string, Record<string, unknown>, Array<[string, { kind: 'function' | 'custom'; name: string; namespace?: string }]>]>([
    ['a function tool', body({ tools: [{ type: 'function', name: 'f' }] }), [['f', { kind: 'function', name: 'f' }]]],
    ['a custom tool', body({ tools: [{ type: 'custom', name: 'apply_patch' }] }), [['apply_patch', { kind: 'custom', name: 'apply_patch' }]]],
    [
      'a namespace',
      body({ tools: [{ type: 'namespace', name: 'fs', tools: [{ name: 'read' }, { type: 'custom', name: 'write' }] }] }),
      [
        ['fs__read', { kind: 'function', name: 'read', namespace: 'fs' }],
        ['fs__write', { kind: 'custom', name: 'write', namespace: 'fs' }],
      ],
    ],
  ])('toolsByName: %s', (_label, input, entries) => {
    expect([...decode(input).options.toolsByName]).toEqual(entries);
  });

  it.each<[string, Record<string, unknown>, boolean]>([
    ['no stream field', body(), false],
    ['stream true', body({ stream: true }), true],
    ['stream false', body({ stream: false }), false],
  ])('stream: %s', (_label, input, stream) => {
    expect(decode(input).stream).toBe(stream);
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['a string input, as it is', body({ seed: 1 }), body({ seed: 1 })],
    ['previous_response_id left out', body({ previous_response_id: 'resp_1', store: true }), body({ store: true })],
    [
      "sealed OpenAI reasoning opened back into the upstream's encrypted content",
      items({ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: sealedOpenai }, HI_ITEM),
      items({ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA-upstream' }, HI_ITEM),
    ],
    [
      'sealed Anthropic thinking sent as its summary, an assistant message',
      items(HI_ITEM, { type: 'reasoning', summary: [], encrypted_content: sealedAnthropic }),
      items(HI_ITEM, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Let me think.' }] }),
    ],
    [
      'foreign encrypted content and other items forwarded as they are',
      items({ type: 'reasoning', summary: [], encrypted_content: 'gAAAA-foreign' }, { type: 'web_search_call', id: 'ws_1', status: 'completed' }, HI_ITEM),
      items({ type: 'reasoning', summary: [], encrypted_content: 'gAAAA-foreign' }, { type: 'web_search_call', id: 'ws_1', status: 'completed' }, HI_ITEM),
    ],
  ])('forwardBody: %s', (_label, input, forwarded) => {
    const { foreignReasoning: _foreign, ...forwardBody } = decode(input).request.forwardBody!;
    expect(forwardBody).toEqual({ format: 'responses', body: forwarded });
  });

  it('notes where the forwarded body holds reasoning another provider made, for the encoder to name', () => {
    const sealedWithWriter = sealReasoning({ ...anthropicThinking, writer: 'claude-fable-5-1' }, CONTEXT.secret);
    const { request } = decode(items(HI_ITEM, { type: 'reasoning', summary: [], encrypted_content: sealedWithWriter }));
    expect(request.forwardBody?.foreignReasoning).toEqual([{ message: 1, block: 0, text: 'Let me think.', writer: 'claude-fable-5-1' }]);
    expect(decode(items(HI_ITEM)).request.forwardBody?.foreignReasoning).toBeUndefined();
  });
});

describe('decodeResponsesRequest: the prompt cache', () => {
  it('carries prompt_cache_key and prompt_cache_retention to the canonical request, for upstreams of other formats too', () => {
    const { request } = decode(body({ prompt_cache_key: 'thread-1', prompt_cache_retention: '24h' }));
    expect(request).toMatchObject({ promptCacheKey: 'thread-1', promptCacheRetention: '24h' });
    expect(decode(body()).request).not.toHaveProperty('promptCacheKey');
  });
});

describe('decodeResponsesRequest: invalid bodies are a 400 naming the field', () => {
  const tampered = `${sealedAnthropic.slice(0, -4)}AAAA`;
  const badRole: InvalidCase = { param: 'input[0].role', message: 'input[0].role: expected one of user, assistant, system, developer.' };

  it.each<[string, unknown, InvalidCase]>([
    ['a body that is not an object', 'hi', expected('body', 'an object')],
    ['no model', { input: 'hi' }, required('model')],
    ['a model that is not a string', body({ model: ['svc'] }), expected('model', 'a string')],
    ['no input', { model: MODEL }, required('input')],
    ['null input', body({ input: null }), required('input')],
    ['input that is a number', body({ input: 1 }), expected('input', 'an array')],
    ['input that is an object', body({ input: HI_ITEM }), expected('input', 'an array')],
    ['instructions that are not a string', body({ instructions: ['a'] }), expected('instructions', 'a string')],
    // items
    ['an item that is not an object', items(HI_ITEM, 'hi'), expected('input[1]', 'an object')],
    ['an item type that is not a string', items({ type: 1 }), expected('input[0].type', 'a string')],
    ['a message with no role', items({ type: 'message', content: 'hi' }), required('input[0].role')],
    ["a message with role 'tool'", items({ role: 'tool', content: 'hi' }), badRole],
    ['a message with no content', items({ role: 'user' }), required('input[0].content')],
    ['a system message with no content', items({ role: 'developer' }), required('input[0].content')],
    ['content that is a number', items({ role: 'user', content: 2 }), expected('input[0].content', 'a string or an array of content parts')],
    ['a part that is not an object', items({ role: 'user', content: ['hi'] }), expected('input[0].content[0]', 'an object')],
    ['a part with no type', items({ role: 'user', content: [{ text: 'hi' }] }), required('input[0].content[0].type')],
    ['an input_text part with no text', items({ role: 'user', content: [{ type: 'input_text', text: 'a' }, { type: 'input_text' }] }), required('input[0].content[1].text')],
    ['an output_text part whose text is a number', items({ role: 'assistant', content: [{ type: 'output_text', text: 1 }] }), expected('input[0].content[0].text', 'a string')],
    ['a refusal part with no refusal', items({ role: 'assistant', content: [{ type: 'refusal' }] }), required('input[0].content[0].refusal')],
    ['an input_image URL that is an object', items({ role: 'user', content: [{ type: 'input_image', image_url: { url: 'x' } }] }), expected('input[0].content[0].image_url', 'a string')],
    ['an input_file filename that is a number', items({ role: 'user', content: [{ type: 'input_file', filename: 1 }] }), expected('input[0].content[0].filename', 'a string')],
    // calls and outputs
    ['a function call with no name', items({ type: 'function_call', call_id: 'c' }), required('input[0].name')],
    ['a function call with no call_id', items({ type: 'function_call', name: 'f' }), required('input[0].call_id')],
    ['function call arguments that are an object', items({ type: 'function_call', call_id: 'c', name: 'f', arguments: {} }), expected('input[0].arguments', 'a string')],
    ['a function call namespace that is a number', items({ type: 'function_call', call_id: 'c', name: 'f', namespace: 1 }), expected('input[0].namespace', 'a string')],
    ['a custom tool call with no name', items({ type: 'custom_tool_call', call_id: 'c' }), required('input[0].name')],
    ['a custom tool call with no call_id', items({ type: 'custom_tool_call', name: 'f' }), required('input[0].call_id')],
    ['a custom tool call input that is an object', items({ type: 'custom_tool_call', call_id: 'c', name: 'f', input: {} }), expected('input[0].input', 'a string')],
    ['a local shell call with neither call_id nor id', items({ type: 'local_shell_call', action: {} }), required('input[0].id')],
    ['a local shell call_id that is a number', items({ type: 'local_shell_call', call_id: 1 }), expected('input[0].call_id', 'a string')],
    ['a function call output with neither call_id nor id', items({ type: 'function_call_output', output: 'x' }), required('input[0].id')],
    ['a custom tool output with neither call_id nor id', items({ type: 'custom_tool_call_output', output: 'x' }), required('input[0].id')],
    ['an output that is a number', items({ type: 'function_call_output', call_id: 'c', output: 5 }), expected('input[0].output', 'a string or an array of content parts')],
    ['an output part with no type', items({ type: 'function_call_output', call_id: 'c', output: [{ text: 'x' }] }), required('input[0].output[0].type')],
    [
      'a sealed reasoning item that was altered',
      items(HI_ITEM, { type: 'reasoning', summary: [], encrypted_content: tampered }),
      {
        param: 'input[1].encrypted_content',
        message: "input[1].encrypted_content: the reasoning item's encrypted_content was altered or sealed by another router; replay it exactly as it was received.",
        code: 'invalid_encrypted_content',
      },
    ],
    // tools
    ['tools that are not an array', body({ tools: { type: 'function' } }), expected('tools', 'an array')],
    ['a tool that is not an object', body({ tools: ['f'] }), expected('tools[0]', 'an object')],
    ['a tool type that is not a string', body({ tools: [{ type: 1, name: 'f' }] }), expected('tools[0].type', 'a string')],
    ['a function tool with no name', body({ tools: [{ type: 'function' }] }), required('tools[0].name')],
    ['function parameters that are not an object', body({ tools: [{ type: 'function', name: 'f', parameters: [] }] }), expected('tools[0].parameters', 'an object')],
    ['a function description that is not a string', body({ tools: [{ type: 'function', name: 'f', description: 1 }] }), expected('tools[0].description', 'a string')],
    ['a custom tool with no name', body({ tools: [{ type: 'custom' }] }), required('tools[0].name')],
    ['a namespace with no name', body({ tools: [{ type: 'namespace', tools: [] }] }), required('tools[0].name')],
    ['a tool in a namespace that is not an object', body({ tools: [{ type: 'namespace', name: 'fs', tools: ['read'] }] }), expected('tools[0].tools[0]', 'an object')],
    ['a tool in a namespace with no name', body({ tools: [{ type: 'namespace', name: 'fs', tools: [{ type: 'function' }] }] }), required('tools[0].tools[0].name')],
    // the rest
    ['parallel_tool_calls that is a string', body({ parallel_tool_calls: 'no' }), expected('parallel_tool_calls', 'a boolean')],
    ['max_output_tokens 0', body({ max_output_tokens: 0 }), atLeast('max_output_tokens', 1)],
    ['max_output_tokens that is a fraction', body({ max_output_tokens: 1.5 }), expected('max_output_tokens', 'an integer')],
    ['temperature over 2', body({ temperature: 2.1 }), atMost('temperature', 2)],
    ['temperature under 0', body({ temperature: -1 }), atLeast('temperature', 0)],
    ['top_p over 1', body({ top_p: 1.01 }), atMost('top_p', 1)],
    ['reasoning that is a string', body({ reasoning: 'high' }), expected('reasoning', 'an object')],
    ['an unknown reasoning.effort', body({ reasoning: { effort: 'huge' } }), { param: 'reasoning.effort', message: 'reasoning.effort: expected one of none, minimal, low, medium, high, xhigh, max.' }],
    ['reasoning.effort that is a number', body({ reasoning: { effort: 2 } }), expected('reasoning.effort', 'a string')],
    ['reasoning.summary that is a boolean', body({ reasoning: { summary: true } }), expected('reasoning.summary', 'a string')],
    ['metadata that is a string', body({ metadata: 'a=b' }), expected('metadata', 'an object')],
    ['user that is a number', body({ user: 42 }), expected('user', 'a string')],
    ['include that is a string', body({ include: 'reasoning.encrypted_content' }), expected('include', 'an array')],
    ['stream that is a string', body({ stream: 'yes' }), expected('stream', 'a boolean')],
    ['store that is a string', body({ store: 'false' }), expected('store', 'a boolean')],
    ['previous_response_id that is a number', body({ previous_response_id: 1 }), expected('previous_response_id', 'a string')],
    ['truncation that is a boolean', body({ truncation: true }), expected('truncation', 'a string')],
    ['service_tier that is a number', body({ service_tier: 1 }), expected('service_tier', 'a string')],
    ['prompt_cache_key that is an object', body({ prompt_cache_key: {} }), expected('prompt_cache_key', 'a string')],
  ])('%s', (_label, input, error) => {
    expectInvalid(() => decode(input), error);
  });
});

describe('decodeResponsesRequest: input_file parts', () => {
  const fileInput = (part: Record<string, unknown>) => decode({ model: 'svc.test', input: [{ role: 'user', content: [part] }] }).request.messages[0]!.content;

  it.each<[string, Record<string, unknown>, unknown]>([
    ['a data: URL with a filename', { type: 'input_file', filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBE' }, { type: 'file', source: { kind: 'base64', data: 'JVBE' }, mediaType: 'application/pdf', filename: 'a.pdf' }],
    ['only a file_id', { type: 'input_file', file_id: 'file_123' }, { type: 'file', source: { kind: 'file-id', id: 'file_123', provider: 'openai' } }],
    ['bare base64 file_data, typed by its filename', { type: 'input_file', filename: 'notes.txt', file_data: 'aGk=' }, { type: 'file', source: { kind: 'base64', data: 'aGk=' }, mediaType: 'text/plain', filename: 'notes.txt' }],
    ['a file_url', { type: 'input_file', file_url: 'https://example.com/a.pdf?x=1' }, { type: 'file', source: { kind: 'url', url: 'https://example.com/a.pdf?x=1' }, mediaType: 'application/pdf' }],
  ])('%s becomes a file part', (_label, part, expected) => {
    expect(fileInput(part)).toEqual([expected]);
  });

  it('an input_file with no data, URL or id is a 400 naming it', () => {
    expectInvalid(() => fileInput({ type: 'input_file', filename: 'a.pdf' }), {
      param: 'input[0].content[0]',
      message: 'input[0].content[0]: an input_file needs file_data, file_url or file_id.',
    });
  });

  it('an input_file inside a function_call_output is a 400 naming it, not placeholder text', () => {
    const input = [{ type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_file', file_id: 'file_1' }] }];
    expectInvalid(() => decode({ model: 'svc.test', input }), {
      param: 'input[0].output[0]',
      message: 'input[0].output[0]: a file in a tool output cannot be passed on; send it in a user message.',
    });
  });
});

describe('decodeResponsesRequest: every part is carried, kept for a same-format upstream, or refused', () => {
  const ROUTES_ELSEWHERE = 'can be passed only to an OpenAI Responses upstream, and this model routes elsewhere';
  const kept = (input: Record<string, unknown>) => decode(input).request.sameFormatOnly;

  it('an item_reference is a 400 naming the item: nothing is stored to resolve it', () => {
    expectInvalid(() => decode(items(HI_ITEM, { role: 'assistant', content: 'hello' }, HI_ITEM, { type: 'item_reference', id: 'msg_abc' })), {
      param: 'input[3]',
      message: "input[3]: item_reference 'msg_abc' cannot be resolved: svc-router stores no responses or items. Send earlier items in full instead (with the AI SDK, set store: false).",
    });
  });

  it('a replayed web_search_call item is a canonical search, its query and sources kept', () => {
    const input = items(HI_ITEM, { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'q', sources: [{ type: 'url', url: 'https://e.com' }] } });
    expect(kept(input)).toBeUndefined();
    expect(decode(input).request.messages.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'web-search', id: 'ws_1', query: 'q', results: [{ url: 'https://e.com' }] }] });
  });

  it('the hosted web_search tool becomes request.webSearch with its options', () => {
    const tool = { type: 'web_search', filters: { allowed_domains: ['a.com'] }, search_context_size: 'high', user_location: { type: 'approximate', city: 'Paris', country: 'FR' } };
    expect(decode(body({ tools: [tool] })).request.webSearch).toEqual({ tool: 'web_search', param: 'tools[0]', allowedDomains: ['a.com'], contextSize: 'high', userLocation: { city: 'Paris', country: 'FR' } });
  });

  it.each(['file_search_call', 'image_generation_call', 'computer_call', 'code_interpreter_call', 'mcp_call', 'some_future_item'])(
    'a replayed %s item is kept for a Responses upstream and refused elsewhere',
    (type) => {
      const input = items(HI_ITEM, { type, id: 'x_1', status: 'completed' });
      expect(kept(input)).toEqual([{ param: 'input[1]', message: `a replayed '${type}' item ${ROUTES_ELSEWHERE}; leave it out or send what it holds as a message.`, refuse: true }]);
      expect(decode(input).request.forwardBody!.body.input).toEqual(input.input);
    },
  );

  it('an unknown content part type (input_audio) is kept for a Responses upstream and refused elsewhere', () => {
    const input = items({ role: 'user', content: [{ type: 'input_text', text: 'hi' }, { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] });
    expect(kept(input)).toEqual([{ param: 'input[0].content[1]', message: `content parts of type 'input_audio' ${ROUTES_ELSEWHERE}.`, refuse: true }]);
  });

  it('an input_image with only a file_id is kept for a Responses upstream and refused elsewhere', () => {
    const input = items({ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] });
    expect(kept(input)).toEqual([
      { param: 'input[0].content[0]', message: "an input_image by file_id can be read only by OpenAI's Responses API, and this model routes elsewhere; send image_url (a URL or a data: URL) instead.", refuse: true },
    ]);
  });

  it('an input_image with neither image_url nor file_id is a 400', () => {
    expectInvalid(() => decode(items({ role: 'user', content: [{ type: 'input_image' }] })), {
      param: 'input[0].content[0]',
      message: 'input[0].content[0]: an input_image needs image_url or file_id.',
      code: 'missing_required_parameter',
    });
  });

  it.each(['low', 'high', 'auto', 'original'] as const)("an input_image's detail '%s' is carried on the image part", (detail) => {
    const input = items({ role: 'user', content: [{ type: 'input_image', image_url: 'https://example.com/a.png', detail }] });
    expect(decode(input).request.messages[0]!.content).toEqual([{ type: 'image', url: 'https://example.com/a.png', detail }]);
  });

  it('an unknown image detail is a 400', () => {
    expectInvalid(() => decode(items({ role: 'user', content: [{ type: 'input_image', image_url: 'https://e.x/a.png', detail: 'max' }] })), {
      param: 'input[0].content[0].detail',
      message: 'input[0].content[0].detail: expected one of low, high, auto, original.',
    });
  });

  it('an image in a developer item is kept for a Responses upstream and refused elsewhere', () => {
    const input = items({ role: 'developer', content: [{ type: 'input_text', text: 'Rules.' }, { type: 'input_image', image_url: 'https://e.x/a.png' }] }, HI_ITEM);
    const decoded = decode(input).request;
    expect(decoded.system).toEqual([text('Rules.')]);
    expect(decoded.sameFormatOnly).toEqual([
      { param: 'input[0].content[1]', message: `an image or file in a developer message ${ROUTES_ELSEWHERE}; send it in a user message.`, refuse: true },
    ]);
  });

  it("a reasoning item's content (reasoning_text) is the reasoning part's text", () => {
    const input = items(HI_ITEM, { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Short.' }], content: [{ type: 'reasoning_text', text: 'Step 1. Step 2.' }] });
    expect(decode(input).request.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'reasoning', text: 'Step 1. Step 2.' }] });
  });

  it("an unknown tool_choice string is a 400", () => {
    expectInvalid(() => decode(body({ tool_choice: 'bogus' })), { param: 'tool_choice', message: "tool_choice: expected 'auto', 'none', 'required' or a tool choice object." });
  });

  it('allowed_tools offers a translating backend only the allowed tools, in the given mode', () => {
    const tools = [
      { type: 'function', name: 'a', parameters: EMPTY_PARAMETERS },
      { type: 'function', name: 'b', parameters: EMPTY_PARAMETERS },
    ];
    const request = decode(body({ tools, tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'b' }] } })).request;
    expect(request.tools.map((tool) => tool.name)).toEqual(['b']);
    expect(request.toolChoice).toBe('required');
  });

  it('allowed_tools with an unknown mode is a 400', () => {
    expectInvalid(() => decode(body({ tool_choice: { type: 'allowed_tools', mode: 'any', tools: [] } })), { param: 'tool_choice.mode', message: "tool_choice.mode: expected 'auto' or 'required'." });
  });

  it('a tool_choice forcing a hosted tool is a warning on a translating route', () => {
    expect(kept(body({ tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search' } }))).toEqual([
      { param: 'tool_choice', message: "tool_choice forces the hosted tool 'web_search'; on this route the model is offered search but chooses for itself whether to search.", refuse: false },
    ]);
  });

  it("text.format {type: 'json_object'} is JSON mode", () => {
    const request = decode(body({ text: { format: { type: 'json_object' } } })).request;
    expect(request.jsonObject).toBe(true);
    expect(request.outputSchema).toBeUndefined();
  });

  it('previous_response_id is accepted and named in the warnings', () => {
    expect(decode(body({ previous_response_id: 'resp_9' })).request.warnings).toEqual([
      "previous_response_id 'resp_9' not used: svc-router stores no responses, so the model sees only the items in this request's input; send the whole conversation (store: false).",
    ]);
  });

  it('store is echoed as asked, false when not asked', () => {
    expect(decode(body()).options.store).toBe(false);
    expect(decode(body({ store: true })).options.store).toBe(true);
  });
});

describe('decodeResponsesRequest: tool search (deferred functions, a client-run tool_search, its items)', () => {
  const fn = (name: string, deferred = false) => ({ type: 'function', name, parameters: EMPTY_PARAMETERS, ...(deferred ? { defer_loading: true } : {}) });
  const SEARCH = { type: 'tool_search', execution: 'client', parameters: { type: 'object', properties: { query: { type: 'string' } } } };
  const searchItems = (callId: string, tools: unknown[], execution = 'client') => [
    { type: 'tool_search_call', call_id: callId, execution, arguments: { query: 'mail' } },
    { type: 'tool_search_output', call_id: callId, execution, tools },
  ];

  it('holds deferred functions back, a namespace member included, and offers the client-run tool_search as a function', () => {
    const { request, droppedTools } = decode(body({ tools: [fn('ls'), { type: 'namespace', name: 'mail', description: 'Mail.', tools: [fn('send', true), fn('read')] }, SEARCH, fn('cron', true)] }));
    expect(request.tools.map((tool) => tool.name)).toEqual(['ls', 'mail__read', 'tool_search']);
    expect(request.deferredTools?.map((tool) => tool.name)).toEqual(['mail__send', 'cron']);
    expect(droppedTools).toEqual([]);
  });

  it('a tool_search_output loads the tools it returns, declared or not, in the order loaded; its call and result are a tool call and result', () => {
    const decoded = decode(body({ tools: [fn('ls'), SEARCH, fn('cron', true)], input: [HI_ITEM, ...searchItems('ts_1', [fn('weather', true)]), ...searchItems('ts_2', [fn('cron', true)])] }));
    expect(decoded.request.tools.map((tool) => tool.name)).toEqual(['ls', 'tool_search', 'weather', 'cron']);
    expect(decoded.request.deferredTools).toBeUndefined();
    expect(decoded.request.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'tool-call', id: 'ts_1', name: 'tool_search', arguments: '{"query":"mail"}' }] });
    expect(decoded.request.messages[2]).toMatchObject({ role: 'tool', content: [{ type: 'tool-result', callId: 'ts_1', loadsTools: ['weather'], content: [text('Tool loaded: weather. It is in your tool list now; call it directly.')] }] });
    // A call to a tool the output loaded maps back to the client's own shape.
    expect(decoded.options.toolsByName.get('weather')).toEqual({ kind: 'function', name: 'weather' });
    expect(decoded.request.sameFormatOnly).toBeUndefined();
  });

  it('a hosted tool_search, and replayed hosted search items, are kept for a Responses upstream and refused elsewhere', () => {
    const hosted = decode(body({ tools: [{ type: 'tool_search' }, fn('cron', true)] }));
    expect(hosted.request.sameFormatOnly).toEqual([expect.objectContaining({ param: 'tools[0]', refuse: true })]);
    const replayed = decode(body({ tools: [fn('ls')], input: [HI_ITEM, ...searchItems('ts_1', [fn('weather')], 'server')] }));
    expect(replayed.request.sameFormatOnly?.map((entry) => [entry.param, entry.refuse])).toEqual([
      ['input[1]', true],
      ['input[2]', true],
    ]);
  });
});
