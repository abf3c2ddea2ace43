import type { WebSearchTool } from 'openai/resources/responses/responses';
import { unsentSearchOptions, type Citation, type WebSearchPart, type WebSearchSpec } from '../../core/web-search.js';

/**
 * The client's web search as the hosted `web_search` tool
 * (https://platform.openai.com/docs/guides/tools-web-search): allowed domains as `filters`, the
 * place, the context size. The API has no blocked domains; max_uses becomes the response's
 * `max_tool_calls`, which counts only hosted tool calls, and search is the only one sent.
 */
export function encodeResponsesSearchTool(spec: WebSearchSpec, warnings: string[]): { tool: WebSearchTool; maxToolCalls?: number } {
  const tool: WebSearchTool = { type: 'web_search' };
  if (spec.allowedDomains) tool.filters = { allowed_domains: spec.allowedDomains };
  if (spec.userLocation) tool.user_location = { type: 'approximate', ...spec.userLocation };
  if (spec.contextSize) tool.search_context_size = spec.contextSize;
  const unsent = unsentSearchOptions(spec, ['allowedDomains', 'userLocation', 'contextSize', 'maxUses']);
  if (unsent.length) warnings.push(`web search ${unsent.join(', ')} not sent: OpenAI's web search has no such setting.`);
  return { tool, ...(spec.maxUses !== undefined ? { maxToolCalls: spec.maxUses } : {}) };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A `web_search_call` item as a canonical search: its query (or queries) and the sources it lists. */
export function searchPartOfItem(item: { id?: string | null; status?: string | null; action?: unknown }): WebSearchPart {
  const action = isRecord(item.action) ? item.action : {};
  const queries = Array.isArray(action.queries) ? action.queries.filter((query): query is string => typeof query === 'string') : [];
  const query = typeof action.query === 'string' ? action.query : queries.join('; ');
  const sources = Array.isArray(action.sources) ? action.sources.filter(isRecord) : [];
  const results = sources.flatMap((source) => (typeof source.url === 'string' ? [{ url: source.url, ...(typeof source.title === 'string' ? { title: source.title } : {}) }] : []));
  return { type: 'web-search', id: item.id ?? '', query, results, ...(item.status === 'failed' ? { errorCode: 'unavailable' } : {}) };
}

/** `url_citation` annotations as canonical citations, moved by `offset` (where their output_text starts in the joined text). */
export function citationsOf(annotations: unknown, offset = 0): Citation[] {
  if (!Array.isArray(annotations)) return [];
  return annotations.filter(isRecord).flatMap((annotation) => {
    if (annotation.type !== 'url_citation' || typeof annotation.url !== 'string') return [];
    const title = typeof annotation.title === 'string' ? { title: annotation.title } : {};
    const start = typeof annotation.start_index === 'number' ? { startIndex: annotation.start_index + offset } : {};
    const end = typeof annotation.end_index === 'number' ? { endIndex: annotation.end_index + offset } : {};
    return [{ url: annotation.url, ...title, ...start, ...end }];
  });
}
