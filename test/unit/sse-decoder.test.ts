import { describe, expect, it } from 'vitest';
import { decodeSse, type SseFrame } from '../../src/backends/http/sse-decoder.js';

async function* bytes(...pieces: Array<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  for (const piece of pieces) yield typeof piece === 'string' ? new TextEncoder().encode(piece) : piece;
}

async function collect(source: AsyncIterable<Uint8Array>): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  for await (const batch of decodeSse(source)) frames.push(...batch);
  return frames;
}

describe('decodeSse', () => {
  it('reads event and data lines, frames ending at a blank line', async () => {
    expect(await collect(bytes('event: ping\ndata: {"type":"ping"}\n\ndata: 2\n\n'))).toEqual([
      { event: 'ping', data: '{"type":"ping"}' },
      { data: '2' },
    ]);
  });

  it('joins multi-line data, skips comments, accepts CRLF and CR', async () => {
    expect(await collect(bytes(': keep-alive\r\ndata: a\r\ndata: b\r\n\r\ndata: c\r\rdata:d\n\n'))).toEqual([{ data: 'a\nb' }, { data: 'c' }, { data: 'd' }]);
  });

  it('reassembles frames and CRLF pairs split across chunks', async () => {
    expect(await collect(bytes('da', 'ta: hel', 'lo\r', '\n\r', '\ndata: x\n', '\n'))).toEqual([{ data: 'hello' }, { data: 'x' }]);
  });

  it('reassembles a multi-byte character split between chunks', async () => {
    const encoded = new TextEncoder().encode('data: 日本🙂\n\n');
    expect(await collect(bytes(encoded.slice(0, 8), encoded.slice(8, 11), encoded.slice(11)))).toEqual([{ data: '日本🙂' }]);
  });

  it('yields a last frame that ends without a blank line', async () => {
    expect(await collect(bytes('data: [DONE]'))).toEqual([{ data: '[DONE]' }]);
  });
});
