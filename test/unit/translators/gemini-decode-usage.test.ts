import { describe, expect, it } from 'vitest';
import type { GeminiUsageMetadata } from '../../../src/backends/gemini/api.js';
import { usageFromGemini } from '../../../src/backends/gemini/decode-usage.js';
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
