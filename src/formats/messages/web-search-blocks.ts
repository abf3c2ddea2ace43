import { metadataOf, type ProviderMetadata } from '../../core/provider-metadata.js';
import type { Citation, WebSearchPart } from '../../core/web-search.js';

/**
 * A search as Anthropic's own blocks: the `server_tool_use` that asked, then its
 * `web_search_tool_result` (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool).
 * A result another upstream found has no encrypted content; it is left empty.
 */
export function serverToolUseBlock(part: WebSearchPart) {
  return { type: 'server_tool_use', id: part.id, name: 'web_search', input: { query: part.query } };
}

export function searchResultBlock(part: WebSearchPart) {
  return {
    type: 'web_search_tool_result',
    tool_use_id: part.id,
    content: part.errorCode
      ? { type: 'web_search_tool_result_error', error_code: part.errorCode }
      : part.results.map((result) => ({
          type: 'web_search_result',
          url: result.url,
          title: result.title ?? '',
          encrypted_content: result.encryptedContent ?? '',
          page_age: result.pageAge ?? null,
        })),
  };
}

/**
 * A text block's citations: Anthropic's own as it gave them, else the canonical ones as
 * web_search_result_location, the cited text taken from the span they cover when not given.
 */
export function messagesCitations(text: string, citations: readonly Citation[] | undefined, providerMetadata: ProviderMetadata | undefined): unknown[] | undefined {
  const own = metadataOf(providerMetadata, 'anthropic')?.citations;
  if (Array.isArray(own)) return own;
  if (!citations?.length) return undefined;
  return citations.map((citation) => ({
    type: 'web_search_result_location',
    url: citation.url,
    title: citation.title ?? null,
    cited_text: citation.citedText ?? text.slice(citation.startIndex ?? 0, citation.endIndex ?? text.length),
    encrypted_index: '',
  }));
}

/** `usage.server_tool_use` when searches ran, as Anthropic reports them. */
export const serverToolUsage = (searches: number) => (searches ? { server_tool_use: { web_search_requests: searches } } : {});
