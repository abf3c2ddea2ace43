import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/core/stream-events.js';
import type { EncodeContext } from '../../src/formats/client-format.js';
import { decodeResponsesRequest, type ResponsesOptions } from '../../src/formats/responses/decode-request.js';
import { encodeResponsesStream } from '../../src/formats/responses/encode-stream.js';

const MODEL = 'svc.intelligent-basic';

function context(): EncodeContext<ResponsesOptions> {
  const decoded = decodeResponsesRequest({ model: MODEL, input: 'hi' }, { secret: 's' });
  return {
    requestId: 'req_pieces',
    model: MODEL,
    created: 1_750_000_000,
    options: decoded.options,
    request: decoded.request,
    secret: 's',
    svcMeta: () => ({
      request_id: 'req_pieces',
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

async function pieces(events: StreamEvent[]): Promise<string[]> {
  async function* one(): AsyncGenerator<StreamEvent[]> {
    yield events;
  }
  const out: string[] = [];
  for await (const piece of encodeResponsesStream(one(), context())) out.push(piece);
  return out;
}

describe('Responses stream encoder with a long answer', () => {
  it('hands on the events that repeat the whole answer in slices, never the answer whole in one piece', async () => {
    const delta = 'wörd🙂 '.repeat(62_500); // 500,000 characters
    const whole = delta.repeat(4);
    const events: StreamEvent[] = [
      { type: 'start' },
      { type: 'text-start' },
      ...Array.from({ length: 4 }, (): StreamEvent => ({ type: 'text-delta', text: delta })),
      { type: 'text-end' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 3, outputTokens: 400_000 } },
    ];
    const out = await pieces(events);
    // The answer is 2,000,000 characters and goes out five times (deltas, three done events, the terminal event): no piece holds more than about 1 MiB of it.
    for (const piece of out) expect(piece.length).toBeLessThan(1024 * 1024 + delta.length + 4096);
    // And together they are the same grammar: every frame whole, in sequence, the answer in each done event.
    const frames = out
      .join('')
      .slice(0, -2)
      .split('\n\n')
      .map((frame) => JSON.parse(frame.split('\n')[1]!.slice('data: '.length)));
    expect(frames.map((frame) => frame.sequence_number)).toEqual(frames.map((_, i) => i));
    expect(frames.map((frame) => frame.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array.from({ length: 4 }, () => 'response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(frames[8].text).toBe(whole);
    expect(frames[9].part.text).toBe(whole);
    expect(frames[10].item.content[0].text).toBe(whole);
    expect(frames[11].response.output[0].content[0].text).toBe(whole);
  });
});
