import type { CanonicalRequest } from '../../core/request.js';
import { keepForSameFormat } from '../../core/same-format-only.js';
import { optionalString, type Json } from './read-fields.js';

const RETENTIONS: ReadonlyArray<NonNullable<CanonicalRequest['promptCacheRetention']>> = ['in_memory', '24h'];

/**
 * OpenAI's `prompt_cache_key` and `prompt_cache_retention` (Chat and Responses alike:
 * https://platform.openai.com/docs/guides/prompt-caching), for every upstream that takes them, not
 * only one of the client's own format. A retention this router does not know reaches only such an
 * upstream, in the forwarded body, and is named in the warnings elsewhere.
 */
export function decodePromptCache(json: Json, request: CanonicalRequest): void {
  const key = optionalString(json, 'prompt_cache_key');
  if (key) request.promptCacheKey = key;
  const retention = optionalString(json, 'prompt_cache_retention');
  if (retention === undefined) return;
  if ((RETENTIONS as readonly string[]).includes(retention)) request.promptCacheRetention = retention as (typeof RETENTIONS)[number];
  else keepForSameFormat(request, 'prompt_cache_retention', `'${retention}' is passed only to an upstream of the client's own format; this route caches as its upstream does by default.`, false);
}
