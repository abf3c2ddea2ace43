import { capabilitiesOf } from '../../src/catalog/index.js';

/**
 * What OpenAI's APIs refuse or answer by model, read from the router's own catalog rows (the same
 * rows the translators obey):
 * - `prompt_cache_breakpoint` on a content part, or `prompt_cache_options`, where the model's row
 *   takes no explicit cache controls (before GPT-5.6): a 400 in OpenAI's words for a parameter a
 *   model does not take, `prompt_cache_breakpoint is not supported on this model`, param named,
 *   code `invalid_parameter` (as OpenAI answers `prompt_cache_retention` on a model without it);
 * - on the Responses API, `prompt_cache_options.comparison_response_id` where the row gives
 *   diagnostics: `prompt_cache_diagnostics` on the response, `cache_hit` against a response this
 *   fake issued for the same model and `comparison_response_not_found` otherwise
 *   (https://developers.openai.com/api/docs/guides/prompt-caching/diagnostics).
 */
export interface CacheControlRefusal {
  message: string;
  param: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first content part of a Chat or Responses body that carries a breakpoint, as its param path. */
function markedPart(body: Record<string, unknown>, api: 'chat' | 'responses'): string | undefined {
  const key = api === 'chat' ? 'messages' : 'input';
  const items = body[key];
  if (!Array.isArray(items)) return undefined;
  for (const [index, item] of items.entries()) {
    if (!isObject(item)) continue;
    for (const field of ['content', 'output'] as const) {
      const parts = item[field];
      if (!Array.isArray(parts)) continue;
      const at = parts.findIndex((part) => isObject(part) && part.prompt_cache_breakpoint !== undefined);
      if (at !== -1) return `${key}[${index}].${field}[${at}].prompt_cache_breakpoint`;
    }
  }
  return undefined;
}

export function cacheControlRefusal(body: Record<string, unknown>, api: 'chat' | 'responses'): CacheControlRefusal | undefined {
  const model = typeof body.model === 'string' ? body.model : '';
  const takes = capabilitiesOf(api === 'chat' ? 'openai-chat' : 'openai-responses', model)?.promptCacheBreakpoints === true;
  if (takes) return undefined;
  const marked = markedPart(body, api);
  if (marked) return { message: 'prompt_cache_breakpoint is not supported on this model', param: marked };
  if (body.prompt_cache_options !== undefined) return { message: 'prompt_cache_options is not supported on this model', param: 'prompt_cache_options' };
  return undefined;
}

/** Diagnostics for a Responses request that asks for them, against the responses this fake issued (id → model). */
export function cacheDiagnostics(body: Record<string, unknown>, issued: ReadonlyMap<string, string>): Record<string, unknown> | undefined {
  const options = body.prompt_cache_options;
  const compared = isObject(options) && typeof options.comparison_response_id === 'string' ? options.comparison_response_id : undefined;
  const model = typeof body.model === 'string' ? body.model : '';
  if (!compared || capabilitiesOf('openai-responses', model)?.promptCacheDiagnostics !== true) return undefined;
  const earlier = issued.get(compared);
  if (earlier === undefined) return { type: 'comparison_response_not_found' };
  return earlier === model ? { type: 'cache_hit' } : { type: 'cache_miss', reason: 'model_changed', cache_missed_tokens: 0 };
}
