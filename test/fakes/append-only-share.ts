import { anthropicCache, type AnthropicPrompt } from './anthropic-prompt-cache.js';
import { automaticCache, geminiRules, openAIRules } from './automatic-prompt-cache.js';
import { CHARS_PER_TOKEN, PromptCache, cachedShare, part, type PromptPart, type PromptRecord } from './prompt-cache.js';

/** Whose cache rules apply: OpenAI's serve both Chat and Responses. */
export type CacheProvider = 'anthropic' | 'openai' | 'gemini';

/**
 * The best cached share a client can get from a provider for a session whose prompts have these
 * token counts: the share the same fake's cache reports when each request's prompt extends the
 * one before it by appending only (nothing earlier re-written, moved or dropped), on Anthropic with
 * a cache breakpoint on the last block of every request.
 *
 * The prompts are built as consecutive slices of one text, cut where each earlier prompt ended, so
 * a prompt shares exactly min(its tokens, an earlier prompt's tokens) with each earlier one.
 */
export function appendOnlyRecords(provider: CacheProvider, model: string, inputTokens: readonly number[]): PromptRecord[] {
  const store = new PromptCache();
  const scope = PromptCache.scope(provider, 'append-only', model);
  const longest = Math.max(0, ...inputTokens);
  const text = 'abcdefghijklmnopqrstuvwxyz'.repeat(Math.ceil((longest * CHARS_PER_TOKEN) / 26) + 1);
  return inputTokens.map((tokens, index) => {
    const cuts = [...new Set(inputTokens.slice(0, index).filter((earlier) => earlier > 0 && earlier < tokens))].sort((a, b) => a - b);
    const edges = [0, ...cuts, tokens];
    const parts: PromptPart[] = [];
    for (let i = 1; i < edges.length; i++) {
      if (edges[i]! > edges[i - 1]!) parts.push(part('message', `slice[${i - 1}]`, text.slice(edges[i - 1]! * CHARS_PER_TOKEN, edges[i]! * CHARS_PER_TOKEN)));
    }
    if (provider === 'anthropic') {
      const prompt: AnthropicPrompt = { parts, breakpoints: [{ index: parts.length - 1, ttl: '5m', path: 'cache_control', control: { type: 'ephemeral' } }] };
      return anthropicCache(store, scope, model, prompt);
    }
    const rules = provider === 'gemini' ? geminiRules(model) : openAIRules(undefined);
    return automaticCache(store, scope, model, parts, rules);
  });
}

export function appendOnlyShare(provider: CacheProvider, model: string, inputTokens: readonly number[]): number {
  return cachedShare(appendOnlyRecords(provider, model, inputTokens));
}
