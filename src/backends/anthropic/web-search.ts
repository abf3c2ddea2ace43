import type { WebSearchTool20250305 } from '@anthropic-ai/sdk/resources/messages';
import { unsentSearchOptions, webSearchAsText, type Citation, type WebSearchPart, type WebSearchResult, type WebSearchSpec } from '../../core/web-search.js';
import type { AnthropicRequestBlock, AnthropicSearchResultContent } from './api.js';

/** The versioned server tool types Anthropic names web search by (`web_search_20250305`, `web_search_20260209`, …). */
const ANTHROPIC_SEARCH_TYPE = /^web_search_\d{8}$/;

/**
 * The client's web search as Anthropic's server tool, the client's own version when it sent one:
 * https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool. Anthropic has no
 * search context size; that option is named in the warnings.
 */
export function encodeAnthropicSearchTool(spec: WebSearchSpec, warnings: string[]): WebSearchTool20250305 {
  const type = (ANTHROPIC_SEARCH_TYPE.test(spec.tool) ? spec.tool : 'web_search_20250305') as 'web_search_20250305';
  const tool: WebSearchTool20250305 = { type, name: 'web_search' };
  if (spec.allowedDomains) tool.allowed_domains = spec.allowedDomains;
  if (spec.blockedDomains) tool.blocked_domains = spec.blockedDomains;
  if (spec.maxUses !== undefined) tool.max_uses = spec.maxUses;
  if (spec.userLocation) tool.user_location = { type: 'approximate', ...spec.userLocation };
  const unsent = unsentSearchOptions(spec, ['allowedDomains', 'blockedDomains', 'maxUses', 'userLocation']);
  if (unsent.length) warnings.push(`web search ${unsent.join(', ')} not sent: Anthropic's web search has no such setting.`);
  return tool;
}

/**
 * A search replayed to Anthropic: its own blocks when Anthropic ran it (every result carries the
 * encrypted content it requires back), else said in words.
 */
export function encodeSearchPart(part: WebSearchPart): AnthropicRequestBlock[] {
  const own = part.id.startsWith('srvtoolu_') && (part.errorCode !== undefined || part.results.every((result) => result.encryptedContent !== undefined));
  if (!own) return [{ type: 'text', text: webSearchAsText(part) }];
  const content: AnthropicSearchResultContent = part.errorCode
    ? { type: 'web_search_tool_result_error', error_code: part.errorCode }
    : part.results.map((result) => ({
        type: 'web_search_result',
        url: result.url,
        title: result.title ?? '',
        encrypted_content: result.encryptedContent!,
        ...(result.pageAge !== undefined ? { page_age: result.pageAge } : {}),
      }));
  return [
    { type: 'server_tool_use', id: part.id, name: 'web_search', input: { query: part.query } },
    { type: 'web_search_tool_result', tool_use_id: part.id, content },
  ];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const stringOr = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** A `server_tool_use` (web_search) block's query, from its input object. */
export function searchQueryOf(input: unknown): string {
  return isRecord(input) && typeof input.query === 'string' ? input.query : '';
}

/** A `web_search_tool_result` block as a canonical search, joined to its call's query. */
export function searchPartOf(id: string, query: string, content: unknown): WebSearchPart {
  if (isRecord(content)) return { type: 'web-search', id, query, results: [], errorCode: stringOr(content.error_code) ?? 'unavailable' };
  const results: WebSearchResult[] = (Array.isArray(content) ? content : []).filter(isRecord).map((result) => {
    const title = stringOr(result.title);
    const pageAge = stringOr(result.page_age);
    const encryptedContent = stringOr(result.encrypted_content);
    return { url: stringOr(result.url) ?? '', ...(title !== undefined ? { title } : {}), ...(pageAge !== undefined ? { pageAge } : {}), ...(encryptedContent !== undefined ? { encryptedContent } : {}) };
  });
  return { type: 'web-search', id, query, results };
}

/** Anthropic's web_search_result_location citations in canonical form (each stands for the whole text block). */
export function canonicalCitations(citations: readonly unknown[]): Citation[] {
  return citations.filter(isRecord).flatMap((citation) => {
    if (citation.type !== 'web_search_result_location' || typeof citation.url !== 'string') return [];
    const title = stringOr(citation.title);
    const citedText = stringOr(citation.cited_text);
    return [{ url: citation.url, ...(title !== undefined ? { title } : {}), ...(citedText !== undefined ? { citedText } : {}) }];
  });
}
