import { describe, expect, it } from 'vitest';
import { bedrockFrames } from '../../../src/backends/bedrock/bedrock-frames.js';
import { decodeEventStream } from '../../../src/backends/bedrock/event-stream.js';
import { RouterError } from '../../../src/core/errors.js';
import { bedrockChunk, bedrockException, eventStreamMessage } from '../../fakes/event-stream-frames.js';

async function* chunks(...parts: Buffer[]): AsyncGenerator<Buffer> {
  for (const part of parts) yield part;
}

async function collect<T>(batches: AsyncIterable<T[]>): Promise<T[]> {
  const all: T[] = [];
  for await (const batch of batches) all.push(...batch);
  return all;
}

const EVENTS = [
  { type: 'message_start', message: { id: 'msg_1', usage: { input_tokens: 3, output_tokens: 0 } } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Grüße 🌍 東京' } },
  { type: 'message_stop' },
];

describe('the AWS event-stream decoder', () => {
  it('reads a hand-built message: prelude, string headers, payload', async () => {
    const [message] = await collect(decodeEventStream('aws', chunks(eventStreamMessage({ ':event-type': 'chunk', ':message-type': 'event' }, '{"a":1}'))));
    expect(message!.headers[':event-type']).toBe('chunk');
    expect(message!.headers[':message-type']).toBe('event');
    expect(message!.payload.toString()).toBe('{"a":1}');
  });

  it('gives the same events whatever byte the body is split at', async () => {
    const body = Buffer.concat(EVENTS.map(bedrockChunk));
    const whole = await collect(bedrockFrames('aws', chunks(body)));
    expect(whole.map((frame) => JSON.parse(frame.data))).toEqual(EVENTS);
    expect(whole.map((frame) => frame.event)).toEqual(EVENTS.map((event) => event.type));
    for (let at = 1; at < body.length; at++) {
      expect(await collect(bedrockFrames('aws', chunks(body.subarray(0, at), body.subarray(at))))).toEqual(whole);
    }
    // And one byte at a time.
    expect(await collect(bedrockFrames('aws', chunks(...[...body].map((byte) => Buffer.from([byte])))))).toEqual(whole);
  });

  it.each([
    ['prelude', 9, 'prelude checksum'],
    ['message', -2, 'message checksum'],
  ])('refuses a message whose %s checksum does not match, after the messages before it', async (_what, offset, words) => {
    const good = bedrockChunk(EVENTS[0]);
    const bad = bedrockChunk(EVENTS[1]);
    bad[offset < 0 ? bad.length + offset : offset]! ^= 0xff;
    const seen: unknown[] = [];
    const error = await (async () => {
      for await (const batch of bedrockFrames('aws', chunks(good, bad))) seen.push(...batch);
    })().catch((caught: unknown) => caught);
    expect(seen).toHaveLength(1);
    expect(error).toBeInstanceOf(RouterError);
    expect((error as RouterError).status).toBe(502);
    expect((error as Error).message).toContain(words);
  });

  it('says a stream cut inside a message was cut', async () => {
    const body = bedrockChunk(EVENTS[0]);
    await expect(collect(decodeEventStream('aws', chunks(body.subarray(0, body.length - 3))))).rejects.toThrow(/ended \d+ bytes into a message/);
  });

  it('turns an exception message into an Anthropic error event with AWS words', async () => {
    const [frame] = await collect(bedrockFrames('aws', chunks(bedrockException('throttlingException', 'Too many requests, please wait.'))));
    expect(frame!.event).toBe('error');
    expect(JSON.parse(frame!.data)).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'throttlingException: Too many requests, please wait.' } });
  });
});
