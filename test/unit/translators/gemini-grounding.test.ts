import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Citation, WebSearchPart } from '../../../src/core/web-search.js';
import { groundingCitations, groundingMetadataOf, groundingSearch } from '../../../src/wire/gemini/grounding.js';

/** Grounding written for a Gemini client reads back, with Gemini's own reader, as the searches and citations it was written from. */
describe('groundingMetadata both ways', () => {
  const page = fc.record({ url: fc.webUrl(), title: fc.option(fc.string({ minLength: 1, maxLength: 12 }), { nil: undefined }) });

  it('gives back each cited passage, at its place in the whole answer, whatever the text (UTF-8 offsets both ways)', () => {
    const part = fc.record({ text: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), cites: fc.array(fc.tuple(fc.nat(), fc.nat(), page), { maxLength: 3 }) });
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 4 }), fc.string({ minLength: 1, maxLength: 20 }), (raw, query) => {
        const texts = raw.map(({ text, cites }) => ({
          text,
          citations: cites.map(([a, b, { url, title }]): Citation => {
            // Offsets on code point boundaries, as upstreams cite.
            const points = [...text];
            const cut = (n: number) => points.slice(0, n % (points.length + 1)).join('').length;
            const [from, to] = [cut(a), cut(b)].sort((x, y) => x - y) as [number, number];
            return { url, ...(title ? { title } : {}), startIndex: from, endIndex: to, citedText: text.slice(from, to) };
          }),
        }));
        const search: WebSearchPart = { type: 'web-search', id: 'ws_1', query, results: [] };
        const metadata = groundingMetadataOf([search], texts);
        const whole = texts.map((entry) => entry.text).join('');
        let start = 0;
        const expected = texts.flatMap((entry) => {
          const placed = entry.citations.map((citation) => ({ url: citation.url, ...(citation.title ? { title: chunkTitle(metadata, citation.url) } : {}), citedText: citation.citedText, startIndex: start + citation.startIndex!, endIndex: start + citation.endIndex! }));
          start += entry.text.length;
          return placed;
        });
        expect(groundingCitations(metadata, whole).map(({ title: _t, ...rest }) => rest)).toEqual(expected.map(({ title: _t, ...rest }) => rest));
        expect(groundingSearch(metadata, 'gs')?.query).toBe(query);
      }),
    );
  });

  it('names each page once, the searches\' results first', () => {
    const search: WebSearchPart = { type: 'web-search', id: 'ws', query: 'weather paris', results: [{ url: 'https://a.example/', title: 'A' }, { url: 'https://b.example/' }] };
    const metadata = groundingMetadataOf([search], [{ text: 'Sunny in Paris.', citations: [{ url: 'https://b.example/', startIndex: 0, endIndex: 5 }, { url: 'https://c.example/', title: 'C' }] }]);
    expect(metadata).toEqual({
      webSearchQueries: ['weather paris'],
      groundingChunks: [{ web: { uri: 'https://a.example/', title: 'A' } }, { web: { uri: 'https://b.example/' } }, { web: { uri: 'https://c.example/', title: 'C' } }],
      groundingSupports: [
        { segment: { startIndex: 0, endIndex: 5, text: 'Sunny' }, groundingChunkIndices: [1] },
        { segment: { startIndex: 0, endIndex: 15, text: 'Sunny in Paris.' }, groundingChunkIndices: [2] },
      ],
    });
    expect(groundingMetadataOf([], [{ text: 'no sources' }])).toBeUndefined();
  });
});

function chunkTitle(metadata: Record<string, unknown> | undefined, url: string): string | undefined {
  return (metadata?.groundingChunks as Array<{ web: { uri: string; title?: string } }>).find((chunk) => chunk.web.uri === url)?.web.title;
}
