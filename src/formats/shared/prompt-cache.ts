import { invalidRequest } from '../../core/errors.js';
import type { CanonicalRequest, Part } from '../../core/request.js';
import { keepForSameFormat } from '../../core/same-format-only.js';
import { asObject, optionalString, type Json } from './read-fields.js';

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
  decodePromptCacheOptions(json, request);
  const retention = optionalString(json, 'prompt_cache_retention');
  if (retention === undefined) return;
  if ((RETENTIONS as readonly string[]).includes(retention)) request.promptCacheRetention = retention as (typeof RETENTIONS)[number];
  else keepForSameFormat(request, 'prompt_cache_retention', `'${retention}' is passed only to an upstream of the client's own format; this route caches as its upstream does by default.`, false);
}

/**
 * `prompt_cache_options` (GPT-5.6 and later: `mode`, `ttl`, and on the Responses API
 * `comparison_response_id`): https://platform.openai.com/docs/guides/prompt-caching. Each upstream
 * that takes them gets them; the rest name them (src/catalog/prompt-cache-controls.ts).
 */
function decodePromptCacheOptions(json: Json, request: CanonicalRequest): void {
  if (json.prompt_cache_options === undefined || json.prompt_cache_options === null) return;
  const options = asObject(json.prompt_cache_options, 'prompt_cache_options');
  const mode = optionalString(options, 'mode', 'prompt_cache_options.mode');
  if (mode !== undefined && mode !== 'implicit' && mode !== 'explicit') throw invalidRequest('prompt_cache_options.mode: expected one of implicit, explicit.', 'prompt_cache_options.mode');
  const ttl = optionalString(options, 'ttl', 'prompt_cache_options.ttl');
  const comparisonResponseId = optionalString(options, 'comparison_response_id', 'prompt_cache_options.comparison_response_id');
  request.promptCacheOptions = { ...(mode ? { mode } : {}), ...(ttl ? { ttl } : {}), ...(comparisonResponseId ? { comparisonResponseId } : {}) };
}

/**
 * A content part with the client's explicit `prompt_cache_breakpoint` (`{mode: "explicit"}`, on
 * text, image and file parts of Chat and Responses alike), held in OpenAI's namespace for the
 * upstreams that take it.
 */
export function withBreakpoint<P extends Part>(part: P, raw: Json, path: string): P {
  const breakpoint = raw.prompt_cache_breakpoint;
  if (breakpoint === undefined || breakpoint === null) return part;
  const held = asObject(breakpoint, `${path}.prompt_cache_breakpoint`);
  return { ...part, providerMetadata: { ...part.providerMetadata, openai: { ...part.providerMetadata?.openai, promptCacheBreakpoint: held } } };
}
