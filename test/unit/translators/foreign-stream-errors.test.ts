import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anthropicForwardTap } from '../../../src/backends/anthropic/forward-tap.js';
import { decodeAnthropicStream } from '../../../src/backends/anthropic/decode-stream.js';
import { decodeSse, type SseFrame } from '../../../src/backends/http/sse-decoder.js';
import { decodeResponsesStream } from '../../../src/backends/openai-responses/decode-stream.js';
import { responsesForwardTap } from '../../../src/backends/openai-responses/forward-tap.js';
import { collect, collectUntilThrow, expectRouterError, fixtureFrames, flat, pieces, userRequest } from './support.js';

/**
 * A server that speaks Messages or Responses may write its in-stream errors its own way
 * (llama.cpp's: `event: error` with `{ code, message, type: "server_error" }` on Messages, a bare
 * `{ "error": { … } }` on Responses). Such a frame is the upstream's error: the translated stream
 * fails with its words, and the forwarding taps hand it to the backend's decoder instead of
 * passing the server's raw (unredacted) frame on to the client.
 */

const wire = (name: string) => `wire/llama-server/${name}`;
const PARSER_ERROR = 'The model produced output that does not match the expected peg-native format';
const framesOf = (text: string) => decodeSse(pieces(new TextEncoder().encode(text)));

type Shape = 'messages' | 'responses';
const decoders = {
  messages: (frames: AsyncIterable<SseFrame[]>) => decodeAnthropicStream('llama', frames),
  responses: (frames: AsyncIterable<SseFrame[]>) => decodeResponsesStream('llama', frames, userRequest()),
};
const taps = { messages: anthropicForwardTap, responses: responsesForwardTap };

/** The ways a server may write an error on a stream of this format besides the format's own. */
function foreignFrames(message: string): string[] {
  const body = { code: 500, message, type: 'server_error' };
  return [`event: error\ndata: ${JSON.stringify(body)}\n\n`, `data: ${JSON.stringify({ error: body })}\n\n`, `event: error\ndata: ${JSON.stringify({ error: body })}\n\n`];
}

const START: Record<Shape, string> = {
  messages: `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], usage: { input_tokens: 3, output_tokens: 0 } } })}\n\n`,
  responses: `event: response.created\ndata: ${JSON.stringify({ type: 'response.created', response: { id: 'resp_1', status: 'in_progress' } })}\n\n`,
};

describe.each(['messages', 'responses'] as const)('a %s stream with an error in the server\'s own shape', (shape) => {
  it("fails with llama-server's words, read from its own bytes", async () => {
    const { error } = await collectUntilThrow(flat(decoders[shape](fixtureFrames(wire(`${shape}-stream-parser-error.sse`)))));
    expect(expectRouterError(error, 502, 'upstream').message).toBe(`Backend 'llama' failed mid-stream: ${PARSER_ERROR}`);
  });

  it('fails with the message for any such frame, and the tap hands the frame to the decoder rather than to the client', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 40 }).filter((text) => text.trim() !== ''), fc.nat(2), async (message, which) => {
        const frame = foreignFrames(message)[which]!;
        const { error } = await collectUntilThrow(flat(decoders[shape](framesOf(START[shape] + frame))));
        expect(expectRouterError(error, 502, 'upstream').message).toContain('failed mid-stream');
        const [parsed] = (await collect(framesOf(frame))).flat();
        expect(taps[shape].stream('llama', userRequest()).read(parsed!)).toBe('error');
      }),
      { numRuns: 100 },
    );
  });

  it('still passes event types it does not know that are no error', async () => {
    const [unknown] = (await collect(framesOf(`event: future_thing\ndata: ${JSON.stringify({ type: shape === 'messages' ? 'future_thing' : 'response.future_thing', detail: { type: 'x' } })}\n\n`))).flat();
    const note = taps[shape].stream('llama', userRequest()).read(unknown!);
    // Passed on as it is: no error, no end, nothing replaced (a tap may say what type it read).
    expect(note).toMatchObject({ outputChars: 0 });
    expect(Object.keys(note).filter((key) => key !== 'outputChars' && key !== 'type')).toEqual([]);
  });
});
