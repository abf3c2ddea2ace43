import { crc32 } from 'node:zlib';

/**
 * One `application/vnd.amazon.eventstream` message with string headers, as AWS frames it: total
 * length, headers length, the prelude's CRC32, headers, payload, the message's CRC32 (big-endian).
 */
export function eventStreamMessage(headers: Record<string, string>, payload: Buffer | string): Buffer {
  const headerBytes = Buffer.concat(
    Object.entries(headers).map(([name, value]) => {
      const nameBytes = Buffer.from(name, 'utf8');
      const valueBytes = Buffer.from(value, 'utf8');
      const head = Buffer.alloc(1 + nameBytes.length + 1 + 2);
      head.writeUInt8(nameBytes.length, 0);
      nameBytes.copy(head, 1);
      head.writeUInt8(7, 1 + nameBytes.length);
      head.writeUInt16BE(valueBytes.length, 2 + nameBytes.length);
      return Buffer.concat([head, valueBytes]);
    }),
  );
  const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload, 'utf8');
  const total = 12 + headerBytes.length + body.length + 4;
  const prelude = Buffer.alloc(12);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(headerBytes.length, 4);
  prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8);
  const withoutCrc = Buffer.concat([prelude, headerBytes, body]);
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(crc32(withoutCrc), 0);
  return Buffer.concat([withoutCrc, trailer]);
}

/** A Bedrock stream chunk: an Anthropic event as base64 JSON bytes, with AWS's padding field. */
export const bedrockChunk = (event: unknown): Buffer =>
  eventStreamMessage({ ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' }, JSON.stringify({ bytes: Buffer.from(JSON.stringify(event)).toString('base64'), p: 'abcdefgh' }));

/** A Bedrock stream exception (throttlingException, modelStreamErrorException …). */
export const bedrockException = (type: string, message: string): Buffer =>
  eventStreamMessage({ ':exception-type': type, ':content-type': 'application/json', ':message-type': 'exception' }, JSON.stringify({ message }));
