import type { Citation, WebSearchPart } from '../../core/web-search.js';

/**
 * Where a citation stands in the text a client sees: its own offsets within its part moved by
 * where the part starts, or the whole part when it has none (Anthropic cites per text block).
 */
export function citationSpan(citation: Citation, partStart: number, partLength: number): { start: number; end: number } {
  const start = Math.min(partLength, Math.max(0, citation.startIndex ?? 0));
  const end = Math.min(partLength, Math.max(start, citation.endIndex ?? partLength));
  return { start: partStart + start, end: partStart + end };
}

/** An OpenAI `url_citation` annotation, flat as Responses' output_text has it. */
export function responsesUrlCitation(citation: Citation, partStart: number, partLength: number) {
  const { start, end } = citationSpan(citation, partStart, partLength);
  return { type: 'url_citation' as const, url: citation.url, title: citation.title ?? '', start_index: start, end_index: end };
}

/** An OpenAI `url_citation` annotation, nested as Chat's message.annotations has it. */
export function chatUrlCitation(citation: Citation, partStart: number, partLength: number) {
  const { start, end } = citationSpan(citation, partStart, partLength);
  return { type: 'url_citation' as const, url_citation: { url: citation.url, title: citation.title ?? '', start_index: start, end_index: end } };
}

/**
 * For a format with no form for a search itself (Chat Completions: only the citations have one),
 * the searches the upstream ran, named in a warning so they are not silently lost.
 */
export function unshownSearchesWarning(searches: readonly WebSearchPart[]): string | undefined {
  if (!searches.length) return undefined;
  const queries = searches.map((search) => JSON.stringify(search.query)).join(', ');
  return `The upstream searched the web (${queries}); Chat Completions has no form for a search, so only its citations are given, in message.annotations.`;
}
