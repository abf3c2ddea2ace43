import { describe, expect, it } from 'vitest';
import { decodeAnthropicReply } from '../../../src/backends/anthropic/decode-reply.js';
import { expectRouterError, fixtureJson } from './support.js';

const decode = (name: string) => decodeAnthropicReply('claude', fixtureJson(`wire/anthropic/${name}.json`));

describe('anthropic decodeAnthropicReply', () => {
  it('reads thinking, redacted_thinking, text and tool_use blocks with cache-inclusive usage', () => {
    expect(decode('reply-thinking-tool')).toEqual(fixtureJson('expected/anthropic/reply-thinking-tool.reply.json'));
  });

  it('maps max_tokens to length', () => {
    expect(decode('reply-text')).toEqual({
      id: 'msg_01Sc5mU8eAyt2Up7Wc9BvZgH',
      content: [{ type: 'text', text: 'Hi! How can I help?' }],
      finishReason: 'length',
      finish: { unified: 'length', raw: 'max_tokens' },
      providerMetadata: { anthropic: { stopReason: 'max_tokens' } },
      usage: { inputTokens: 14, outputTokens: 9, raw: expect.objectContaining({ input_tokens: 14, output_tokens: 9 }) },
    });
  });

  it('treats a body without content as a 502 that says what the upstream reported', () => {
    let thrown: unknown;
    try {
      decode('reply-error');
    } catch (error) {
      thrown = error;
    }
    expect(expectRouterError(thrown, 502, 'upstream').message).toBe("Backend 'claude' answered without message content (it reported an error: Internal server error).");
  });

  it('keeps server-tool blocks by position and unread reply fields for a Messages client, and warns for any other', () => {
    const search = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_fetch', input: { url: 'https://e.com' } };
    const reply = decodeAnthropicReply('claude', {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [search, { type: 'text', text: 'Found.' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 2 },
      safeguard_results: [],
      container: null,
    });
    expect(reply.content).toEqual([{ type: 'text', text: 'Found.' }]);
    expect(reply.providerMetadata?.anthropic).toMatchObject({
      placedBlocks: [{ at: 0, block: search, deltas: [] }],
      replyExtra: { safeguard_results: [], container: null },
    });
    expect(reply.warnings).toEqual([expect.stringContaining('server_tool_use')]);
  });
});
