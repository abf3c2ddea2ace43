import type { Citation, WebSearchPart } from '../../core/web-search.js';

/**
 * Google Search grounding (https://ai.google.dev/gemini-api/docs/google-search): the searches a
 * grounded answer ran and the citations on its text, read from a candidate's `groundingMetadata`.
 */

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const records = (value: unknown): Array<Record<string, unknown>> => (Array.isArray(value) ? value.filter(isRecord) : []);

/** The pages grounding used (`groundingChunks[].web`), in order: a support names them by index. */
function chunksOf(metadata: Record<string, unknown>): Array<{ url: string; title?: string }> {
  return records(metadata.groundingChunks).map((chunk) => {
    const web = isRecord(chunk.web) ? chunk.web : {};
    return { url: typeof web.uri === 'string' ? web.uri : '', ...(typeof web.title === 'string' ? { title: web.title } : {}) };
  });
}

/**
 * The searches a grounded answer ran, as one canonical search: Gemini reports the queries
 * (`webSearchQueries`) and the pages used (`groundingChunks`) for the whole answer, not per query.
 */
export function groundingSearch(metadata: Record<string, unknown> | undefined, id: string): WebSearchPart | undefined {
  if (!metadata) return undefined;
  const queries = Array.isArray(metadata.webSearchQueries) ? metadata.webSearchQueries.filter((query): query is string => typeof query === 'string') : [];
  const results = chunksOf(metadata).filter((chunk) => chunk.url);
  if (!queries.length && !results.length) return undefined;
  return { type: 'web-search', id, query: queries.join('; '), results };
}

/**
 * Citations from `groundingSupports`: each segment of the answer and the chunks that support it.
 * Segment offsets count UTF-8 bytes of the answer's text; they become UTF-16 offsets into `text`
 * (the answer's whole text, all its text parts joined).
 */
export function groundingCitations(metadata: Record<string, unknown> | undefined, text: string): Citation[] {
  if (!metadata) return [];
  const chunks = chunksOf(metadata);
  const bytes = Buffer.from(text, 'utf8');
  const charOffset = (byteOffset: number): number => bytes.subarray(0, Math.max(0, Math.min(bytes.length, byteOffset))).toString('utf8').length;
  return records(metadata.groundingSupports).flatMap((support) => {
    const segment = isRecord(support.segment) ? support.segment : {};
    const startByte = typeof segment.startIndex === 'number' ? segment.startIndex : 0;
    const endByte = typeof segment.endIndex === 'number' ? segment.endIndex : bytes.length;
    const startIndex = charOffset(startByte);
    const endIndex = charOffset(endByte);
    const citedText = typeof segment.text === 'string' ? segment.text : text.slice(startIndex, endIndex);
    const indices = Array.isArray(support.groundingChunkIndices) ? support.groundingChunkIndices.filter((index): index is number => Number.isInteger(index)) : [];
    return indices.flatMap((index) => {
      const chunk = chunks[index];
      return chunk?.url ? [{ url: chunk.url, ...(chunk.title ? { title: chunk.title } : {}), citedText, startIndex, endIndex }] : [];
    });
  });
}

/** Citations with offsets into the whole answer, moved into the text part spanning [start, start + length); those outside it are left to other parts. */
export function citationsWithin(citations: readonly Citation[], start: number, length: number): Citation[] {
  return citations
    .filter((citation) => (citation.startIndex ?? 0) >= start && (citation.startIndex ?? 0) < start + Math.max(length, 1))
    .map((citation) => ({
      ...citation,
      startIndex: (citation.startIndex ?? start) - start,
      endIndex: Math.min(length, (citation.endIndex ?? start + length) - start),
    }));
}

/**
 * A candidate's `groundingMetadata` for a Gemini client, from the searches an answer ran (any
 * upstream's, or the router's) and the citations on its text parts: the queries, each page once as
 * a grounding chunk, and a support per cited passage naming its page. Offsets become UTF-8 byte
 * offsets into the answer's whole text, as Gemini gives them; the inverse of groundingCitations.
 * Undefined when the answer searched for nothing and cites nothing.
 */
export function groundingMetadataOf(searches: readonly WebSearchPart[], texts: ReadonlyArray<{ text: string; citations?: readonly Citation[] }>): Record<string, unknown> | undefined {
  const chunks: Array<{ web: { uri: string; title?: string } }> = [];
  const chunkIndex = (url: string, title?: string): number => {
    const known = chunks.findIndex((chunk) => chunk.web.uri === url);
    if (known !== -1) return known;
    chunks.push({ web: { uri: url, ...(title ? { title } : {}) } });
    return chunks.length - 1;
  };
  for (const search of searches) for (const result of search.results) chunkIndex(result.url, result.title);
  const whole = texts.map((part) => part.text).join('');
  const byteOffset = (charOffset: number): number => Buffer.byteLength(whole.slice(0, charOffset), 'utf8');
  const supports: Array<Record<string, unknown>> = [];
  let start = 0;
  for (const part of texts) {
    for (const citation of part.citations ?? []) {
      const from = start + Math.max(0, Math.min(part.text.length, citation.startIndex ?? 0));
      const to = start + Math.max(0, Math.min(part.text.length, citation.endIndex ?? part.text.length));
      supports.push({
        segment: { startIndex: byteOffset(from), endIndex: byteOffset(to), text: citation.citedText ?? whole.slice(from, to) },
        groundingChunkIndices: [chunkIndex(citation.url, citation.title)],
      });
    }
    start += part.text.length;
  }
  const queries = searches.map((search) => search.query).filter((query) => query !== '');
  if (!queries.length && !chunks.length) return undefined;
  return { ...(queries.length ? { webSearchQueries: queries } : {}), groundingChunks: chunks, ...(supports.length ? { groundingSupports: supports } : {}) };
}
