import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeSse, SSE_LIMITS, type SseFrame, type SseLimits } from '../../src/backends/http/sse-decoder.js';

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

// ---------------------------------------------------------------------------------------------
// Bounds, the byte order mark, and independence from how the bytes were cut

type Outcome = { frames: SseFrame[]; error?: 'line' | 'event' };

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

/** Cuts `bytes` at the given offsets (any order, repeats allowed) into chunks. */
function cut(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const points = [...new Set(offsets.map((offset) => offset % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.subarray(start, point));
    start = point;
  }
  return chunks;
}

async function outcome(chunks: Uint8Array[], limits?: SseLimits): Promise<Outcome> {
  const frames: SseFrame[] = [];
  try {
    for await (const batch of decodeSse(bytes(...chunks), limits)) frames.push(...batch);
  } catch (error) {
    const message = String((error as Error).message);
    expect((error as { status?: number }).status).toBe(502);
    return { frames, error: /event line/.test(message) ? 'line' : /event whose data/.test(message) ? 'event' : (message as never) };
  }
  return { frames };
}

/** The grammar written plainly over the whole text at once: what any chunking must give. */
function reference(text: string, limits: SseLimits): Outcome {
  const frames: SseFrame[] = [];
  let event: string | undefined;
  let data: string[] | undefined;
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  for (const line of source.split(/\r\n|\r|\n/)) {
    if (line.length > limits.maxLineChars) return { frames, error: 'line' };
    if (line === '') {
      if (data) frames.push({ ...(event !== undefined ? { event } : {}), data: data.join('\n') });
      event = data = undefined;
      continue;
    }
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    const value = (colon === -1 ? '' : line.slice(colon + 1)).replace(/^ /, '');
    if (name === 'data') {
      data = [...(data ?? []), value];
      if (data.join('\n').length > limits.maxEventChars) return { frames, error: 'event' };
    } else if (name === 'event') event = value;
  }
  if (data) frames.push({ ...(event !== undefined ? { event } : {}), data: data.join('\n') });
  return { frames };
}

/** Every way of cutting `bytes` in two, and byte by byte. */
function chunkings(bytes: Uint8Array): Uint8Array[][] {
  const all: Uint8Array[][] = [[bytes], cut(bytes, Array.from({ length: bytes.length }, (_, i) => i))];
  for (let i = 1; i < bytes.length; i++) all.push(cut(bytes, [i]));
  return all;
}

describe('decodeSse bounds', () => {
  const small: SseLimits = { maxLineChars: 24, maxEventChars: 40 };

  it('passes a line of exactly the limit and refuses one character more, at every chunking and line ending', async () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const exact = `data: ${'x'.repeat(18)}`; // 24 characters
      const over = `data: ${'x'.repeat(19)}`;
      for (const chunks of chunkings(encode(`data: a${eol}${eol}${exact}${eol}${eol}`))) {
        expect(await outcome(chunks, small)).toEqual({ frames: [{ data: 'a' }, { data: 'x'.repeat(18) }] });
      }
      for (const chunks of chunkings(encode(`data: a${eol}${eol}${over}${eol}${eol}`))) {
        expect(await outcome(chunks, small)).toEqual({ frames: [{ data: 'a' }], error: 'line' });
      }
      // A line that never ends is bounded too.
      for (const chunks of chunkings(encode(`data: a${eol}${eol}${over}`))) {
        expect(await outcome(chunks, small)).toEqual({ frames: [{ data: 'a' }], error: 'line' });
      }
    }
  });

  it('passes an event of exactly the data limit and refuses one character more, at every chunking', async () => {
    // Four data lines of 9 characters joined by three newlines: 39; one more character makes 40, then 41.
    const lines = (extra: string) => `data: 123456789\ndata: 123456789\ndata: 123456789\ndata: 123456789${extra}\n\n`;
    for (const chunks of chunkings(encode(lines('0')))) {
      expect(await outcome(chunks, small)).toEqual({ frames: [{ data: ['123456789', '123456789', '123456789', '1234567890'].join('\n') }] });
    }
    for (const chunks of chunkings(encode(`data: ok\n\n${lines('01')}data: after\n\n`))) {
      expect(await outcome(chunks, small)).toEqual({ frames: [{ data: 'ok' }], error: 'event' });
    }
  });

  it('holds the default 16 MiB line limit exactly, whether the line comes whole or in 64 KiB reads', async () => {
    const limit = SSE_LIMITS.maxLineChars;
    const value = 'y'.repeat(limit - 'data: '.length);
    const exact = encode(`data: ${value}\n\n`);
    const over = encode(`data: ${value}y\n\n`);
    const reads = (buffer: Uint8Array) => cut(buffer, Array.from({ length: Math.ceil(buffer.length / 65536) }, (_, i) => i * 65536));
    for (const chunks of [[exact], reads(exact)]) {
      const result = await outcome(chunks);
      expect(result.error).toBeUndefined();
      expect(result.frames.map((frame) => frame.data.length)).toEqual([value.length]);
    }
    for (const chunks of [[over], reads(over)]) expect(await outcome(chunks)).toEqual({ frames: [], error: 'line' });
  });

  it('bounds the data of one event by default: forty 1 MiB data lines without a blank line are refused', async () => {
    const line = encode(`data: ${'z'.repeat(1024 * 1024 - 7)}\n`);
    const chunks = Array.from({ length: 40 }, () => line);
    expect(await outcome(chunks)).toEqual({ frames: [], error: 'event' });
  });

  it('drops a leading byte order mark, also when it is split across chunks, and only the first', async () => {
    const text = encode('\uFEFFdata: first\n\n\uFEFFdata: second\n\n');
    for (const chunks of chunkings(text)) {
      expect((await outcome(chunks)).frames).toEqual([{ data: 'first' }]);
    }
    expect((await outcome([encode('\uFEFF')])).frames).toEqual([]);
  });

  it('gives the same frames, and fails at the same line, however the stream is cut (random streams and limits)', async () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'é', '日', '🙂', ' ', ':', 'd'), maxLength: 12 });
    const line = fc.oneof(
      text.map((value) => `data: ${value}`),
      text.map((value) => `data:${value}`),
      text.map((value) => `event: ${value}`),
      text.map((value) => `: ${value}`),
      fc.constant('data'),
      fc.constant('event'),
      fc.constant(''),
      text,
    );
    const eol = fc.constantFrom('\n', '\r\n', '\r');
    const stream = fc.tuple(fc.boolean(), fc.array(fc.tuple(line, eol), { maxLength: 14 }), fc.option(line, { nil: '' }));
    const limits = fc.record({ maxLineChars: fc.integer({ min: 1, max: 24 }), maxEventChars: fc.integer({ min: 0, max: 40 }) });
    await fc.assert(
      fc.asyncProperty(stream, limits, fc.array(fc.nat(), { maxLength: 16 }), async ([bom, lines, last], limits, offsets) => {
        const source = (bom ? '\uFEFF' : '') + lines.map(([value, end]) => value + end).join('') + last;
        const whole = encode(source);
        const expected = reference(source, limits);
        expect(await outcome([whole], limits)).toEqual(expected);
        expect(await outcome(cut(whole, offsets), limits)).toEqual(expected);
        expect(await outcome(cut(whole, Array.from({ length: whole.length }, (_, i) => i)), limits)).toEqual(expected);
      }),
      { numRuns: 400 },
    );
  });
});
