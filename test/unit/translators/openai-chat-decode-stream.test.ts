import { describe, expect, it } from 'vitest';
import { decodeChatStream } from '../../../src/backends/openai-chat/decode-stream.js';
import { decodeSse } from '../../../src/backends/http/sse-decoder.js';
import { collectReply } from '../../../src/core/collect-reply.js';
import type { StreamEvent } from '../../../src/core/stream-events.js';
import {
  collect,
  collectUntilThrow,
  evenPieces,
  expectRouterError,
  fixtureBytes,
  fixtureFrames,
  fixtureJson,
  flat,
  pieces,
  userRequest,
} from './support.js';

const wire = (name: string) => `wire/openai-chat/${name}.sse`;
const golden = (name: string) => fixtureJson<StreamEvent[]>(`expected/openai-chat/${name}.events.json`);
const decode = (name: string, cuts?: number[]) => collect(flat(decodeChatStream('oai', fixtureFrames(wire(name), cuts), userRequest())));

describe('openai-chat decodeChatStream', () => {
  it('turns plain text chunks into one text block and estimates usage when none is sent', async () => {
    expect(await decode('stream-text')).toEqual(golden('stream-text'));
  });

  it('keys two parallel tool calls by index and forwards every argument fragment', async () => {
    expect(await decode('stream-parallel-tool-calls')).toEqual(golden('stream-parallel-tool-calls'));
  });

  it('assembles the parallel calls into complete JSON arguments', async () => {
    const reply = await collectReply(decodeChatStream('oai', fixtureFrames(wire('stream-parallel-tool-calls')), userRequest()));
    expect(reply.content).toEqual([
      { type: 'tool-call', id: 'call_rV3kQm8XwZp2LtN6yHbJ4sCd', name: 'get_weather', arguments: '{"location":"Paris, France"}' },
      { type: 'tool-call', id: 'call_Gd7nYt2MfKq9RxW3pLs5vBcE', name: 'get_weather', arguments: '{"location":"Tōkyō, 日本"}' },
    ]);
    expect(reply.finishReason).toBe('tool-calls');
  });

  it('keeps interleaved argument deltas with the call their index names', async () => {
    expect(await decode('stream-interleaved-tool-calls')).toEqual(golden('stream-interleaved-tool-calls'));
  });

  it('closes the reasoning block before content starts and reads reasoning usage', async () => {
    expect(await decode('stream-reasoning')).toEqual(golden('stream-reasoning'));
  });

  it('skips empty content and empty deltas without opening extra blocks', async () => {
    expect(await decode('stream-empty-content')).toEqual(golden('stream-empty-content'));
  });

  it('decodes CJK, emoji and JSON surrogate escapes', async () => {
    expect(await decode('stream-unicode')).toEqual(golden('stream-unicode'));
  });

  it('reassembles multi-byte characters cut between network pieces', async () => {
    const bytes = fixtureBytes(wire('stream-unicode'));
    const text = new TextDecoder().decode(bytes);
    const byteOffset = (search: string) => new TextEncoder().encode(text.slice(0, text.indexOf(search))).length;
    // Cut inside ん (3 bytes), inside 👋 (4 bytes), inside the skin-tone modifier and inside 你.
    const cuts = [byteOffset('んに') + 1, byteOffset('👋') + 2, byteOffset('🏽') + 3, byteOffset('你') + 1];
    expect(await decode('stream-unicode', cuts)).toEqual(golden('stream-unicode'));
  });

  it('decodes the same events when every byte arrives on its own', async () => {
    const frames = decodeSse(evenPieces(fixtureBytes(wire('stream-unicode')), 1));
    expect(await collect(flat(decodeChatStream('oai', frames, userRequest())))).toEqual(golden('stream-unicode'));
  });

  it('takes usage (with cached tokens) from a trailing chunk whose choices are empty', async () => {
    expect(await decode('stream-usage-chunk')).toEqual(golden('stream-usage-chunk'));
  });

  it('throws a 502 when the stream ends with neither finish_reason nor [DONE]', async () => {
    const { items, error } = await collectUntilThrow(flat(decodeChatStream('oai', fixtureFrames(wire('stream-truncated')), userRequest())));
    expect(items.map((event) => event.type)).toEqual(['start', 'text-start', 'text-delta', 'text-delta']);
    expect(expectRouterError(error, 502, 'upstream').message).toBe("Backend 'oai' ended the stream before it finished.");
  });

  it('throws a 502 on a chunk that is not valid JSON', async () => {
    const { items, error } = await collectUntilThrow(flat(decodeChatStream('oai', fixtureFrames(wire('stream-invalid-json')), userRequest())));
    expect(items).toEqual([
      { type: 'start', id: 'chatcmpl-BqT9iC4hVw8zQ2rOd5YtUe1aBgLm', usage: { inputTokens: 3, outputTokens: 0 } },
      { type: 'text-start' },
      { type: 'text-delta', text: 'Hel' },
    ]);
    expect(expectRouterError(error, 502, 'upstream').message).toBe("Backend 'oai' sent a stream event that is not valid JSON.");
  });

  it('throws a 502 carrying the upstream message when an error object replaces a chunk', async () => {
    const { items, error } = await collectUntilThrow(flat(decodeChatStream('oai', fixtureFrames(wire('stream-error-chunk')), userRequest())));
    expect(items.map((event) => event.type)).toEqual(['start', 'text-start', 'text-delta']);
    expect(expectRouterError(error, 502, 'upstream').message).toContain('The server had an error while processing your request');
  });

  it('accepts a stream that has a finish_reason but was closed before [DONE]', async () => {
    const bytes = fixtureBytes(wire('stream-text'));
    const text = new TextDecoder().decode(bytes).replace('data: [DONE]\n\n', '');
    const events = await collect(flat(decodeChatStream('oai', decodeSse(pieces(new TextEncoder().encode(text))), userRequest())));
    expect(events).toEqual(golden('stream-text'));
  });

  it('skips the choice-less prompt-filter chunk Azure sends first', async () => {
    const events = await decode('stream-azure');
    expect(events.slice(1)).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', text: 'Hi' },
      { type: 'text-end' },
      { type: 'finish', reason: 'stop', finish: { unified: 'stop', raw: 'stop' }, usage: { inputTokens: 3, outputTokens: 1 } },
    ]);
    expect(events[0]).toMatchObject({ type: 'start', usage: { inputTokens: 3, outputTokens: 0 } });
  });

  it('passes a refusal streamed in delta.refusal on as text', async () => {
    const reply = await collectReply(decodeChatStream('oai', fixtureFrames(wire('stream-refusal')), userRequest()));
    expect(reply.content).toEqual([{ type: 'text', text: "I'm sorry, I cannot help with that." }]);
  });

  it('keeps index-less tool calls that carry different ids apart', async () => {
    const reply = await collectReply(decodeChatStream('gemini', fixtureFrames(wire('stream-indexless-tool-calls')), userRequest()));
    expect(reply.content).toEqual([
      { type: 'tool-call', id: 'function-call-15230184738261', name: 'get_weather', arguments: '{"location":"Sydney"}' },
      { type: 'tool-call', id: 'function-call-15230184738262', name: 'get_weather', arguments: '{"location":"Paris"}' },
    ]);
  });

  it('reports tool-calls as the finish reason when the upstream called tools but said stop', async () => {
    const events = await decode('stream-indexless-tool-calls');
    expect(events.at(-1)).toEqual({
      type: 'finish',
      reason: 'tool-calls',
      finish: { unified: 'tool-calls', raw: 'stop' },
      usage: { inputTokens: 50, outputTokens: 20, raw: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 } },
    });
  });
});
