import type { ModelPrice } from '../config/settings.js';

/**
 * The day the shipped prices were checked against the providers' own pricing pages. Prices change:
 * `prices` in the config overrides any of them, and a model not listed here has no cost until it is.
 */
export const DEFAULT_PRICES_DATE = '2026-11-23';

/** Anthropic's published multipliers: a 5-minute cache write costs 1.25x input, a cache hit 0.1x. */
const claude = (input: number, output: number): ModelPrice => ({ input, output, cacheWrite: input * 1.25, cacheRead: input / 10 });

/**
 * USD per million tokens, standard (not batch, not priority) tier, by the upstream's model name as
 * the provider documents it; dated snapshots (`-20250929`, `-2024-08-06`) find their base name.
 *
 * - OpenAI: developers.openai.com/api/docs/pricing. "Cached input" is the cache-read price; OpenAI
 *   charges nothing extra to write its cache, so a cache write costs plain input.
 * - Anthropic: platform.claude.com/docs/en/about-claude/pricing ("Model pricing"; cache writes at
 *   the 5-minute rate, the default TTL); Sonnet 4 and 4.5 charge more for input past 200K tokens
 *   (long-context pricing).
 * - Google: ai.google.dev/gemini-api/docs/pricing (paid tier, text input); 2.5 Pro charges more past
 *   200K input tokens; context-cache storage (per hour) is not a per-request cost and is not counted.
 */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, ModelPrice>, {
    // OpenAI
    'gpt-5.5': { input: 5, output: 30, cacheRead: 0.5, cacheWrite: 5 },
    'gpt-5.4': { input: 2.5, output: 15, cacheRead: 0.25, cacheWrite: 2.5 },
    'gpt-5.4-mini': { input: 0.75, output: 4.5, cacheRead: 0.075, cacheWrite: 0.75 },
    'gpt-5.4-nano': { input: 0.2, output: 1.25, cacheRead: 0.02, cacheWrite: 0.2 },
    'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
    'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0.25 },
    'gpt-5-nano': { input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0.05 },
    'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2 },
    'gpt-4.1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0.4 },
    'gpt-4.1-nano': { input: 0.1, output: 0.4, cacheRead: 0.025, cacheWrite: 0.1 },
    'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 2.5 },
    'gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0.15 },
    o3: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2 },
    'o4-mini': { input: 1.1, output: 4.4, cacheRead: 0.275, cacheWrite: 1.1 },
    // Anthropic
    'claude-opus-4-5': claude(5, 25),
    'claude-opus-4-6': claude(5, 25),
    'claude-opus-4-7': claude(5, 25),
    'claude-opus-4-1': claude(15, 75),
    'claude-opus-4': claude(15, 75),
    'claude-opus-4-0': claude(15, 75),
    'claude-sonnet-4-6': claude(3, 15),
    'claude-sonnet-4-5': { ...claude(3, 15), longContext: { aboveInputTokens: 200_000, input: 6, output: 22.5, cacheWrite: 7.5, cacheRead: 0.6 } },
    'claude-sonnet-4': { ...claude(3, 15), longContext: { aboveInputTokens: 200_000, input: 6, output: 22.5, cacheWrite: 7.5, cacheRead: 0.6 } },
    'claude-sonnet-4-0': { ...claude(3, 15), longContext: { aboveInputTokens: 200_000, input: 6, output: 22.5, cacheWrite: 7.5, cacheRead: 0.6 } },
    'claude-3-7-sonnet': claude(3, 15),
    'claude-haiku-4-5': claude(1, 5),
    'claude-3-5-haiku': { input: 0.8, output: 4, cacheWrite: 1, cacheRead: 0.08 },
    'claude-3-haiku': { input: 0.25, output: 1.25, cacheWrite: 0.3, cacheRead: 0.03 },
    // Google
    'gemini-2.5-pro': { input: 1.25, output: 10, cacheRead: 0.125, longContext: { aboveInputTokens: 200_000, input: 2.5, output: 15, cacheRead: 0.25 } },
    'gemini-2.5-flash': { input: 0.3, output: 2.5, cacheRead: 0.03 },
    'gemini-2.5-flash-lite': { input: 0.1, output: 0.4, cacheRead: 0.01 },
    'gemini-2.0-flash': { input: 0.1, output: 0.4, cacheRead: 0.025 },
  } satisfies Record<string, ModelPrice>),
);
