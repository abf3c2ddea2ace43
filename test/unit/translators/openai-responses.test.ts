import { describe, expect, it } from 'vitest';
import { decodeSse } from '../../../src/backends/http/sse-decoder.js';
import { decodeResponsesReply } from '../../../src/backends/openai-responses/decode-reply.js';
import { decodeResponsesStream } from '../../../src/backends/openai-responses/decode-stream.js';
import { encodeResponsesRequest } from '../../../src/backends/openai-responses/encode-request.js';
import type { CanonicalRequest } from '../../../src/core/request.js';
import type { StreamEvent } from '../../../src/core/stream-events.js';
import { collect, collectUntilThrow, evenPieces, expectRouterError, fixtureBytes, fixtureFrames, fixtureJson, flat, pieces, userRequest } from './support.js';

const wire = (name: string) => `wire/openai-responses/${name}`;
const decodeText = (text: string) => collectUntilThrow(flat(decodeResponsesStream('resp', decodeSse(pieces(new TextEncoder().encode(text))))));
const frame = (payload: Record<string, unknown>) => `event: ${String(payload.type)}\ndata: ${JSON.stringify(payload)}\n\n`;

describe('openai-responses decodeResponsesStream', () => {
  it('decodes a reasoning summary with its encrypted content, a message and a function call', async () => {
    const events = await collect(flat(decodeResponsesStream('resp', fixtureFrames(wire('stream-reasoning-text-tool.sse')))));
    expect(events).toEqual(fixtureJson<StreamEvent[]>('expected/openai-responses/stream-reasoning-text-tool.events.json'));
  });

  it('decodes the same events when the bytes arrive five at a time', async () => {
    const frames = decodeSse(evenPieces(fixtureBytes(wire('stream-reasoning-text-tool.sse')), 5));
    expect(await collect(flat(decodeResponsesStream('resp', frames)))).toEqual(fixtureJson('expected/openai-responses/stream-reasoning-text-tool.events.json'));
  });

  it('closes open text and finishes with length on response.incomplete', async () => {
    expect(await collect(flat(decodeResponsesStream('resp', fixtureFrames(wire('stream-incomplete.sse')))))).toEqual([
      { type: 'start', id: 'resp_68b1ca10a2b38190e9b3a4c5d6e7f809' },
      { type: 'text-start' },
      { type: 'text-delta', text: 'Once upon a' },
      { type: 'text-end' },
      { type: 'finish', reason: 'length', finish: { unified: 'length', raw: 'max_output_tokens' }, usage: { inputTokens: 9, outputTokens: 16, raw: expect.objectContaining({ total_tokens: 25 }) } },
    ]);
  });

  it('throws a 502 with the upstream message on response.failed', async () => {
    const { items, error } = await collectUntilThrow(flat(decodeResponsesStream('resp', fixtureFrames(wire('stream-failed.sse')))));
    expect(items).toEqual([{ type: 'start', id: 'resp_68b1ca20c4d58190ab0d5e6f7a8b9c0d' }]);
    expect(expectRouterError(error, 502, 'upstream').message).toBe("Backend 'resp' failed mid-stream: The model failed to generate a response.");
  });

  it('throws a 502 on an error event', async () => {
    const { error } = await decodeText(frame({ type: 'error', code: 'rate_limit_exceeded', message: 'Rate limit reached', param: null, sequence_number: 1 }));
    expect(expectRouterError(error, 502, 'upstream').message).toBe("Backend 'resp' failed mid-stream: Rate limit reached");
  });

  it('throws a 502 when the stream ends before response.completed', async () => {
    const text = new TextDecoder().decode(fixtureBytes(wire('stream-reasoning-text-tool.sse')));
    const { items, error } = await decodeText(text.slice(0, text.indexOf('event: response.completed')));
    expect(items.at(-1)).toEqual({ type: 'tool-call-end', id: 'call_Zq8rT2mVn4Lk6Wx1Yb3Jc5Hd' });
    expect(expectRouterError(error, 502, 'upstream').message).toBe("Backend 'resp' ended the stream before response.completed.");
  });
});

describe('openai-responses decodeResponsesReply', () => {
  it('reads reasoning (sealed), message text, function calls and usage', () => {
    expect(decodeResponsesReply('resp', fixtureJson(wire('reply-reasoning-text-tool.json')))).toEqual(
      fixtureJson('expected/openai-responses/reply-reasoning-text-tool.reply.json'),
    );
  });

  it('treats a failed response as a 502', () => {
    let thrown: unknown;
    try {
      decodeResponsesReply('resp', { id: 'resp_x', status: 'failed', output: [], error: { code: 'server_error', message: 'boom' } });
    } catch (error) {
      thrown = error;
    }
    expect(expectRouterError(thrown, 502, 'upstream').message).toBe("Backend 'resp' failed: boom");
  });

  it('treats a body without an output list as a 502', () => {
    expect(() => decodeResponsesReply('resp', { error: { message: 'nope' } })).toThrow(/without an output list/);
  });
});

describe('openai-responses encodeResponsesRequest', () => {
  const conversation: CanonicalRequest = {
    model: 'svc.coder',
    system: [{ type: 'text', text: 'You are terse.' }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather in Paris?' },
          { type: 'image', url: 'https://example.com/map.png' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'anthropic thought', providerMetadata: { anthropic: { signature: 'sig' } } },
          { type: 'reasoning', text: 'summary', providerMetadata: { openai: { encryptedContent: 'gAAAAAB-sealed' } } },
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"location":"Paris"}' },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', callId: 'call_1', content: [{ type: 'text', text: '18°C' }] }] },
      { role: 'system', content: [{ type: 'text', text: 'Use Celsius.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
    ],
    tools: [{ name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } }],
    toolChoice: { name: 'get_weather' },
    parallelToolCalls: false,
    maxOutputTokens: 1000,
    reasoningEffort: 'high',
  };

  it('encodes instructions, input items, tools and controls', () => {
    expect(encodeResponsesRequest(conversation, 'gpt-5', true)).toEqual(fixtureJson('expected/openai-responses/request-conversation.json'));
  });

  it('sets stream false explicitly when not streaming', () => {
    expect(encodeResponsesRequest(userRequest(), 'gpt-5', false)).toEqual({
      model: 'gpt-5',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'Say hello' }] }],
      store: false,
      include: ['reasoning.encrypted_content'],
      stream: false,
    });
  });

  it("sends a client's prompt_cache_key and retention, whatever format the client spoke", () => {
    expect(encodeResponsesRequest(userRequest('hi', { promptCacheKey: 'session-1', promptCacheRetention: '24h' }), 'gpt-5', false)).toMatchObject({ prompt_cache_key: 'session-1', prompt_cache_retention: '24h' });
  });

  it('forwards a responses forward body with the model renamed', () => {
    const body = { model: 'svc.coder', input: 'hi', previous_response_id: 'resp_1', prompt_cache_key: 'k' };
    expect(encodeResponsesRequest(userRequest('hi', { forwardBody: { format: 'responses', body } }), 'gpt-5', true)).toEqual({ ...body, model: 'gpt-5', stream: true });
  });
});
