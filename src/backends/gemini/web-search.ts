import { unsentSearchOptions, type WebSearchSpec } from '../../core/web-search.js';

/**
 * Web search on Gemini is Grounding with Google Search: the `googleSearch` tool, which takes no
 * options the other formats have (https://ai.google.dev/gemini-api/docs/google-search); each one
 * the client set is named in the warnings.
 */
export function geminiSearchWarnings(spec: WebSearchSpec): string[] {
  const unsent = unsentSearchOptions(spec, []);
  return unsent.length ? [`web search ${unsent.join(', ')} not sent: Gemini's Google Search grounding has no such setting.`] : [];
}
