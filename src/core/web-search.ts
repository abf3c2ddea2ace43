import { invalidRequest, type RouterError } from './errors.js';
import type { ProviderMetadata } from './provider-metadata.js';
import type { CanonicalRequest } from './request.js';

/**
 * Web search, as every client format offers it and every upstream with a search of its own runs
 * it: Anthropic's `web_search_*` server tool, the Responses hosted `web_search` tool, Chat's
 * `web_search_options`, Gemini's `google_search`. The request says the client offered it (with its
 * options); the reply carries each search the upstream ran (a WebSearchPart) and the citations on
 * its text.
 */

/** An approximate place the searches are made from (all four formats' `user_location`). */
export interface WebSearchUserLocation {
  city?: string;
  region?: string;
  /** Two-letter ISO country code. */
  country?: string;
  /** IANA time zone. */
  timezone?: string;
}

export type WebSearchContextSize = 'low' | 'medium' | 'high';

/** The client's offer of web search, with its options. */
export interface WebSearchSpec {
  /** The client's own name for the tool (`web_search_20250305`, `web_search`, `web_search_options`), for messages. */
  tool: string;
  /** Where in the client's body it was offered (`tools[2]`, `web_search_options`), for a 400 naming it. */
  param: string;
  allowedDomains?: string[];
  blockedDomains?: string[];
  /** How many searches one request may run. */
  maxUses?: number;
  userLocation?: WebSearchUserLocation;
  /** How much of the pages found goes into the model's context (OpenAI's search_context_size). */
  contextSize?: WebSearchContextSize;
}

/** One page a search found. */
export interface WebSearchResult {
  url: string;
  title?: string;
  /** How old the page is, as the provider says it (`April 30, 2025`). */
  pageAge?: string;
  /** The page's content, sealed by the provider for its own later turns (Anthropic's `encrypted_content`). */
  encryptedContent?: string;
}

/** A search the upstream (or the router for it) ran: the query and what it found. */
export interface WebSearchPart {
  type: 'web-search';
  /** The call's id (Anthropic `srvtoolu_…`, Responses `ws_…`, made up where the upstream gives none). */
  id: string;
  query: string;
  results: WebSearchResult[];
  /** The search failed; the provider's error code (`max_uses_exceeded`, `unavailable`, …). */
  errorCode?: string;
  providerMetadata?: ProviderMetadata;
}

/**
 * A source the text relies on. `startIndex`/`endIndex` are UTF-16 offsets into the text part it
 * rides on; when absent the citation stands for the whole part (Anthropic cites per text block).
 */
export interface Citation {
  url: string;
  title?: string;
  /** The passage of the source cited, when the provider says. */
  citedText?: string;
  startIndex?: number;
  endIndex?: number;
}

/** The highest number of searches the router runs for one request when the client set no max_uses. */
export const ROUTER_SEARCH_LIMIT = 5;

/**
 * The 400 for a route that can neither search natively nor has a search target: the client's tool
 * is named, and the setting that would make it work.
 */
export function webSearchUnavailable(spec: WebSearchSpec, model: string, upstream: string): RouterError {
  return invalidRequest(
    `${spec.param}: web search ('${spec.tool}') cannot run on this route: its upstream (${upstream}) has no web search of its own, and the route names no search target. ` +
      `Name one with \`svc-router routes search '${model}' BACKEND[:MODEL]\` (a backend with native search: anthropic, openai-responses or gemini), or leave the tool out.`,
    spec.param,
  );
}

/**
 * A route whose upstream cannot search and that names no search target. A request that is there to
 * search (web search its only tool, as in Claude Code's WebSearch, or the one tool_choice names)
 * cannot be answered honestly without it: refused (webSearchUnavailable). One that only offers search
 * beside its own tools (Codex offers web_search on every turn) goes on without it, and the warning
 * returned says so and how to add it, so no turn of an agent fails for a tool it may never call.
 */
export function leaveOutSearch(request: CanonicalRequest, upstream: string): string {
  const spec = request.webSearch!;
  const forced = typeof request.toolChoice === 'object' && request.toolChoice.name === 'web_search';
  if (forced || (request.tools.length === 0 && !request.deferredTools?.length)) throw webSearchUnavailable(spec, request.model, upstream);
  return (
    `${spec.param}: web search ('${spec.tool}') not offered to the model: this route's upstream (${upstream}) has no web search of its own and the route names no search target; ` +
    `name one with \`svc-router routes search '${request.model}' BACKEND[:MODEL]\`.`
  );
}

/** What the options the upstream cannot apply are called, for a warning per option left out. */
export function unsentSearchOptions(spec: WebSearchSpec, sent: ReadonlyArray<keyof WebSearchSpec>): string[] {
  const names: Array<[keyof WebSearchSpec, string]> = [
    ['allowedDomains', 'allowed_domains'],
    ['blockedDomains', 'blocked_domains'],
    ['maxUses', 'max_uses'],
    ['userLocation', 'user_location'],
    ['contextSize', 'search_context_size'],
  ];
  return names.filter(([key]) => spec[key] !== undefined && !sent.includes(key)).map(([, name]) => name);
}

/** A search replayed to an upstream that cannot take it in its own form: said in words, so the model still sees what it found. */
export function webSearchAsText(part: WebSearchPart): string {
  const lines = part.results.map((result) => `- ${result.title ? `${result.title}: ` : ''}${result.url}${result.pageAge ? ` (${result.pageAge})` : ''}`);
  if (part.errorCode) return `Searched the web for "${part.query}": the search failed (${part.errorCode}).`;
  return `Searched the web for "${part.query}"${lines.length ? `; results:\n${lines.join('\n')}` : '; no results.'}`;
}

/** The messages with each replayed search said in words, for an upstream that has no form of its own for another's search. */
export function searchesAsText<M extends { content: ReadonlyArray<{ type: string }> }>(messages: M[]): M[] {
  if (!messages.some((message) => message.content.some((part) => part.type === 'web-search'))) return messages;
  return messages.map((message) =>
    message.content.some((part) => part.type === 'web-search')
      ? { ...message, content: message.content.map((part) => (part.type === 'web-search' ? { type: 'text', text: webSearchAsText(part as WebSearchPart) } : part)) }
      : message,
  );
}
