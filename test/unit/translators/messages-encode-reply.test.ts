import { describe, expect, it } from 'vitest';
import { encodeMessagesReply } from '../../../src/formats/messages/encode-reply.js';
import { encodeContext } from './support.js';

describe('messages encodeMessagesReply', () => {
  it('writes signed thinking, Anthropic redacted thinking, text and tool_use blocks', () => {
    const body = encodeMessagesReply(
      {
        content: [
          { type: 'reasoning', text: 'Plan.', providerMetadata: { anthropic: { signature: 'sig-1' } } },
          { type: 'reasoning', text: '', providerMetadata: { anthropic: { redactedData: 'opaque' } } },
          { type: 'text', text: 'Reading.' },
          { type: 'tool-call', id: 'toolu_1', name: 'read_file', arguments: '{"path":"a.ts"}' },
        ],
        finishReason: 'tool-calls',
        usage: { inputTokens: 40, outputTokens: 12, cachedInputTokens: 30 },
      },
      encodeContext({}),
    );
    expect(body).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'svc.test',
      content: [
        { type: 'thinking', thinking: 'Plan.', signature: 'sig-1' },
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'text', text: 'Reading.' },
        { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 30 },
    });
    expect(body.id).toMatch(/^msg_[0-9a-f]{24}$/);
  });

  it("does not present another upstream's encrypted reasoning as a redacted_thinking block", () => {
    const body = encodeMessagesReply(
      {
        content: [
          { type: 'reasoning', text: '', providerMetadata: { openai: { encryptedContent: 'gAAAAB-openai-sealed' } } },
          { type: 'text', text: 'Hi' },
        ],
        finishReason: 'stop',
        usage: { inputTokens: 1, outputTokens: 1 },
      },
      encodeContext({}),
    );
    expect(JSON.stringify(body.content)).not.toContain('gAAAAB-openai-sealed');
    expect(body.content.map((block) => block.type)).not.toContain('redacted_thinking');
  });

  it("puts an Anthropic upstream's server-tool blocks back in place, with its unread fields and without their warning", () => {
    const search = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } };
    const result = { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] };
    const body = encodeMessagesReply(
      {
        content: [{ type: 'text', text: 'Found.' }],
        finishReason: 'stop',
        usage: { inputTokens: 1, outputTokens: 2 },
        warnings: ['left out'],
        providerMetadata: {
          anthropic: {
            placedBlocks: [
              { at: 0, block: search, deltas: [] },
              { at: 1, block: result, deltas: [] },
            ],
            replyExtra: { safeguard_results: [{ type: 'dangerous_tool_use' }] },
            relayedBlockWarnings: ['left out'],
          },
        },
      },
      encodeContext({}),
    );
    expect(body.content).toEqual([search, { type: 'text', text: 'Found.' }, result]);
    expect(body).toHaveProperty('safeguard_results', [{ type: 'dangerous_tool_use' }]);
    expect(body.svc_meta.warnings).toBeUndefined();
  });
});
