import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeSse } from '../../../src/backends/http/sse-decoder.js';
import { decodeResponsesReply } from '../../../src/backends/openai-responses/decode-reply.js';
import { decodeResponsesStream } from '../../../src/backends/openai-responses/decode-stream.js';
import { responsesForwardTap } from '../../../src/backends/openai-responses/forward-tap.js';
import type { CanonicalRequest } from '../../../src/core/request.js';
import type { StreamEvent } from '../../../src/core/stream-events.js';
import { collect, fixtureFrames, fixtureJson, fixtureText, flat, pieces, userRequest } from './support.js';

/**
 * A server that speaks the Responses API but answers `status: "completed"` when the output reached
 * `max_output_tokens` (llama.cpp's does; OpenAI says `incomplete`): the answer ended at the cap, and
 * every client must be told so, whatever its format.
 */

const wire = (name: string) => `wire/llama-server/${name}`;
const capped = (maxOutputTokens?: number): CanonicalRequest => ({ ...userRequest('hi'), ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }) });

/** A llama.cpp-shaped completed response with this much output, a message and optionally a function call. */
function completed(outputTokens: number, withCall: boolean) {
  return {
    id: 'resp_x',
    object: 'response',
    status: 'completed',
    output: [
      { type: 'message', role: 'assistant', status: 'completed', id: 'msg_x', content: [{ type: 'output_text', text: 'words', annotations: [] }] },
      ...(withCall ? [{ type: 'function_call', id: 'fc_x', call_id: 'call_x', name: 'get_weather', arguments: '{"city":"Oslo"}', status: 'completed' }] : []),
    ],
    usage: { input_tokens: 9, output_tokens: outputTokens, total_tokens: 9 + outputTokens, input_tokens_details: { cached_tokens: 0 } },
  };
}

const event = (payload: { type: string }) => `event: ${payload.type}\ndata: ${JSON.stringify(payload)}\n\n`;

/** The response as a stream: created, each output item added and done, completed. */
const streamOf = (response: ReturnType<typeof completed>) =>
  [
    event({ type: 'response.created', response: { id: 'resp_x', status: 'in_progress' } } as { type: string }),
    ...response.output.flatMap((item) => [event({ type: 'response.output_item.added', item } as { type: string }), event({ type: 'response.output_item.done', item } as { type: string })]),
    event({ type: 'response.completed', response } as { type: string }),
  ].join('');

async function streamFinish(text: string, request: CanonicalRequest) {
  const events = await collect(flat(decodeResponsesStream('llama', decodeSse(pieces(new TextEncoder().encode(text))), request)));
  return (events.at(-1) as Extract<StreamEvent, { type: 'finish' }>).finish;
}

describe('a Responses server that says completed at max_output_tokens', () => {
  it("reads llama-server's own reply and stream at the cap as ended by length", async () => {
    const reply = decodeResponsesReply('llama', fixtureJson(wire('responses-at-cap.json')), capped(8));
    expect(reply.finish).toEqual({ unified: 'length', raw: 'max_output_tokens' });
    expect(reply.finishReason).toBe('length');
    expect(await streamFinish(fixtureText(wire('responses-at-cap.sse')), capped(8))).toEqual({ unified: 'length', raw: 'max_output_tokens' });
  });

  it('ends by length exactly when the output reached the cap sent, and never overrides function calls or an incomplete status', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 4096 }), fc.option(fc.integer({ min: 1, max: 4096 }), { nil: undefined }), fc.boolean(), async (output, cap, withCall) => {
        const body = completed(output, withCall);
        const expected = withCall ? 'tool-calls' : cap !== undefined && output >= cap ? 'length' : 'stop';
        expect(decodeResponsesReply('llama', body, capped(cap)).finishReason).toBe(expected);
        expect((await streamFinish(streamOf(body), capped(cap)))?.unified).toBe(expected);
        const incomplete = { ...body, status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
        expect(decodeResponsesReply('llama', incomplete, capped(cap)).finishReason).toBe('content-filter');
      }),
      { numRuns: 200 },
    );
  });
});

describe('the same, forwarded to a Responses client as the server wrote it', () => {
  /** The tap's notes for the fixture stream, and the terminal frame as the client is to get it. */
  async function terminal(request: CanonicalRequest) {
    const tap = responsesForwardTap.stream('llama', request);
    const frames = (await collect(fixtureFrames(wire('responses-at-cap.sse')))).flat();
    const last = frames.at(-1)!;
    const note = tap.read(last);
    if (note === 'error') throw new Error('the completed event read as an error');
    return { note, frame: note.replacement ?? last };
  }

  it('rewrites response.completed at the cap as response.incomplete for max_output_tokens, keeping everything else', async () => {
    const { note, frame } = await terminal(capped(8));
    expect(note).toMatchObject({ end: true, usage: { inputTokens: 35, outputTokens: 8 } });
    expect(frame.event).toBe('response.incomplete');
    const original = JSON.parse((await collect(fixtureFrames(wire('responses-at-cap.sse')))).flat().at(-1)!.data);
    expect(JSON.parse(frame.data)).toEqual({ ...original, type: 'response.incomplete', response: { ...original.response, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } });

    const body = fixtureJson<Record<string, unknown>>(wire('responses-at-cap.json'));
    expect(JSON.parse(responsesForwardTap.correctedReply!(body, capped(8))!)).toEqual({ ...body, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
  });

  it('passes the frame and the reply as they came below the cap or without one', async () => {
    for (const request of [capped(9), capped()]) {
      expect((await terminal(request)).note.replacement).toBeUndefined();
      expect(responsesForwardTap.correctedReply!(fixtureJson(wire('responses-at-cap.json')), request)).toBeUndefined();
    }
  });
});
