import { unsentSearchOptions, type Citation, type WebSearchPart, type WebSearchSpec } from '../../core/web-search.js';

/**
 * Web search on Gemini is Grounding with Google Search: the `googleSearch` tool, which takes no
 * options the other formats have (https://ai.google.dev/gemini-api/docs/google-search); each one
 * the client set is named in the warnings.
 */
export function geminiSearchWarnings(spec: WebSearchSpec): string[] {
  const unsent = unsentSearchOptions(spec, []);
  return unsent.length ? [`web search ${unsent.join(', ')} not sent: Gemini's Google Search grounding has no such setting.`] : [];
}

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
