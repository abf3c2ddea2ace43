import { describe, expect, it } from 'vitest';
import { encodeAnthropicRequest } from '../../../src/backends/anthropic/encode-request.js';
import type { CanonicalRequest, Message } from '../../../src/core/request.js';
import { fixtureJson, userRequest } from './support.js';

const conversation: CanonicalRequest = {
  model: 'svc.coder',
  system: [
    { type: 'text', text: 'You are a coding agent.' },
    { type: 'text', text: '' },
  ],
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Fix the bug in this screenshot.' },
        { type: 'image', url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==', mediaType: 'image/png' },
        { type: 'image', url: 'https://example.com/trace.jpg' },
      ],
    },
    { role: 'user', content: [{ type: 'text', text: 'It is in src/a.ts.' }] },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'unsigned musing' },
        { type: 'text', text: '' },
        { type: 'text', text: 'Reading both.' },
        { type: 'tool-call', id: 'toolu_A', name: 'read_file', arguments: '{"path":"src/a.ts"}' },
        { type: 'tool-call', id: 'toolu_B', name: 'list_dir', arguments: '' },
      ],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', callId: 'toolu_A', content: [{ type: 'text', text: 'export const a = 1;' }] },
        {
          type: 'tool-result',
          callId: 'toolu_B',
          content: [
            { type: 'text', text: 'ENOENT' },
            { type: 'image', url: 'data:image/jpeg;base64,/9j/4AAQSkZJRg==' },
          ],
          isError: true,
        },
      ],
    },
    { role: 'user', content: [{ type: 'text', text: 'Also check b.' }] },
    { role: 'system', content: [{ type: 'text', text: 'Tests must pass.' }] },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'b is fine.', providerMetadata: { anthropic: { signature: 'sig-b' } } },
        { type: 'reasoning', text: '', providerMetadata: { anthropic: { redactedData: 'opaque-redacted' } } },
        { type: 'text', text: 'Done.' },
      ],
    },
    { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
  ],
  tools: [
    { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
    { name: 'list_dir', parameters: { properties: {} } },
  ],
  toolChoice: 'auto',
  parallelToolCalls: false,
  maxOutputTokens: 2048,
  temperature: 1.5,
  topP: 0.9,
  stop: ['END'],
  metadata: { user_id: 'user-42', session: 'ignored' },
};

/** The breakpoint the router places for clients that set none (see the cache breakpoints tests). */
const EPHEMERAL = { type: 'ephemeral' };

const encode = (request: CanonicalRequest, stream = false) => encodeAnthropicRequest(request, 'claude-sonnet-4-5-20250929', stream);

/** A finished tool-use exchange, then the user's next turn. */
const toolTurn = (assistant: Message['content']): Message[] => [
  { role: 'user', content: [{ type: 'text', text: 'List files' }] },
  { role: 'assistant', content: assistant },
  { role: 'tool', content: [{ type: 'tool-result', callId: 'toolu_1', content: [{ type: 'text', text: 'a.ts' }] }] },
];
const listCall = { type: 'tool-call', id: 'toolu_1', name: 'list_dir', arguments: '{}' } as const;
const tools = [{ name: 'list_dir', parameters: { type: 'object', properties: {} } }];

describe('anthropic encodeAnthropicRequest', () => {
  it('encodes a whole conversation: merged turns, tool results first, images as sources, signed reasoning only', () => {
    expect(encode(conversation)).toEqual(fixtureJson('expected/anthropic/request-conversation.json'));
  });

  it('keeps tool results first, in call order, when each arrives in its own tool message', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'Read a and b' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', id: 'call_a', name: 'read_file', arguments: '{"path":"a"}' },
          { type: 'tool-call', id: 'call_b', name: 'read_file', arguments: '{"path":"b"}' },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', callId: 'call_a', content: [{ type: 'text', text: 'A' }] }] },
      { role: 'tool', content: [{ type: 'tool-result', callId: 'call_b', content: [{ type: 'text', text: 'B' }] }] },
      { role: 'user', content: [{ type: 'text', text: 'Compare them' }] },
    ];
    const body = encode(userRequest('', { messages }));
    expect((body.messages as Array<{ content: unknown[] }>)[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'call_a', content: [{ type: 'text', text: 'A' }] },
        { type: 'tool_result', tool_use_id: 'call_b', content: [{ type: 'text', text: 'B' }] },
        { type: 'text', text: 'Compare them', cache_control: EPHEMERAL },
      ],
    });
  });

  it('moves tool results ahead of user text already in the turn', () => {
    const messages: Message[] = [
      { role: 'assistant', content: [listCall] },
      { role: 'user', content: [{ type: 'text', text: 'here you go' }] },
      { role: 'tool', content: [{ type: 'tool-result', callId: 'toolu_1', content: [] }] },
    ];
    expect(encode(userRequest('', { messages })).messages).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'list_dir', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: [] },
          { type: 'text', text: 'here you go', cache_control: EPHEMERAL },
        ],
      },
    ]);
  });

  it('drops messages left empty once empty text and unsigned reasoning are removed', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', content: [{ type: 'reasoning', text: 'no signature' }, { type: 'text', text: '' }] },
      { role: 'user', content: [{ type: 'text', text: 'Hello?' }] },
    ];
    expect(encode(userRequest('', { messages })).messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Hi' }, { type: 'text', text: 'Hello?', cache_control: EPHEMERAL }] },
    ]);
  });

  it("sends reasoning another upstream sealed as its summary, plain text, or not at all without one, and names it", () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', content: [{ type: 'reasoning', text: 'summary', providerMetadata: { openai: { encryptedContent: 'gAAAAB-openai' } } }, { type: 'reasoning', text: '', providerMetadata: { openai: { encryptedContent: 'gAAAAC-openai' } } }, { type: 'text', text: 'Hello' }] },
    ];
    const request = userRequest('', { messages });
    expect(encode(request).messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: EPHEMERAL }] },
      { role: 'assistant', content: [{ type: 'text', text: 'summary' }, { type: 'text', text: 'Hello' }] },
    ]);
    expect(request.backendWarnings).toContain('reasoning from another model: claude-sonnet-4-5-20250929 does not read 2 reasoning blocks that another provider wrote (1 sent as plain text; 1 left out).');
  });

  it('wraps arguments that are not a JSON object', () => {
    const messages: Message[] = [
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', id: 't1', name: 'f', arguments: '[1,2]' },
          { type: 'tool-call', id: 't2', name: 'f', arguments: '{"broken":' },
        ],
      },
    ];
    expect((encode(userRequest('', { messages })).messages as Array<{ content: unknown }>)[0]!.content).toEqual([
      { type: 'tool_use', id: 't1', name: 'f', input: { value: [1, 2] } },
      { type: 'tool_use', id: 't2', name: 'f', input: { _raw: '{"broken":' } },
    ]);
  });

  it('maps tool choices: required to any, none to none, a name to tool', () => {
    const choice = (toolChoice: CanonicalRequest['toolChoice']) => encode(userRequest('x', { tools, toolChoice })).tool_choice;
    expect(choice('required')).toEqual({ type: 'any' });
    expect(choice('none')).toEqual({ type: 'none' });
    expect(choice({ name: 'list_dir' })).toEqual({ type: 'tool', name: 'list_dir' });
    expect(choice(undefined)).toBeUndefined();
  });

  it('sets stream only when streaming and defaults max_tokens to 8192', () => {
    expect(encode(userRequest(), true)).toEqual({
      model: 'claude-sonnet-4-5-20250929',
      max_tokens: 8192,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello', cache_control: EPHEMERAL }] }],
      stream: true,
    });
    expect(encode(userRequest(), false)).not.toHaveProperty('stream');
  });

  it('forwards a messages forward body with the model renamed', () => {
    const body = { model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], system: [{ type: 'text', text: 's', cache_control: { type: 'ephemeral' } }], context_management: { edits: [] } };
    expect(encode(userRequest('hi', { forwardBody: { format: 'messages', body } }), true)).toEqual({ ...body, model: 'claude-sonnet-4-5-20250929', stream: true });
  });

  describe('thinking', () => {
    it('turns an effort into a budget and drops temperature and top_p', () => {
      const body = encode(userRequest('x', { reasoningEffort: 'medium', maxOutputTokens: 16_000, temperature: 0.3, topP: 0.5 }));
      expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 8192 });
      expect(body).not.toHaveProperty('temperature');
      expect(body).not.toHaveProperty('top_p');
    });

    it('shrinks the budget to fit under max_tokens', () => {
      expect(encode(userRequest('x', { reasoningEffort: 'high', maxOutputTokens: 4000 })).thinking).toEqual({ type: 'enabled', budget_tokens: 3999 });
      expect(encode(userRequest('x', { reasoningEffort: 'medium' }))).toMatchObject({ max_tokens: 8192, thinking: { type: 'enabled', budget_tokens: 8191 } });
    });

    it('uses an explicit budget over the effort', () => {
      expect(encode(userRequest('x', { reasoningBudget: 3000, reasoningEffort: 'high', maxOutputTokens: 10_000 })).thinking).toEqual({ type: 'enabled', budget_tokens: 3000 });
    });

    it('stays off when the minimum budget cannot fit, and keeps temperature', () => {
      const body = encode(userRequest('x', { reasoningEffort: 'low', maxOutputTokens: 1024, temperature: 0.3 }));
      expect(body).not.toHaveProperty('thinking');
      expect(body.temperature).toBe(0.3);
    });

    it('stays off when tool_choice forces a tool', () => {
      expect(encode(userRequest('x', { reasoningEffort: 'medium', tools, toolChoice: 'required' }))).not.toHaveProperty('thinking');
      expect(encode(userRequest('x', { reasoningEffort: 'medium', tools, toolChoice: { name: 'list_dir' } }))).not.toHaveProperty('thinking');
      expect(encode(userRequest('x', { reasoningEffort: 'medium', tools, toolChoice: 'auto' }))).toHaveProperty('thinking');
    });

    it('stays off when the last assistant tool-use turn has no signed reasoning', () => {
      const request = userRequest('', { tools, reasoningEffort: 'medium', messages: toolTurn([{ type: 'reasoning', text: 'unsigned' }, listCall]) });
      expect(encode(request)).not.toHaveProperty('thinking');
    });

    it('stays on, with the signed thinking replayed first, when the tool-use turn kept it', () => {
      const request = userRequest('', { tools, reasoningEffort: 'medium', messages: toolTurn([{ type: 'reasoning', text: 'plan', providerMetadata: { anthropic: { signature: 'sig-1' } } }, listCall]) });
      const body = encode(request);
      expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 8191 });
      expect((body.messages as Array<{ content: unknown[] }>)[1]!.content[0]).toEqual({ type: 'thinking', thinking: 'plan', signature: 'sig-1' });
    });

    it('stays on when the tool-use turn kept redacted thinking', () => {
      const request = userRequest('', { tools, reasoningEffort: 'medium', messages: toolTurn([{ type: 'reasoning', text: '', providerMetadata: { anthropic: { redactedData: 'opaque' } } }, listCall]) });
      expect(encode(request)).toHaveProperty('thinking');
    });

    it('stays off when the tool-use turn kept only reasoning another upstream sealed', () => {
      // That reasoning is dropped from the turn, so the turn reaches Anthropic without a thinking block.
      const request = userRequest('', { tools, reasoningEffort: 'medium', messages: toolTurn([{ type: 'reasoning', text: 's', providerMetadata: { openai: { encryptedContent: 'gAAAAB-openai' } } }, listCall]) });
      const body = encode(request);
      expect((body.messages as Array<{ content: unknown[] }>)[1]!.content).toEqual([{ type: 'text', text: 's' }, { type: 'tool_use', id: 'toolu_1', name: 'list_dir', input: {} }]);
      expect(body).not.toHaveProperty('thinking');
    });
  });
});

describe('a backend pinned to an anthropic-version', () => {
  // https://platform.claude.com/docs/en/api/migration-2026-10-21: temperature, top_p and top_k are refused from 2026-10-21 on.
  it.each(['2026-10-21', '2027-01-01'])('%s: sampling settings are left out and named in a warning, thinking kept', (version) => {
    const request = userRequest('x', { temperature: 0.3, topP: 0.5, topK: 5, reasoningEffort: 'medium', maxOutputTokens: 16_000 });
    const body = encodeAnthropicRequest(request, 'claude-x', false, { version });
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('top_p');
    expect(body).not.toHaveProperty('top_k');
    expect(body.thinking).toMatchObject({ type: 'enabled' });
    expect(request.backendWarnings).toEqual([`temperature, top_p, top_k not sent: this backend is pinned to anthropic-version ${version}, which has no sampling settings.`]);
  });

  it('2023-06-01, or no pin: sampling settings are sent as before', () => {
    for (const options of [{ version: '2023-06-01' }, {}]) {
      const body = encodeAnthropicRequest(userRequest('x', { temperature: 0.3, topP: 0.5 }), 'claude-x', false, options);
      expect(body).toMatchObject({ temperature: 0.3, top_p: 0.5 });
    }
  });
});
