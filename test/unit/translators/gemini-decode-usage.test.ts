import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GeminiUsageMetadata } from '../../../src/wire/gemini/types.js';
import { usageFromGemini, usageMetadataOf } from '../../../src/wire/gemini/usage-metadata.js';
import type { Usage } from '../../../src/core/reply.js';

describe('gemini usageMetadata to canonical usage', () => {
  const cases: Array<[string, GeminiUsageMetadata | undefined, Usage | undefined]> = [
    ['nothing reported', undefined, undefined],
    ['an empty object', {}, undefined],
    ['prompt and answer', { promptTokenCount: 29, candidatesTokenCount: 15, totalTokenCount: 44 }, { inputTokens: 29, outputTokens: 15 }],
    [
      'thoughts are output tokens, and reasoning',
      { promptTokenCount: 29, candidatesTokenCount: 15, thoughtsTokenCount: 804, totalTokenCount: 848 },
      { inputTokens: 29, outputTokens: 819, reasoningTokens: 804 },
    ],
    [
      'the cached part is within the prompt count',
      { promptTokenCount: 1200, cachedContentTokenCount: 1000, candidatesTokenCount: 10 },
      { inputTokens: 1200, outputTokens: 10, cachedInputTokens: 1000 },
    ],
    ['tool-use prompt tokens count as input', { promptTokenCount: 10, toolUsePromptTokenCount: 90, candidatesTokenCount: 5 }, { inputTokens: 100, outputTokens: 5 }],
    ['a prompt-only count (a blocked prompt)', { promptTokenCount: 9, totalTokenCount: 9 }, { inputTokens: 9, outputTokens: 0 }],
    ['zero cached and thought counts are left out', { promptTokenCount: 9, candidatesTokenCount: 1, cachedContentTokenCount: 0, thoughtsTokenCount: 0 }, { inputTokens: 9, outputTokens: 1 }],
  ];
  it.each(cases)('%s', (_name, raw, expected) => {
    // The upstream's own object rides along as `raw`.
    expect(usageFromGemini(raw)).toEqual(expected && { ...expected, raw });
  });
});

describe('canonical usage to gemini usageMetadata', () => {
  it('reads back as the same usage, whatever the counts', () => {
    const counts = fc.record({ input: fc.nat(2_000_000), cachedShare: fc.double({ min: 0, max: 1, noNaN: true }), output: fc.nat(100_000), thoughtShare: fc.double({ min: 0, max: 1, noNaN: true }) });
    fc.assert(
      fc.property(counts, ({ input, cachedShare, output, thoughtShare }) => {
        const cached = Math.floor(input * cachedShare);
        const thoughts = Math.floor(output * thoughtShare);
        const usage: Usage = { inputTokens: input, outputTokens: output, ...(cached ? { cachedInputTokens: cached } : {}), ...(thoughts ? { reasoningTokens: thoughts } : {}) };
        const metadata = usageMetadataOf(usage);
        expect(metadata.totalTokenCount).toBe(input + output);
        const { raw: _raw, ...read } = usageFromGemini(metadata)!;
        expect(read).toEqual(usage);
      }),
    );
  });

  it('says the cached part and the thinking apart, as Gemini does', () => {
    expect(usageMetadataOf({ inputTokens: 120, outputTokens: 30, cachedInputTokens: 80, reasoningTokens: 12 })).toEqual({
      promptTokenCount: 120,
      candidatesTokenCount: 18,
      totalTokenCount: 150,
      cachedContentTokenCount: 80,
      thoughtsTokenCount: 12,
    });
  });
});
