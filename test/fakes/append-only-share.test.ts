import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendOnlyRecords, appendOnlyShare } from './append-only-share.js';

/** The baseline for routes a client cannot reach directly: each prompt read back up to where the last one ended. */

describe('append-only baseline', () => {
  it('OpenAI: each prompt reads the one before it, in 128-token steps, nothing under 1,024', () => {
    const records = appendOnlyRecords('openai', 'gpt-4.1', [900, 2000, 2500, 3000]);
    expect(records.map((record) => record.cachedTokens)).toEqual([0, 0, 1920, 2432]);
    expect(records.map((record) => record.inputTokens)).toEqual([900, 2000, 2500, 3000]);
  });

  it('Gemini 2.5: exact token counts, from a stored prompt of 2,048 or more; Gemini 2.0 caches nothing', () => {
    expect(appendOnlyRecords('gemini', 'gemini-2.5-flash', [2000, 2100, 3000]).map((record) => record.cachedTokens)).toEqual([0, 0, 2100]);
    expect(appendOnlyRecords('gemini', 'gemini-2.5-flash', [2100, 2500, 3000]).map((record) => record.cachedTokens)).toEqual([0, 2100, 2500]);
    expect(appendOnlyShare('gemini', 'gemini-2.0-flash', [5000, 6000])).toBe(0);
  });

  it('Anthropic: a breakpoint on the last block reads the previous prompt whole, once that reached the model\'s minimum', () => {
    const records = appendOnlyRecords('anthropic', 'claude-sonnet-4-5', [1000, 1500, 2600]);
    expect(records.map((record) => record.cachedTokens)).toEqual([0, 0, 1500]);
    expect(records.map((record) => record.cacheWriteTokens)).toEqual([0, 1500, 1100]);
    // Opus 4.5 needs 4,096: the 3,000-token prompt is never stored.
    expect(appendOnlyShare('anthropic', 'claude-opus-4-5', [3000, 4500, 5000])).toBe(4500 / 12500);
  });

  it('a shorter prompt after a longer one is read whole where the rules allow, and never more than it holds', () => {
    fc.assert(
      fc.property(fc.constantFrom('openai' as const, 'gemini' as const, 'anthropic' as const), fc.array(fc.integer({ min: 1, max: 20_000 }), { minLength: 1, maxLength: 8 }), (provider, tokens) => {
        const records = appendOnlyRecords(provider, provider === 'gemini' ? 'gemini-2.5-pro' : provider === 'openai' ? 'gpt-5' : 'claude-sonnet-4-5', tokens);
        records.forEach((record, index) => {
          expect(record.inputTokens).toBe(tokens[index]);
          expect(record.cachedTokens).toBeLessThanOrEqual(record.inputTokens);
          // Never more than the longest earlier prompt it could share with.
          expect(record.cachedTokens).toBeLessThanOrEqual(Math.max(0, ...tokens.slice(0, index)));
        });
        expect(records[0]!.cachedTokens).toBe(0);
      }),
    );
  });
});
