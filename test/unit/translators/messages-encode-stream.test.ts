import { describe, expect, it } from 'vitest';
import { RouterError } from '../../../src/core/errors.js';
import type { StreamEvent } from '../../../src/core/stream-events.js';
import { encodeMessagesStream } from '../../../src/formats/messages/encode-stream.js';
import { collect, encodeContext, finishing, fixtureText, framesOf, normaliseIds, replay } from './support.js';

const golden = (name: string) => fixtureText(`expected/messages-client/${name}.sse`);

async function encode(events: StreamEvent[]) {
  const context = encodeContext({});
  const text = (await collect(encodeMessagesStream(finishing(replay(events), context), context))).join('');
  return { text, context };
}

/** Each frame as [event name, parsed data]; fails unless every frame is `event:` then `data:`. */
function parseFrames(text: string): Array<[string, Record<string, unknown>]> {
  return framesOf(text).map((frame) => {
    const match = /^event: ([a-z_]+)\ndata: (.*)$/s.exec(frame);
    if (!match) throw new Error(`frame without an event line: ${frame}`);
    return [match[1]!, JSON.parse(match[2]!) as Record<string, unknown>];
  });
}

const fullTurn: StreamEvent[] = [
  { type: 'start', id: 'upstream', usage: { inputTokens: 50, outputTokens: 0, cachedInputTokens: 20 } },
  { type: 'reasoning-start' },
  { type: 'reasoning-delta', text: 'Plan' },
  { type: 'reasoning-delta', text: ' it.' },
  { type: 'reasoning-end', providerMetadata: { anthropic: { signature: 'sig-1' } } },
  { type: 'reasoning-start' },
  { type: 'reasoning-end', providerMetadata: { anthropic: { redactedData: 'opaque' } } },
  { type: 'text-start' },
  { type: 'text-delta', text: 'Let me look.' },
  { type: 'text-delta', text: '' },
  { type: 'text-end' },
  { type: 'tool-call-start', id: 'toolu_1', name: 'read_file' },
  { type: 'tool-call-delta', id: 'toolu_1', argumentsDelta: '{"path":' },
  { type: 'tool-call-delta', id: 'toolu_1', argumentsDelta: '"a.ts"}' },
  { type: 'tool-call-end', id: 'toolu_1' },
  { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 50, outputTokens: 30, cachedInputTokens: 20 } },
];

describe('messages encodeMessagesStream', () => {
  it('writes the whole Anthropic grammar: thinking with signature, redacted thinking, text, tool_use, message_delta, message_stop', async () => {
    const { text, context } = await encode(fullTurn);
    expect(normaliseIds(text)).toBe(golden('thinking-text-tool'));
    expect(context.finished).toEqual([{ inputTokens: 50, outputTokens: 30, cachedInputTokens: 20 }]);
  });

  it('gives every frame an event line that names its data type', async () => {
    for (const [event, data] of parseFrames((await encode(fullTurn)).text)) expect(data.type).toBe(event);
  });

  it('opens blocks with rising indices and closes each one before the next opens', async () => {
    const frames = parseFrames((await encode(fullTurn)).text);
    const opened = frames.filter(([event]) => event === 'content_block_start').map(([, data]) => data.index);
    const closed = frames.filter(([event]) => event === 'content_block_stop').map(([, data]) => data.index);
    expect(opened).toEqual([0, 1, 2, 3]);
    expect(closed).toEqual([0, 1, 2, 3]);
    let open: unknown;
    for (const [event, data] of frames) {
      if (event === 'content_block_start') {
        expect(open).toBeUndefined();
        open = data.index;
      } else if (event === 'content_block_delta') {
        expect(data.index).toBe(open);
      } else if (event === 'content_block_stop') {
        expect(data.index).toBe(open);
        open = undefined;
      }
    }
  });

  it('makes interleaved parallel tool calls contiguous blocks, each with its own arguments', async () => {
    const { text } = await encode([
      { type: 'start' },
      { type: 'tool-call-start', id: 'call_a', name: 'read_file' },
      { type: 'tool-call-start', id: 'call_b', name: 'list_dir' },
      { type: 'tool-call-delta', id: 'call_a', argumentsDelta: '{"path":' },
      { type: 'tool-call-delta', id: 'call_b', argumentsDelta: '{"dir":"src"}' },
      { type: 'tool-call-delta', id: 'call_a', argumentsDelta: '"a.ts"}' },
      { type: 'tool-call-end', id: 'call_a' },
      { type: 'tool-call-end', id: 'call_b' },
      { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 5, outputTokens: 9 } },
    ]);
    const blocks = parseFrames(text)
      .filter(([event]) => event.startsWith('content_block'))
      .map(([event, data]) => `${event}:${String(data.index)}:${JSON.stringify(data.content_block ?? data.delta ?? null)}`);
    expect(blocks).toEqual([
      'content_block_start:0:{"type":"tool_use","id":"call_a","name":"read_file","input":{}}',
      'content_block_delta:0:{"type":"input_json_delta","partial_json":"{\\"path\\":"}',
      'content_block_delta:0:{"type":"input_json_delta","partial_json":"\\"a.ts\\"}"}',
      'content_block_stop:0:null',
      'content_block_start:1:{"type":"tool_use","id":"call_b","name":"list_dir","input":{}}',
      'content_block_delta:1:{"type":"input_json_delta","partial_json":"{\\"dir\\":\\"src\\"}"}',
      'content_block_stop:1:null',
    ]);
  });

  it('emits a thinking block holding only the signature when reasoning ends without text', async () => {
    const { text } = await encode([
      { type: 'start' },
      { type: 'reasoning-start' },
      { type: 'reasoning-end', providerMetadata: { anthropic: { signature: 'sig-only' } } },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } },
    ]);
    const frames = parseFrames(text).map(([, data]) => data);
    expect(frames.slice(2, 5)).toEqual([
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig-only' } },
      { type: 'content_block_stop', index: 0 },
    ]);
  });

  it('maps finish reasons to stop_reason and reports usage with cache reads apart', async () => {
    const stopReason = async (reason: 'stop' | 'length' | 'content-filter') => {
      const frames = parseFrames((await encode([{ type: 'start' }, { type: 'finish', reason, usage: { inputTokens: 9, outputTokens: 2, cachedInputTokens: 4 } }])).text);
      const delta = frames.find(([event]) => event === 'message_delta')![1];
      expect(delta.usage).toEqual({ input_tokens: 5, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 4 });
      return (delta.delta as { stop_reason: string }).stop_reason;
    };
    expect(await stopReason('stop')).toBe('end_turn');
    expect(await stopReason('length')).toBe('max_tokens');
    expect(await stopReason('content-filter')).toBe('refusal');
  });

  it('closes the open block, then sends an error event and no message_stop, when an error arrives mid-stream', async () => {
    const { text, context } = await encode([
      { type: 'start', usage: { inputTokens: 7, outputTokens: 0 } },
      { type: 'text-start' },
      { type: 'text-delta', text: 'Part' },
      { type: 'error', error: new RouterError(503, 'overloaded', "Backend 'claude' failed mid-stream: Overloaded") },
      { type: 'text-delta', text: 'never sent' },
    ]);
    expect(normaliseIds(text)).toBe(golden('error-mid-stream'));
    expect(context.finished).toEqual([]);
  });

  it('sends only the error event when the stream fails before it starts', async () => {
    const { text } = await encode([{ type: 'error', error: new RouterError(502, 'upstream', 'nothing came back') }]);
    expect(parseFrames(text)).toEqual([['error', { type: 'error', error: { type: 'api_error', message: 'nothing came back' }, request_id: 'req_fixed' }]]);
  });

  it("does not present another upstream's encrypted reasoning as a redacted_thinking block", async () => {
    // What a Responses backend yields for a reasoning item that came back with encrypted_content and no summary.
    const { text } = await encode([
      { type: 'start' },
      { type: 'reasoning-start' },
      { type: 'reasoning-end', providerMetadata: { openai: { encryptedContent: 'gAAAAB-openai-sealed' } } },
      { type: 'text-start' },
      { type: 'text-delta', text: 'Hi' },
      { type: 'text-end' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } },
    ]);
    expect(text).not.toContain('redacted_thinking');
    expect(text).not.toContain('gAAAAB-openai-sealed');
  });

  it("writes an Anthropic upstream's server-tool blocks, citations and unread message_delta fields back in place", async () => {
    const block = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} };
    const results = [{ type: 'dangerous_tool_use', status: { type: 'available', tool_uses: {} } }];
    const warning = 'server_tool_use left out';
    const { text } = await encode([
      { type: 'start', usage: { inputTokens: 5, outputTokens: 0 } },
      { type: 'text-start', providerMetadata: { anthropic: { precedingBlocks: [{ block, deltas: [{ type: 'input_json_delta', partial_json: '{"q":1}' }] }] } } },
      { type: 'text-delta', text: 'Hi' },
      { type: 'text-end', providerMetadata: { anthropic: { citations: [{ type: 'char_location', cited_text: 'c' }] } } },
      {
        type: 'finish',
        reason: 'stop',
        usage: { inputTokens: 5, outputTokens: 2 },
        warnings: [warning],
        providerMetadata: { anthropic: { messageDeltaExtra: { safeguard_results: results }, messageDeltaEventExtra: { context_management: null }, relayedBlockWarnings: [warning] } },
      },
    ]);
    const frames = parseFrames(text).filter(([name]) => name !== 'ping' && name !== 'message_start');
    expect(frames.slice(0, 4).map(([, data]) => data)).toEqual([
      { type: 'content_block_start', index: 0, content_block: block },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"q":1}' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
    ]);
    expect(frames[5]![1]).toEqual({ type: 'content_block_delta', index: 1, delta: { type: 'citations_delta', citation: { type: 'char_location', cited_text: 'c' } } });
    const delta = frames.find(([name]) => name === 'message_delta')![1];
    expect(delta.delta).toEqual({ stop_reason: 'end_turn', stop_sequence: null, safeguard_results: results });
    expect(delta).toHaveProperty('context_management', null);
    expect(JSON.stringify(delta)).not.toContain(warning);
  });
});
