import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDataUrl } from '../../src/core/file-data.js';
import { isTextMediaType, readDataUrl, readPayload, writePayload } from '../../src/core/text-payload.js';

/**
 * A file given inline, read as the text a model reads of it: any text, in any of the encodings a
 * data URL or a base64 field has, reads back as itself and writes back as it came; binary does not
 * read as text whatever it is labelled; what only looks like a data URL is not one.
 */

const TEXT_TYPES = ['text/plain', 'text/markdown; charset=utf-8', 'application/json', 'application/x-yaml', 'application/ld+json', 'image/svg+xml', 'application/x-sh', 'application/javascript'];
const BINARY_TYPES = ['image/png', 'application/pdf', 'audio/wav', 'application/octet-stream', undefined];

describe('readPayload', () => {
  it('reads any text, base64 or percent-encoded, as itself, and writes it back as it came', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 }), fc.constantFrom(...TEXT_TYPES), fc.boolean(), (text, mediaType, base64) => {
        const data = base64 ? Buffer.from(text, 'utf8').toString('base64') : encodeURIComponent(text);
        const url = readDataUrl(`data:${mediaType.replace(' ', '')}${base64 ? ';base64' : ''},${data}`)!;
        expect(url.base64).toBe(base64);
        const payload = readPayload(url.data, url.base64, url.mediaType)!;
        expect(payload.text).toBe(text);
        expect(writePayload(payload.text, payload.encoding)).toBe(data);
        // The decoded file is the same bytes in base64, whichever way the URL wrote them.
        expect(Buffer.from(parseDataUrl(`data:${mediaType.replace(' ', '')}${base64 ? ';base64' : ''},${data}`)!.data, 'base64').toString('utf8')).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it('reads text labelled binary as text: its first bytes say so', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200 }).filter((text) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text) && !text.startsWith('%PDF-')), fc.constantFrom(...BINARY_TYPES), (text, mediaType) => {
        expect(readPayload(Buffer.from(text, 'utf8').toString('base64'), true, mediaType)?.text).toBe(text);
      }),
    );
  });

  it.each([
    ['a PNG', Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.from('AKIA and more')])],
    ['a JPEG', Buffer.from('ffd8ffe000104a46494600010101', 'hex')],
    ['a PDF, though its header reads as text', Buffer.from('%PDF-1.7\n1 0 obj << /Title (key) >> endobj')],
    ['a WAV', Buffer.from('524946462400000057415645666d7420', 'hex')],
  ])('leaves %s alone whatever it is labelled binary as', (_, bytes) => {
    for (const mediaType of BINARY_TYPES) expect(readPayload(bytes.toString('base64'), true, mediaType)).toBeUndefined();
  });

  it('reads a base64 field that holds no base64 as the text it is', () => {
    expect(readPayload('data: AWS key here', true, 'image/png')).toEqual({ text: 'data: AWS key here', encoding: 'as-is' });
  });
});

describe('readDataUrl', () => {
  it.each([
    ['data: AKIA… token', undefined],
    ['data:AWS_ACCESS_KEY_ID=AKIA…', undefined],
    ['data:text', undefined],
    ['data:,plain text', { mediaType: 'text/plain', base64: false, data: 'plain text' }],
    ['data:;base64,aGk=', { mediaType: 'text/plain', base64: true, data: 'aGk=' }],
    ['data:Text/Plain;charset=utf-8;base64,aGk=', { mediaType: 'text/plain', base64: true, data: 'aGk=' }],
    ['data:image/png;name=a.png;base64,iVBOR', { mediaType: 'image/png', base64: true, data: 'iVBOR' }],
  ])('reads %j', (value, expected) => {
    const url = readDataUrl(value);
    if (expected === undefined) expect(url).toBeUndefined();
    else expect(url).toMatchObject(expected);
  });
});

describe('isTextMediaType', () => {
  it.each([...TEXT_TYPES, 'application/x-toml', 'text/csv', 'application/vnd.api+json'])('%s is text', (type) => expect(isTextMediaType(type)).toBe(true));
  it.each(['image/png', 'application/pdf', 'application/zip', 'audio/mpeg', 'application/octet-stream', ''])('%j is not', (type) => expect(isTextMediaType(type)).toBe(false));
});
