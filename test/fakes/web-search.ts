/**
 * What the fakes' web search finds: a small deterministic corpus, so a test can say which pages a
 * query turns up and check that they reach the client. Each fake renders a search in its
 * provider's documented shape (Anthropic's server_tool_use + web_search_tool_result, the Responses
 * web_search_call item, Gemini's groundingMetadata); a turn searches only when it scripts
 * `webSearch` and the request offers that provider's search tool, as a model only searches when it can.
 */
export interface FakeSearchResult {
  url: string;
  title: string;
  pageAge: string;
  /** What the page says (Anthropic seals this as encrypted_content). */
  content: string;
}

export interface FakeSearchFilters {
  allowedDomains?: readonly string[];
  blockedDomains?: readonly string[];
}

/** Two pages per query: one on the first allowed domain (else example.com), one on example.org, minus blocked domains. */
export function fakeSearch(query: string, filters: FakeSearchFilters = {}): FakeSearchResult[] {
  const slug = query.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'query';
  const domains = [filters.allowedDomains?.[0] ?? 'example.com', 'example.org'];
  return domains
    .filter((domain) => !filters.allowedDomains?.length || filters.allowedDomains.some((allowed) => domain === allowed || domain.endsWith(`.${allowed}`)))
    .filter((domain) => !filters.blockedDomains?.some((blocked) => domain === blocked || domain.endsWith(`.${blocked}`)))
    .map((domain, index) => ({
      url: `https://${domain}/${slug}`,
      title: `${query} (${index + 1})`,
      pageAge: 'April 30, 2025',
      content: `What ${domain} says about ${query}.`,
    }));
}

/** Anthropic's opaque encrypted_content / encrypted_index stand-ins: recognisable, so a replay can be checked. */
export const sealedContent = (result: FakeSearchResult): string => `enc_${Buffer.from(result.url).toString('base64url')}`;
export const sealedIndex = (result: FakeSearchResult): string => `idx_${Buffer.from(result.url).toString('base64url')}`;

/** The last user turn's text, in any of the three message shapes (string content, or text parts). */
export function lastUserText(messages: unknown): string {
  // A Responses `input` may be the user's text itself.
  if (typeof messages === 'string') return messages;
  const list = Array.isArray(messages) ? messages : [];
  for (let i = list.length - 1; i >= 0; i--) {
    const message = list[i] as { role?: string; content?: unknown; parts?: unknown };
    if (message.role !== 'user') continue;
    const content = message.content ?? message.parts;
    if (typeof content === 'string') return content;
    if (Array.isArray(content)) {
      const text = content.map((part: any) => (typeof part?.text === 'string' ? part.text : '')).join('');
      if (text) return text;
    }
  }
  return 'query';
}
