import { describe, expect, it } from 'vitest';
import { usageFromAnthropic } from '../../src/backends/anthropic/decode-usage.js';
import { costNanoUsd, priceFor, usdOf } from '../../src/usage/prices.js';
import { priceProviderOf } from '../../src/backends/registry.js';

describe("Anthropic's cache writes by lifetime", () => {
  it('keeps the one-hour part of the writes, as message_start reports it, through a later message_delta', () => {
    const start = usageFromAnthropic({
      input_tokens: 10,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 3_000,
      cache_creation: { ephemeral_5m_input_tokens: 1_000, ephemeral_1h_input_tokens: 2_000 },
      output_tokens: 1,
    });
    expect(start).toMatchObject({ inputTokens: 3_110, cachedInputTokens: 100, cacheWriteInputTokens: 3_000, cacheWrite1hInputTokens: 2_000 });
    const delta = usageFromAnthropic({ output_tokens: 50 }, start);
    expect(delta).toMatchObject({ cacheWriteInputTokens: 3_000, cacheWrite1hInputTokens: 2_000, outputTokens: 50 });
  });

  it('prices the one-hour writes at twice input and the rest at 1.25x (Claude Haiku 4.5: $1 input)', () => {
    const usage = usageFromAnthropic({ input_tokens: 0, cache_creation_input_tokens: 3_000, cache_creation: { ephemeral_5m_input_tokens: 1_000, ephemeral_1h_input_tokens: 2_000 }, output_tokens: 0 });
    // 1,000 × $1.25 + 2,000 × $2 = $5,250 per million.
    expect(usdOf(costNanoUsd(usage, priceFor({}, 'anth', 'claude-haiku-4-5', false, priceProviderOf('anthropic')))!)).toBe(0.00525);
  });
});
