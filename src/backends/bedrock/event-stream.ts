import { crc32 } from 'node:zlib';
import { RouterError } from '../../core/errors.js';

/**
 * The `application/vnd.amazon.eventstream` framing Bedrock streams in
 * (https://docs.aws.amazon.com/transcribe/latest/dg/streaming-setting-up.html#streaming-event-stream):
 * each message is a 12-byte prelude (total length, headers length, CRC32 of those 8 bytes), its
 * headers, its payload and a CRC32 of everything before it, all integers big-endian. A message may
 * arrive split across chunks or several in one; a bad checksum or length is a 502, not a guess.
 */

export type HeaderValue = string | number | bigint | boolean | Buffer;

export interface EventStreamMessage {
  headers: Record<string, HeaderValue>;
  payload: Buffer;
}

const PRELUDE = 12;
const TRAILER = 4;
/** Beyond this one message is no chat event; stop rather than buffer without end. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

const broken = (backend: string, what: string): RouterError => new RouterError(502, 'upstream', `Backend '${backend}' sent a broken event-stream message: ${what}.`);

/** Decodes messages from a body's chunks, one batch per chunk that completed any. */
export async function* decodeEventStream(backend: string, body: AsyncIterable<Uint8Array>, maxMessageBytes = MAX_MESSAGE_BYTES): AsyncGenerator<EventStreamMessage[]> {
  let buffered = Buffer.alloc(0);
  for await (const chunk of body) {
    buffered = buffered.length ? Buffer.concat([buffered, chunk]) : Buffer.from(chunk);
    const batch: EventStreamMessage[] = [];
    let offset = 0;
    while (buffered.length - offset >= PRELUDE) {
      const total = buffered.readUInt32BE(offset);
      const headersLength = buffered.readUInt32BE(offset + 4);
      if (crc32(buffered.subarray(offset, offset + 8)) !== buffered.readUInt32BE(offset + 8)) {
        if (batch.length) yield batch;
        throw broken(backend, 'its prelude checksum does not match');
      }
      if (total < PRELUDE + TRAILER + headersLength || total > maxMessageBytes) {
        if (batch.length) yield batch;
        throw broken(backend, `a length of ${total} bytes`);
      }
      if (buffered.length - offset < total) break;
      const message = buffered.subarray(offset, offset + total);
      if (crc32(message.subarray(0, total - TRAILER)) !== message.readUInt32BE(total - TRAILER)) {
        if (batch.length) yield batch;
        throw broken(backend, 'its message checksum does not match');
      }
      let headers;
      try {
        headers = readHeaders(message.subarray(PRELUDE, PRELUDE + headersLength));
      } catch {
        if (batch.length) yield batch;
        throw broken(backend, 'its headers do not parse');
      }
      // A copy: the payload outlives the buffer it came in.
      batch.push({ headers, payload: Buffer.from(message.subarray(PRELUDE + headersLength, total - TRAILER)) });
      offset += total;
    }
    buffered = offset ? buffered.subarray(offset) : buffered;
    if (batch.length) yield batch;
  }
  if (buffered.length) throw broken(backend, `the stream ended ${buffered.length} bytes into a message`);
}

/** Headers: a name (1-byte length), a type byte, and a value whose form the type sets. */
function readHeaders(bytes: Buffer): Record<string, HeaderValue> {
  // No prototype: header names come from the upstream.
  const headers: Record<string, HeaderValue> = Object.create(null);
  let at = 0;
  const need = (n: number): void => {
    if (at + n > bytes.length) throw new RangeError('header past its end');
  };
  while (at < bytes.length) {
    need(1);
    const nameLength = bytes[at++]!;
    need(nameLength + 1);
    const name = bytes.toString('utf8', at, at + nameLength);
    at += nameLength;
    const type = bytes[at++]!;
    let value: HeaderValue;
    switch (type) {
      case 0:
      case 1:
        value = type === 0;
        break;
      case 2:
        need(1);
        value = bytes.readInt8(at);
        at += 1;
        break;
      case 3:
        need(2);
        value = bytes.readInt16BE(at);
        at += 2;
        break;
      case 4:
        need(4);
        value = bytes.readInt32BE(at);
        at += 4;
        break;
      case 5:
      case 8: // timestamp: milliseconds since the epoch
        need(8);
        value = bytes.readBigInt64BE(at);
        at += 8;
        break;
      case 6:
      case 7: {
        need(2);
        const length = bytes.readUInt16BE(at);
        at += 2;
        need(length);
        value = type === 7 ? bytes.toString('utf8', at, at + length) : Buffer.from(bytes.subarray(at, at + length));
        at += length;
        break;
      }
      case 9:
        need(16);
        value = Buffer.from(bytes.subarray(at, at + 16));
        at += 16;
        break;
      default:
        throw new RangeError(`header type ${type}`);
    }
    headers[name] = value;
  }
  return headers;
}
