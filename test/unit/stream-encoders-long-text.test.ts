import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/core/stream-events.js';
import type { EncodeContext } from '../../src/formats/client-format.js';
import { decodeChatRequest } from '../../src/formats/chat/decode-request.js';
import { encodeChatStream } from '../../src/formats/chat/encode-stream.js';
import { decodeMessagesRequest } from '../../src/formats/messages/decode-request.js';
import { encodeMessagesStream } from '../../src/formats/messages/encode-stream.js';
import { parseSse } from '../helpers/sse-frames.js';

const MODEL = 'svc.intelligent-basic';
const MiB = 1024 * 1024;

function context<Options>(options: Options, request: EncodeContext<Options>['request']): EncodeContext<Options> {
  return {
    requestId: 'req_long',
    model: MODEL,
    created: 1_750_000_000,
    options,
    request,
    secret: 's',
    svcMeta: () => ({
      request_id: 'req_long',
      sku: MODEL,
      backend: 'b',
      upstream_model: 'm',
      attempts: 1,
      latency_ms: 0,
      usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
      remaining_tokens: 0,
    }),
  };
}

async function* one(events: StreamEvent[]): AsyncGenerator<StreamEvent[]> {
  yield events;
}

/** One delta of 3 MiB of text (with characters that need escaping and surrogate pairs), as a single upstream event. */
const long = 'a "quoted" wörd🙂\n'.repeat(Math.ceil((3 * MiB) / 18));
const events = (kind: 'text' | 'reasoning' | 'tool'): StreamEvent[] => [
  { type: 'start' },
  ...((kind === 'text'
    ? [{ type: 'text-start' }, { type: 'text-delta', text: 'short ' }, { type: 'text-delta', text: long }, { type: 'text-end' }]
    : kind === 'reasoning'
      ? [{ type: 'reasoning-start' }, { type: 'reasoning-delta', text: long }, { type: 'reasoning-end', signature: 'sig' }]
      : [{ type: 'tool-call-start', id: 'call_1', name: 'f' }, { type: 'tool-call-delta', id: 'call_1', argumentsDelta: long }, { type: 'tool-call-end', id: 'call_1' }]) as StreamEvent[]),
  { type: 'finish', reason: 'stop', usage: { inputTokens: 1, outputTokens: 2 } },
];

async function collect(pieces: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const piece of pieces) out.push(piece);
  return out;
}

describe('stream encoders with one long delta', () => {
  for (const kind of ['text', 'reasoning', 'tool'] as const) {
    it(`chat: hands a long ${kind} delta on in slices, and the chunks read back the same`, async () => {
      const decoded = decodeChatRequest({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true });
      const out = await collect(encodeChatStream(one(events(kind)), context(decoded.options, decoded.request)));
      // Slices of 1 MiB of text, longer once escaped; the whole delta escaped is over 3.5 million characters.
      for (const piece of out) expect(piece.length).toBeLessThan(1.5 * MiB);
      const deltas = parseSse(out.join(''))
        .filter((frame) => frame.data !== '[DONE]')
        .map((frame) => JSON.parse(frame.data).choices[0]?.delta ?? {});
      const text = deltas.map((delta) => (kind === 'text' ? delta.content : kind === 'reasoning' ? delta.reasoning_content : delta.tool_calls?.[0]?.function?.arguments) ?? '').join('');
      expect(text).toBe(kind === 'text' ? `short ${long}` : long);
    });

    it(`messages: hands a long ${kind} delta on in slices, and the frames read back the same`, async () => {
      const decoded = decodeMessagesRequest({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], stream: true });
      const out = await collect(encodeMessagesStream(one(events(kind)), context(decoded.options, decoded.request)));
      // Slices of 1 MiB of text, longer once escaped; the whole delta escaped is over 3.5 million characters.
      for (const piece of out) expect(piece.length).toBeLessThan(1.5 * MiB);
      const frames = parseSse(out.join('')).filter((frame) => frame.event === 'content_block_delta');
      const text = frames.map((frame) => JSON.parse(frame.data).delta).map((delta) => delta.text ?? delta.thinking ?? delta.partial_json ?? '').join('');
      expect(text).toBe(kind === 'text' ? `short ${long}` : long);
    });
  }
});
