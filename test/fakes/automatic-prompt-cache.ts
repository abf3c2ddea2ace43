import { HOUR, MINUTE, cumulativeTokens, promptRecord, type PromptCache, type PromptPart, type PromptRecord } from './prompt-cache.js';

/**
 * Caching that needs no markers: every prompt long enough is stored, and a later prompt in the
 * same scope reads the longest prefix it shares with one, as OpenAI and Gemini do.
 */
export interface AutomaticCacheRules {
  /** Prompts shorter than this are neither stored nor served from the cache. */
  minimumTokens: number;
  /** Cache hits come in whole steps of this many tokens (1 for none). */
  step: number;
  /** How long an entry lives after its last use. */
  ttlMs: number;
}

export function automaticCache(store: PromptCache, scope: string, model: string, parts: readonly PromptPart[], rules: AutomaticCacheRules, cacheKey?: string): PromptRecord {
  const total = parts.reduce((sum, p) => sum + p.tokens, 0);
  if (rules.minimumTokens === Infinity || total < rules.minimumTokens) return promptRecord(model, parts, { cachedTokens: 0, cachedParts: 0, cacheWriteTokens: 0 }, cacheKey);
  const shared = store.longestSharedPrefix(scope, parts);
  const stepped = Math.floor(shared.tokens / rules.step) * rules.step;
  const cachedTokens = stepped >= rules.minimumTokens ? stepped : 0;
  if (cachedTokens > 0 && shared.entryHash) store.refresh(scope, shared.entryHash);
  store.write(scope, parts, parts.length - 1, rules.ttlMs);
  const storable = Math.floor(total / rules.step) * rules.step;
  const cumulative = cumulativeTokens(parts);
  let cachedParts = 0;
  while (cachedTokens > 0 && cachedParts < shared.wholeParts && cumulative[cachedParts]! <= cachedTokens) cachedParts++;
  return promptRecord(model, parts, { cachedTokens, cachedParts, cacheWriteTokens: Math.max(0, storable - cachedTokens) }, cacheKey);
}

/**
 * OpenAI, https://developers.openai.com/api/docs/guides/prompt-caching (and the Prompt Caching 201
 * cookbook): caching is automatic for prompts of 1,024 tokens or more; hits need an exact prefix
 * and come in increments of 128 tokens (1,024, 1,152, …); the whole request prefix is cacheable,
 * tools and messages alike; `prompt_cache_key` is combined with the prefix hash to route requests,
 * so prompts under different keys are modelled as never sharing; caches are not shared between
 * organisations. Retention `in_memory` clears within 5 to 10 minutes of inactivity (here: 5, the
 * earliest), `24h` keeps prefixes up to 24 hours. Reported as `usage.prompt_tokens_details.cached_tokens`
 * (Chat) and `usage.input_tokens_details.cached_tokens` (Responses); writes cost nothing and are
 * not reported on the models this fake stands for.
 */
export const OPENAI_MINIMUM_TOKENS = 1024;
export const OPENAI_CACHE_STEP = 128;
export const OPENAI_RETENTION_MS = { in_memory: 5 * MINUTE, '24h': 24 * HOUR } as const;

export function openAIRules(retention: unknown): AutomaticCacheRules {
  return { minimumTokens: OPENAI_MINIMUM_TOKENS, step: OPENAI_CACHE_STEP, ttlMs: retention === '24h' ? OPENAI_RETENTION_MS['24h'] : OPENAI_RETENTION_MS.in_memory };
}

/**
 * Gemini, https://ai.google.dev/gemini-api/docs/caching (updated 2026-10-13): implicit caching is
 * on for Gemini 2.5 and newer, with a minimum input of 2,048 tokens for Gemini 2.5 Flash and Pro
 * and 4,096 for the Gemini 3 generation; hits are reported as `usageMetadata.cachedContentTokenCount`
 * (within promptTokenCount). Older models have no implicit caching. The page names no granularity
 * and no lifetime for implicit entries ("send requests with similar prefix in a short amount of
 * time"): hits here are exact token counts, and entries live five minutes after their last use.
 */
export const GEMINI_IMPLICIT_TTL_MS = 5 * MINUTE;

export function geminiMinimumTokens(model: string): number {
  const version = /gemini-(\d+)(?:\.(\d+))?/.exec(model);
  if (!version) return 4096;
  const major = Number(version[1]);
  const minor = Number(version[2] ?? 0);
  if (major < 2 || (major === 2 && minor < 5)) return Infinity;
  return major === 2 ? 2048 : 4096;
}

export function geminiRules(model: string): AutomaticCacheRules {
  return { minimumTokens: geminiMinimumTokens(model), step: 1, ttlMs: GEMINI_IMPLICIT_TTL_MS };
}
