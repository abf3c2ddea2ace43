import { describe, expect, it } from 'vitest';
import { decodeAnthropicStream } from '../../../src/backends/anthropic/decode-stream.js';
import { decodeSse } from '../../../src/backends/http/sse-decoder.js';
import { collectReply } from '../../../src/core/collect-reply.js';
import type { StreamEvent } from '../../../src/core/stream-events.js';
import { collect, collectUntilThrow, evenPieces, expectRouterError, fixtureBytes, fixtureFrames, fixtureJson, flat, pieces } from './support.js';

const wire = (name: string) => `wire/anthropic/${name}.sse`;
const golden = (name: string) => fixtureJson<StreamEvent[]>(`expected/anthropic/${name}.events.json`);
const decode = (name: string) => collect(flat(decodeAnthropicStream('claude', fixtureFrames(wire(name)))));
const decodeText = (text: string) => collectUntilThrow(flat(decodeAnthropicStream('claude', decodeSse(pieces(new TextEncoder().encode(text))))));

const frame = (payload: Record<string, unknown>) => `event: ${String(payload.type)}\ndata: ${JSON.stringify(payload)}\n\n`;
const messageStart = frame({
  type: 'message_start',
  message: { id: 'msg_x', type: 'message', role: 'assistant', content: [], model: 'claude-sonnet-4-5', stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } },
});

describe('anthropic decodeAnthropicStream', () => {
  it('decodes a text block and ignores ping events wherever they fall', async () => {
    expect(await decode('stream-text')).toEqual(golden('stream-text'));
  });

  it('decodes thinking with its signature, then text, then tool_use input in many fragments', async () => {
    expect(await decode('stream-thinking-tool')).toEqual(golden('stream-thinking-tool'));
  });

  it('collects the tool input fragments into the exact JSON Anthropic streamed', async () => {
    const reply = await collectReply(decodeAnthropicStream('claude', fixtureFrames(wire('stream-thinking-tool'))));
    expect(reply.content.at(-1)).toEqual({
      type: 'tool-call',
      id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
      name: 'get_weather',
      arguments: '{"location": "Paris, France", "unit": "celsius"}',
    });
    expect(reply.content[0]).toMatchObject({ type: 'reasoning', text: 'The user wants the weather in Paris.' });
  });

  it('decodes the same events when the bytes arrive three at a time', async () => {
    const frames = decodeSse(evenPieces(fixtureBytes(wire('stream-thinking-tool')), 3));
    expect(await collect(flat(decodeAnthropicStream('claude', frames)))).toEqual(golden('stream-thinking-tool'));
  });

  it('turns redacted_thinking into an empty reasoning block carrying the data', async () => {
    expect(await decode('stream-redacted-thinking')).toEqual(golden('stream-redacted-thinking'));
  });

  it('counts cache reads in input tokens from message_start and message_delta', async () => {
    expect(await decode('stream-cache-usage')).toEqual(golden('stream-cache-usage'));
  });

  it('keeps input and cached tokens from message_start when message_delta reports only output', async () => {
    const text =
      frame({
        type: 'message_start',
        message: { id: 'msg_c', type: 'message', role: 'assistant', content: [], usage: { input_tokens: 5, cache_read_input_tokens: 900, cache_creation_input_tokens: 100, output_tokens: 1 } },
      }) +
      frame({ type: 'message_delta', delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage: { output_tokens: 64 } }) +
      frame({ type: 'message_stop' });
    const { items, error } = await decodeText(text);
    expect(error).toBeUndefined();
    expect(items.at(-1)).toEqual({
      type: 'finish',
      reason: 'length',
      finish: { unified: 'length', raw: 'max_tokens' },
      providerMetadata: { anthropic: { stopReason: 'max_tokens' } },
      usage: {
        inputTokens: 1005,
        outputTokens: 64,
        cachedInputTokens: 900,
        cacheWriteInputTokens: 100,
        raw: { input_tokens: 5, cache_read_input_tokens: 900, cache_creation_input_tokens: 100, output_tokens: 64 },
      },
    });
  });

  it('throws a 503 overloaded error for an overloaded_error event, after the events before it', async () => {
    const { items, error } = await collectUntilThrow(flat(decodeAnthropicStream('claude', fixtureFrames(wire('stream-overloaded')))));
    expect(items).toEqual([
      { type: 'start', id: 'msg_01Lk7bN2cXvq9Rm4Tz6YsWdE', usage: { inputTokens: 30, outputTokens: 1, raw: expect.objectContaining({ input_tokens: 30 }) } },
      { type: 'text-start' },
      { type: 'text-delta', text: 'Partial' },
    ]);
    expect(expectRouterError(error, 503, 'overloaded').message).toBe("Backend 'claude' failed mid-stream: Overloaded");
  });

  it('throws a 502 for any other error event', async () => {
    const { error } = await decodeText(messageStart + frame({ type: 'error', error: { type: 'api_error', message: 'Internal server error' } }));
    expect(expectRouterError(error, 502, 'upstream').message).toBe("Backend 'claude' failed mid-stream: Internal server error");
  });

  it('throws a 502 when the stream ends without message_stop', async () => {
    const { items, error } = await collectUntilThrow(flat(decodeAnthropicStream('claude', fixtureFrames(wire('stream-no-stop')))));
    expect(items.map((event) => event.type)).toEqual(['start', 'text-start', 'text-delta', 'text-end']);
    expect(expectRouterError(error, 502, 'upstream').message).toBe("Backend 'claude' ended the stream before message_stop.");
  });

  it('throws a 502 on an event that is not valid JSON', async () => {
    const { error } = await decodeText(messageStart + 'event: content_block_start\ndata: {"type":"content_block_start","index":0,\n\n');
    expectRouterError(error, 502, 'upstream');
  });

  it('keeps server-tool blocks whole for a Messages client, names them in the finish warnings for any other, and ignores unknown event types', async () => {
    const text =
      messageStart +
      frame({ type: 'content_block_start', index: 0, content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_fetch', input: {} } }) +
      frame({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"url":"x"}' } }) +
      frame({ type: 'content_block_stop', index: 0 }) +
      frame({ type: 'some_future_event', detail: 1 }) +
      frame({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 7 } }) +
      frame({ type: 'message_stop' });
    const { items } = await decodeText(text);
    expect(items).toEqual([
      { type: 'start', id: 'msg_x', usage: { inputTokens: 10, outputTokens: 1, raw: { input_tokens: 10, output_tokens: 1 } } },
      {
        type: 'finish',
        reason: 'stop',
        finish: { unified: 'stop', raw: 'end_turn' },
        providerMetadata: {
          anthropic: {
            stopReason: 'end_turn',
            trailingBlocks: [
              {
                block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_fetch', input: {} },
                deltas: [{ type: 'input_json_delta', partial_json: '{"url":"x"}' }],
              },
            ],
            relayedBlockWarnings: ["The upstream's server_tool_use content blocks have no form in the router's canonical reply and were left out."],
          },
        },
        usage: { inputTokens: 10, outputTokens: 7, raw: { input_tokens: 10, output_tokens: 7 } },
        warnings: ["The upstream's server_tool_use content blocks have no form in the router's canonical reply and were left out."],
      },
    ]);
  });

  it('keeps unread message_delta fields, citations, and a server-tool block on the next block start', async () => {
    const results = [{ type: 'dangerous_tool_use', status: { type: 'available', tool_uses: { toolu_1: { type: 'evaluated', outcome: 'not_flagged' } } } }];
    const citation = { type: 'web_search_result_location', url: 'https://e.com', title: 'E', encrypted_index: 'x', cited_text: 'c' };
    const text =
      messageStart +
      frame({ type: 'content_block_start', index: 0, content_block: { type: 'web_fetch_tool_result', tool_use_id: 's1', content: {} } }) +
      frame({ type: 'content_block_stop', index: 0 }) +
      frame({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }) +
      frame({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hi' } }) +
      frame({ type: 'content_block_delta', index: 1, delta: { type: 'citations_delta', citation } }) +
      frame({ type: 'content_block_stop', index: 1 }) +
      frame({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null, safeguard_results: results }, usage: { output_tokens: 7 }, context_management: { applied_edits: [] } }) +
      frame({ type: 'message_stop' });
    const { items } = await decodeText(text);
    expect(items[1]).toEqual({
      type: 'text-start',
      providerMetadata: { anthropic: { precedingBlocks: [{ block: { type: 'web_fetch_tool_result', tool_use_id: 's1', content: {} }, deltas: [] }] } },
    });
    // Anthropic's own citations ride along for a Messages client; the canonical ones serve every other.
    expect(items[3]).toEqual({ type: 'text-end', citations: [{ url: 'https://e.com', title: 'E', citedText: 'c' }], providerMetadata: { anthropic: { citations: [citation] } } });
    const finish = items.at(-1) as Extract<StreamEvent, { type: 'finish' }>;
    expect(finish.providerMetadata?.anthropic).toMatchObject({
      messageDeltaExtra: { safeguard_results: results },
      messageDeltaEventExtra: { context_management: { applied_edits: [] } },
    });
  });
});
