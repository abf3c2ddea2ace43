import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../src/core/request.js';
import { decodeMessagesRequest } from '../../../src/formats/messages/decode-request.js';
import { atLeast, atMost, expected, expectInvalid, type InvalidCase, pick, required, text, userHi } from './support.js';

const MODEL = 'claude-sonnet-4-5';
const USER_HI = { role: 'user', content: 'hi' };
const body = (fields: Record<string, unknown> = {}): Record<string, unknown> => ({ model: MODEL, max_tokens: 1024, messages: [USER_HI], ...fields });
const turns = (...messages: unknown[]) => body({ messages });
const user = (...content: unknown[]) => ({ role: 'user', content });
const assistant = (...content: unknown[]) => ({ role: 'assistant', content });
const DEFERRED = (name: string) => ({ name, description: `The ${name} tool`, input_schema: { type: 'object', properties: { url: { type: 'string' } } }, defer_loading: true });
const DEFERRED_SPEC = (name: string) => ({ name, description: `The ${name} tool`, parameters: { type: 'object', properties: { url: { type: 'string' } } }, deferred: true as const });


describe('decodeMessagesRequest: valid bodies', () => {
  it.each<[string, Record<string, unknown>, Partial<CanonicalRequest>]>([
    [
      'a minimal body',
      body(),
      {
        model: MODEL,
        system: [],
        messages: [userHi],
        tools: [],
        maxOutputTokens: 1024,
        toolChoice: undefined,
        parallelToolCalls: undefined,
        temperature: undefined,
        topP: undefined,
        stop: undefined,
        reasoningEffort: undefined,
        reasoningBudget: undefined,
        outputSchema: undefined,
        metadata: undefined,
      },
    ],
    // system
    ['a system string', body({ system: 'Be brief.' }), { system: [text('Be brief.')] }],
    ['an empty system string, as no system prompt', body({ system: '' }), { system: [] }],
    ['null system', body({ system: null }), { system: [] }],
    [
      'system text blocks, in order, a breakpoint kept for upstreams that take one',
      body({ system: [text('A'), { type: 'text', text: 'B', cache_control: { type: 'ephemeral', ttl: '1h' } }] }),
      { system: [text('A'), { ...text('B'), providerMetadata: { anthropic: { cacheControl: { type: 'ephemeral', ttl: '1h' } } } }] },
    ],
    // user content
    [
      'text and image blocks (base64 and URL)',
      turns(
        user(
          text('What are these?'),
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
        ),
      ),
      {
        messages: [
          {
            role: 'user',
            content: [
              text('What are these?'),
              { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=', mediaType: 'image/png' },
              { type: 'image', url: 'https://example.com/cat.jpg' },
            ],
          },
        ],
      },
    ],
    ['an empty list of blocks', turns(user()), { messages: [{ role: 'user', content: [] }] }],
    ["a 'system' role message kept in place", turns(USER_HI, { role: 'system', content: 'Now in French.' }), { messages: [userHi, { role: 'system', content: [text('Now in French.')] }] }],
    // assistant content
    [
      'an assistant turn: signed thinking, text and a tool use',
      turns(
        USER_HI,
        assistant(
          { type: 'thinking', thinking: 'Let me think.', signature: 'sig-abc' },
          text('Checking.'),
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
        ),
      ),
      {
        messages: [
          userHi,
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'Let me think.', providerMetadata: { anthropic: { signature: 'sig-abc' } } },
              text('Checking.'),
              { type: 'tool-call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
            ],
          },
        ],
      },
    ],
    [
      'a thinking block with no thinking text and no signature',
      turns(USER_HI, assistant({ type: 'thinking' })),
      { messages: [userHi, { role: 'assistant', content: [{ type: 'reasoning', text: '' }] }] },
    ],
    [
      'a redacted thinking block',
      turns(USER_HI, assistant({ type: 'redacted_thinking', data: 'EmwKAhgB' })),
      { messages: [userHi, { role: 'assistant', content: [{ type: 'reasoning', text: '', providerMetadata: { anthropic: { redactedData: 'EmwKAhgB' } } }] }] },
    ],
    [
      'a tool use with no input',
      turns(USER_HI, assistant({ type: 'tool_use', id: 'toolu_1', name: 'ping' })),
      { messages: [userHi, { role: 'assistant', content: [{ type: 'tool-call', id: 'toolu_1', name: 'ping', arguments: '{}' }] }] },
    ],
    // tool results
    [
      'a user turn of tool results and text, split into a tool message then a user message',
      turns(user({ type: 'tool_result', tool_use_id: 'toolu_1', content: '12°C' }, text('And tomorrow?'), { type: 'tool_result', tool_use_id: 'toolu_2', content: 'rain', is_error: true })),
      {
        messages: [
          {
            role: 'tool',
            content: [
              { type: 'tool-result', callId: 'toolu_1', content: [text('12°C')] },
              { type: 'tool-result', callId: 'toolu_2', content: [text('rain')], isError: true },
            ],
          },
          { role: 'user', content: [text('And tomorrow?')] },
        ],
      },
    ],
    [
      'a user turn of tool results only, as one tool message',
      turns(user({ type: 'tool_result', tool_use_id: 'toolu_1', content: [text('see'), { type: 'image', source: { type: 'url', url: 'https://x/y.png' } }], is_error: false })),
      { messages: [{ role: 'tool', content: [{ type: 'tool-result', callId: 'toolu_1', content: [text('see'), { type: 'image', url: 'https://x/y.png' }] }] }] },
    ],
    [
      'a tool result with no content',
      turns(user({ type: 'tool_result', tool_use_id: 'toolu_1' })),
      { messages: [{ role: 'tool', content: [{ type: 'tool-result', callId: 'toolu_1', content: [] }] }] },
    ],
    // tools
    [
      'custom tools, with and without type and description',
      body({
        tools: [
          { name: 'get_weather', description: 'Weather now', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
          { type: 'custom', name: 'ping', input_schema: { type: 'object' } },
        ],
      }),
      {
        tools: [
          { name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
          { name: 'ping', parameters: { type: 'object' } },
        ],
      },
    ],
    ['null tools', body({ tools: null }), { tools: [] }],
    // tool choice
    ["tool_choice 'auto'", body({ tool_choice: { type: 'auto' } }), { toolChoice: 'auto', parallelToolCalls: undefined }],
    ["tool_choice 'any' as required", body({ tool_choice: { type: 'any' } }), { toolChoice: 'required' }],
    ["tool_choice 'none'", body({ tool_choice: { type: 'none' } }), { toolChoice: 'none' }],
    ['tool_choice naming a tool', body({ tool_choice: { type: 'tool', name: 'get_weather' } }), { toolChoice: { name: 'get_weather' } }],
    ['disable_parallel_tool_use as parallelToolCalls false', body({ tool_choice: { type: 'auto', disable_parallel_tool_use: true } }), { toolChoice: 'auto', parallelToolCalls: false }],
    ['disable_parallel_tool_use false, as no setting', body({ tool_choice: { type: 'any', disable_parallel_tool_use: false } }), { toolChoice: 'required', parallelToolCalls: undefined }],
    ['null tool_choice', body({ tool_choice: null }), { toolChoice: undefined }],
    // sampling
    ['max_tokens', body({ max_tokens: 64_000 }), { maxOutputTokens: 64_000 }],
    ['temperature 1, the maximum', body({ temperature: 1 }), { temperature: 1 }],
    ['temperature 0', body({ temperature: 0 }), { temperature: 0 }],
    ['top_p 0.95', body({ top_p: 0.95 }), { topP: 0.95 }],
    ['stop_sequences', body({ stop_sequences: ['END', '###'] }), { stop: ['END', '###'] }],
    ['stop_sequences as one string', body({ stop_sequences: 'END' }), { stop: ['END'] }],
    // thinking and effort
    ['thinking enabled with a budget', body({ thinking: { type: 'enabled', budget_tokens: 4096 } }), { reasoningBudget: 4096, reasoningEffort: 'medium' }],
    ['thinking enabled with no budget', body({ thinking: { type: 'enabled' } }), { reasoningBudget: undefined, reasoningEffort: 'medium' }],
    [
      'thinking enabled with a budget and output_config.effort',
      body({ thinking: { type: 'enabled', budget_tokens: 2048 }, output_config: { effort: 'high' } }),
      { reasoningBudget: 2048, reasoningEffort: 'high' },
    ],
    ['adaptive thinking', body({ thinking: { type: 'adaptive' } }), { reasoningBudget: undefined, reasoningEffort: 'medium' }],
    ['adaptive thinking with output_config.effort low', body({ thinking: { type: 'adaptive' }, output_config: { effort: 'low' } }), { reasoningEffort: 'low' }],
    ['thinking disabled, which is effort none', body({ thinking: { type: 'disabled' } }), { reasoningBudget: undefined, reasoningEffort: 'none' }],
    ['output_config.effort alone', body({ output_config: { effort: 'low' } }), { reasoningEffort: 'low' }],
    ["output_config.effort 'max', kept for the backend to map", body({ output_config: { effort: 'max' } }), { reasoningEffort: 'max' }],
    ['output_config with no effort', body({ output_config: {} }), { reasoningEffort: undefined }],
    ['null thinking and output_config', body({ thinking: null, output_config: null }), { reasoningEffort: undefined, reasoningBudget: undefined }],
    // Claude Code: tool search results, a deferred placeholder tool
    [
      'tool_reference blocks in a tool_result, as the tools they load and one note naming them',
      body({
        tools: [DEFERRED('WebSearch'), DEFERRED('WebFetch')],
        messages: [user({ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'tool_reference', tool_name: 'WebFetch' }, { type: 'tool_reference', tool_name: 'WebSearch' }] })],
      }),
      {
        messages: [{ role: 'tool', content: [{ type: 'tool-result', callId: 'toolu_1', content: [text('Tools loaded: WebFetch, WebSearch. They are in your tool list now; call them directly.')], loadsTools: ['WebFetch', 'WebSearch'] }] }],
        // In the order loaded, not declared.
        tools: [{ ...DEFERRED_SPEC('WebFetch') }, { ...DEFERRED_SPEC('WebSearch') }],
        deferredTools: undefined,
        sameFormatOnly: undefined,
      },
    ],
    [
      'a tool_result with text and a tool_reference: the text, then the note where the reference was',
      body({
        tools: [DEFERRED('WebFetch')],
        messages: [user({ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'Found one.' }, { type: 'tool_reference', tool_name: 'WebFetch', cache_control: { type: 'ephemeral' } }] })],
      }),
      {
        messages: [
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                callId: 'toolu_1',
                content: [text('Found one.'), { ...text('Tool loaded: WebFetch. It is in your tool list now; call it directly.'), providerMetadata: { anthropic: { cacheControl: { type: 'ephemeral' } } } }],
                loadsTools: ['WebFetch'],
              },
            ],
          },
        ],
      },
    ],
    [
      'a deferred tool (defer_loading) no tool_reference loaded, held back',
      body({ tools: [{ name: 'Bash', input_schema: { type: 'object' } }, { name: 'DeferredToolPlaceholder', input_schema: { type: 'object', properties: {} }, defer_loading: true }] }),
      { tools: [{ name: 'Bash', parameters: { type: 'object' } }], deferredTools: [{ name: 'DeferredToolPlaceholder', parameters: { type: 'object', properties: {} }, deferred: true }] },
    ],
    [
      'a tool_reference naming no declared tool, kept for an Anthropic upstream only',
      turns(user({ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'tool_reference', tool_name: 'Nowhere' }] })),
      { sameFormatOnly: [expect.objectContaining({ param: 'tools', refuse: true, message: expect.stringContaining("'Nowhere'") })] as never },
    ],
    [
      "Anthropic's tool search server tool, kept for an Anthropic upstream only (never silently dropped)",
      body({ tools: [{ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' }, DEFERRED('WebFetch')] }),
      { sameFormatOnly: [expect.objectContaining({ param: 'tools.0', refuse: true, message: expect.stringContaining("'tool_search_tool_bm25_20251119'") })] as never },
    ],
    // metadata
    ['metadata.user_id', body({ metadata: { user_id: 'u-42' } }), { metadata: { user_id: 'u-42' } }],
    ['metadata with no user_id, as no metadata', body({ metadata: {} }), { metadata: undefined }],
    ['an empty metadata.user_id, as no metadata', body({ metadata: { user_id: '' } }), { metadata: undefined }],
  ])('%s', (_label, input, want) => {
    expect(pick(decodeMessagesRequest(input).request, want)).toEqual(want);
  });

  it('holds a deferred tool back rather than dropping it: it is no dropped tool, and tool search may load it later', () => {
    const decoded = decodeMessagesRequest(body({ tools: [{ name: 'DeferredToolPlaceholder', input_schema: { type: 'object' }, defer_loading: true }] }));
    expect(decoded.droppedTools).toBeUndefined();
    expect(decoded.request.tools).toEqual([]);
    expect(decoded.request.deferredTools?.map((tool) => tool.name)).toEqual(['DeferredToolPlaceholder']);
  });

  it('leaves the prompt cache key to the session (src/routing/session-key.ts): the session header never reaches an upstream as it came', () => {
    expect(decodeMessagesRequest(body(), { secret: 's', headers: { 'x-claude-code-session-id': 'sess-1' } }).request.promptCacheKey).toBeUndefined();
  });

  it('keeps an Anthropic-only thinking.display as a warning, and an edit type the router does not apply (compaction) too', () => {
    const { request } = decodeMessagesRequest(
      body({ thinking: { type: 'adaptive', display: 'updates' }, context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }, { type: 'compact_20260112' }] } }),
    );
    expect(request.reasoningDisplay).toBeUndefined();
    expect(request.sameFormatOnly?.map((entry) => [entry.param, entry.refuse])).toEqual([
      ['thinking.display', false],
      ['context_management.edits', false],
    ]);
    expect(request.sameFormatOnly?.[1]?.message).toMatch(/^compact_20260112 not applied/);
  });

  it.each(['summarized', 'omitted'] as const)("thinking.display '%s' becomes reasoningDisplay, with no warning", (display) => {
    const { request } = decodeMessagesRequest(body({ thinking: { type: 'adaptive', display } }));
    expect(request.reasoningDisplay).toBe(display);
    expect(request.sameFormatOnly).toBeUndefined();
  });

  it.each<[string, Record<string, unknown>, boolean]>([
    ['no stream field', body(), false],
    ['stream true', body({ stream: true }), true],
    ['null stream', body({ stream: null }), false],
  ])('stream: %s', (_label, input, stream) => {
    expect(decodeMessagesRequest(input).stream).toBe(stream);
  });

  it('keeps the client body itself as the messages forward body, unknown fields included', () => {
    const input = body({ top_k: 5, container: 'c1' });
    const { request } = decodeMessagesRequest(input);
    expect(request.forwardBody).toEqual({ format: 'messages', body: input });
    expect(request.forwardBody?.body).toBe(input);
  });
});

describe('decodeMessagesRequest: invalid bodies are a 400 naming the field', () => {
  const badRole: InvalidCase = { param: 'messages.0.role', message: "messages.0.role: expected 'user' or 'assistant'." };
  const badSource: InvalidCase = { param: 'messages.0.content.0.source.type', message: "messages.0.content.0.source.type: expected 'base64' or 'url'." };
  const blocks = 'a string or an array of content blocks';

  it.each<[string, unknown, InvalidCase]>([
    ['a body that is not an object', 1, expected('body', 'an object')],
    ['no model', { max_tokens: 1, messages: [] }, required('model')],
    ['a null model', body({ model: null }), required('model')],
    ['a model that is a number', body({ model: 3 }), expected('model', 'a string')],
    ['no max_tokens', { model: MODEL, messages: [USER_HI] }, required('max_tokens')],
    ['null max_tokens', body({ max_tokens: null }), required('max_tokens')],
    ['max_tokens 0', body({ max_tokens: 0 }), atLeast('max_tokens', 1)],
    ['max_tokens that is a string', body({ max_tokens: '1024' }), expected('max_tokens', 'an integer')],
    ['no messages', { model: MODEL, max_tokens: 1 }, required('messages')],
    ['messages that are not an array', body({ messages: USER_HI }), expected('messages', 'an array')],
    // messages
    ['a message that is not an object', turns(USER_HI, 'hi'), expected('messages.1', 'an object')],
    ['a message with no role', turns({ content: 'hi' }), required('messages.0.role')],
    ["a message with role 'tool'", turns({ role: 'tool', content: 'hi' }), badRole],
    ['a message with no content', turns({ role: 'user' }), required('messages.0.content')],
    ['content that is a number', turns({ role: 'user', content: 1 }), expected('messages.0.content', blocks)],
    ['content that is an object', turns({ role: 'user', content: text('hi') }), expected('messages.0.content', blocks)],
    ['a block that is not an object', turns(user('hi')), expected('messages.0.content.0', 'an object')],
    ['a block with no type', turns(user({ text: 'hi' })), required('messages.0.content.0.type')],
    ['a text block with no text', turns(user(text('a'), { type: 'text' })), required('messages.0.content.1.text')],
    ['an image with no source', turns(user({ type: 'image' })), expected('messages.0.content.0.source', 'an object')],
    ['an image source with no type', turns(user({ type: 'image', source: { url: 'https://x' } })), required('messages.0.content.0.source.type')],
    ["an image source of type 'file'", turns(user({ type: 'image', source: { type: 'file', file_id: 'file_1' } })), badSource],
    ['a base64 image with no media_type', turns(user({ type: 'image', source: { type: 'base64', data: 'AAAA' } })), required('messages.0.content.0.source.media_type')],
    ['a base64 image with no data', turns(user({ type: 'image', source: { type: 'base64', media_type: 'image/png' } })), required('messages.0.content.0.source.data')],
    ['a URL image with no url', turns(user({ type: 'image', source: { type: 'url' } })), required('messages.0.content.0.source.url')],
    ['a tool use with no id', turns(assistant({ type: 'tool_use', name: 'f', input: {} })), required('messages.0.content.0.id')],
    ['a tool use with no name', turns(assistant({ type: 'tool_use', id: 'toolu_1', input: {} })), required('messages.0.content.0.name')],
    ['a tool result with no tool_use_id', turns(user({ type: 'tool_result', content: 'x' })), required('messages.0.content.0.tool_use_id')],
    ['tool result content that is a number', turns(user({ type: 'tool_result', tool_use_id: 't', content: 5 })), expected('messages.0.content.0.content', blocks)],
    ['a tool result text block with no text', turns(user({ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text' }] })), required('messages.0.content.0.content.0.text')],
    ['a thinking signature that is a number', turns(assistant({ type: 'thinking', thinking: 'x', signature: 1 })), expected('messages.0.content.0.signature', 'a string')],
    ['thinking text that is an object', turns(assistant({ type: 'thinking', thinking: {} })), expected('messages.0.content.0.thinking', 'a string')],
    ['a redacted thinking block with no data', turns(assistant({ type: 'redacted_thinking' })), required('messages.0.content.0.data')],
    // system
    ['system that is a number', body({ system: 1 }), expected('system', 'an array')],
    ['a system block that is not an object', body({ system: ['Be brief.'] }), expected('system.0', 'an object')],
    ['a system block with no text', body({ system: [text('A'), { type: 'text' }] }), required('system.1.text')],
    // tools
    ['tools that are not an array', body({ tools: { name: 'f' } }), expected('tools', 'an array')],
    ['a tool that is not an object', body({ tools: ['f'] }), expected('tools.0', 'an object')],
    ['a tool with no name', body({ tools: [{ input_schema: { type: 'object' } }] }), required('tools.0.name')],
    ['a tool with no input_schema', body({ tools: [{ name: 'f' }] }), expected('tools.0.input_schema', 'an object')],
    ['a tool description that is not a string', body({ tools: [{ name: 'f', input_schema: {}, description: 1 }] }), expected('tools.0.description', 'a string')],
    // tool choice
    ['tool_choice that is a string', body({ tool_choice: 'auto' }), expected('tool_choice', 'an object')],
    ['tool_choice with an unknown type', body({ tool_choice: { type: 'required' } }), { param: 'tool_choice.type', message: "tool_choice.type: expected 'auto', 'any', 'tool' or 'none'." }],
    ['tool_choice with no type', body({ tool_choice: {} }), { param: 'tool_choice.type', message: "tool_choice.type: expected 'auto', 'any', 'tool' or 'none'." }],
    ["tool_choice 'tool' with no name", body({ tool_choice: { type: 'tool' } }), required('tool_choice.name')],
    // sampling
    ['temperature over 1', body({ temperature: 1.5 }), atMost('temperature', 1)],
    ['temperature under 0', body({ temperature: -0.5 }), atLeast('temperature', 0)],
    ['top_p over 1', body({ top_p: 2 }), atMost('top_p', 1)],
    ['top_p that is a string', body({ top_p: '0.9' }), expected('top_p', 'a number')],
    ['stop_sequences holding a number', body({ stop_sequences: [1] }), expected('stop_sequences', 'a string or an array of strings')],
    // thinking and effort
    ['thinking that is a string', body({ thinking: 'enabled' }), expected('thinking', 'an object')],
    ['thinking with no type', body({ thinking: { budget_tokens: 1024 } }), required('thinking.type')],
    ['thinking with an unknown type', body({ thinking: { type: 'on' } }), { param: 'thinking.type', message: "thinking.type: expected 'enabled', 'adaptive' or 'disabled'." }],
    ['a budget of 0', body({ thinking: { type: 'enabled', budget_tokens: 0 } }), atLeast('thinking.budget_tokens', 1)],
    ['a budget that is a string', body({ thinking: { type: 'enabled', budget_tokens: '2048' } }), expected('thinking.budget_tokens', 'an integer')],
    ['output_config that is a string', body({ output_config: 'high' }), expected('output_config', 'an object')],
    ['an unknown output_config.effort', body({ output_config: { effort: 'huge' } }), { param: 'output_config.effort', message: 'output_config.effort: expected one of none, minimal, low, medium, high, xhigh, max.' }],
    ['output_config.effort that is a number', body({ output_config: { effort: 3 } }), expected('output_config.effort', 'a string')],
    ['an unknown effort with thinking disabled', body({ thinking: { type: 'disabled' }, output_config: { effort: 'huge' } }), { param: 'output_config.effort', message: 'output_config.effort: expected one of none, minimal, low, medium, high, xhigh, max.' }],
    // metadata and stream
    ['metadata that is a string', body({ metadata: 'u-42' }), expected('metadata', 'an object')],
    ['metadata.user_id that is a number', body({ metadata: { user_id: 42 } }), expected('metadata.user_id', 'a string')],
    ['stream that is a string', body({ stream: 'true' }), expected('stream', 'a boolean')],
  ])('%s', (_label, input, error) => {
    expectInvalid(() => decodeMessagesRequest(input), error);
  });
});

describe('decodeMessagesRequest: document blocks and top_k', () => {
  const content = (block: unknown) => decodeMessagesRequest(turns(user(block))).request.messages[0]!.content;

  it.each<[string, unknown, unknown]>([
    ['a base64 PDF', { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBE' } }, { type: 'file', source: { kind: 'base64', data: 'JVBE' }, mediaType: 'application/pdf' }],
    ['a text source with a title', { type: 'document', title: 'notes', source: { type: 'text', media_type: 'text/plain', data: 'Notes.' } }, { type: 'file', source: { kind: 'text', text: 'Notes.' }, mediaType: 'text/plain', filename: 'notes' }],
    ['a URL source with citations', { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' }, citations: { enabled: true } }, { type: 'file', source: { kind: 'url', url: 'https://example.com/a.pdf' }, mediaType: 'application/pdf', providerMetadata: { anthropic: { citations: { enabled: true } } } }],
    ['an Anthropic file id', { type: 'document', source: { type: 'file', file_id: 'file_011' } }, { type: 'file', source: { kind: 'file-id', id: 'file_011', provider: 'anthropic' } }],
  ])('%s becomes a file part', (_label, block, expected) => {
    expect(content(block)).toEqual([expected]);
  });

  it('a document source it cannot pass on is a 400 naming it', () => {
    expectInvalid(() => content({ type: 'document', source: { type: 'content', content: [] } }), {
      param: 'messages.0.content.0.source.type',
      message: "messages.0.content.0.source.type: a document source of type 'content' cannot be passed on; send it as 'base64', 'text', 'url' or 'file'.",
    });
  });

  it('a document inside a tool_result is a 400 naming it', () => {
    const result = { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } }] };
    expectInvalid(() => content(result), { param: 'messages.0.content.0.content', message: 'messages.0.content.0.content: a document in a tool_result cannot be passed on; send it in a user message.' });
  });

  it('top_k is modelled', () => {
    expect(decodeMessagesRequest(body({ top_k: 40 })).request.topK).toBe(40);
  });
});

describe('decodeMessagesRequest: every part is carried, kept for a same-format upstream, or refused', () => {
  const ROUTES_ELSEWHERE = 'can be passed only to an Anthropic upstream, and this model routes elsewhere; leave the block out or send what it holds as text.';
  const searchResult = { type: 'search_result', source: 'https://e.x', title: 'T', content: [{ type: 'text', text: 'found' }] };

  it('a search_result block inside a tool_result is kept for an Anthropic upstream and refused elsewhere', () => {
    const request = decodeMessagesRequest(turns(user({ type: 'tool_result', tool_use_id: 't1', content: [searchResult] }))).request;
    expect(request.sameFormatOnly).toEqual([{ param: 'messages.0.content.0.content.0', message: `content blocks of type 'search_result' ${ROUTES_ELSEWHERE}`, refuse: true }]);
  });

  it('a search_result block is kept for an Anthropic upstream and refused elsewhere', () => {
    const request = decodeMessagesRequest(turns(user(text('see'), searchResult))).request;
    expect(request.sameFormatOnly).toEqual([{ param: 'messages.0.content.1', message: `content blocks of type 'search_result' ${ROUTES_ELSEWHERE}`, refuse: true }]);
  });

  it.each(['server_tool_use', 'web_fetch_tool_result', 'code_execution_tool_result', 'mcp_tool_result', 'a_future_block'])(
    'a replayed %s block is kept for an Anthropic upstream and refused elsewhere',
    (type) => {
      const request = decodeMessagesRequest(turns(USER_HI, assistant({ type, id: 'srvtoolu_1' }, text('done')))).request;
      expect(request.sameFormatOnly).toEqual([{ param: 'messages.1.content.0', message: `content blocks of type '${type}' ${ROUTES_ELSEWHERE}`, refuse: true }]);
      expect(request.forwardBody!.body).toEqual(turns(USER_HI, assistant({ type, id: 'srvtoolu_1' }, text('done'))));
    },
  );

  it('server tools in `tools` are listed in droppedTools, as Responses hosted tools are; web search is offered on every route', () => {
    const decoded = decodeMessagesRequest(body({ tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 2, allowed_domains: ['a.com'] }, { name: 'f', input_schema: { type: 'object' } }, { type: 'code_execution_20250825', name: 'code_execution' }] }));
    expect(decoded.droppedTools).toEqual(['code_execution_20250825']);
    expect(decoded.request.tools.map((tool) => tool.name)).toEqual(['f']);
    expect(decoded.request.webSearch).toEqual({ tool: 'web_search_20250305', param: 'tools.0', maxUses: 2, allowedDomains: ['a.com'] });
  });

  it('a replayed web search (server_tool_use and its web_search_tool_result) is one canonical search', () => {
    const call = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } };
    const result = { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: 'https://e.com', title: 'E', encrypted_content: 'enc', page_age: 'May 1' }] };
    const request = decodeMessagesRequest(turns(USER_HI, assistant(call, result, text('done')))).request;
    expect(request.sameFormatOnly).toBeUndefined();
    expect(request.messages[1]!.content).toEqual([
      { type: 'web-search', id: 'srvtoolu_1', query: 'q', results: [{ url: 'https://e.com', title: 'E', encryptedContent: 'enc', pageAge: 'May 1' }] },
      { type: 'text', text: 'done' },
    ]);
  });

  it('citations on a replayed text block ride in the anthropic namespace', () => {
    const citations = [{ type: 'char_location', cited_text: 'x', document_index: 0, start_char_index: 0, end_char_index: 1 }];
    const request = decodeMessagesRequest(turns(USER_HI, assistant({ type: 'text', text: 'It is x.', citations }))).request;
    expect(request.messages[1]!.content).toEqual([{ type: 'text', text: 'It is x.', providerMetadata: { anthropic: { citations } } }]);
  });

  it('output_config.format is the canonical output schema, strict', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false };
    expect(decodeMessagesRequest(body({ output_config: { format: { type: 'json_schema', schema } } })).request.outputSchema).toEqual({ name: 'output', schema, strict: true });
  });

  it('an output_config.format of another type is a 400', () => {
    expectInvalid(() => decodeMessagesRequest(body({ output_config: { format: { type: 'xml' } } })), { param: 'output_config.format.type', message: "output_config.format.type: expected 'json_schema'." });
  });
});
