import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ModelPrice } from '../../src/config/settings.js';
import type { Usage } from '../../src/core/reply.js';
import { DEFAULT_PRICES } from '../../src/usage/default-prices.js';
import { baseNames, costNanoUsd, priceFor, usdOf } from '../../src/usage/prices.js';

const NO_CONFIG: Record<string, ModelPrice> = {};
const cost = (usage: Usage, model: string, backend = 'upstream', configured = NO_CONFIG): number | undefined => {
  const nano = costNanoUsd(usage, priceFor(configured, backend, model));
  return nano === undefined ? undefined : usdOf(nano);
};

describe('cost arithmetic, worked by hand', () => {
  it('prices uncached input, cache reads, cache writes and output each at their own rate (Claude Sonnet 4.5, dated snapshot)', () => {
    // 10,000 input = 2,000 uncached + 6,000 read from the cache + 2,000 written to it; 1,000 output.
    // 2,000 × $3 + 6,000 × $0.30 + 2,000 × $3.75 + 1,000 × $15 = $30,300 per million = $0.0303.
    const usage: Usage = { inputTokens: 10_000, cachedInputTokens: 6_000, cacheWriteInputTokens: 2_000, outputTokens: 1_000 };
    expect(cost(usage, 'claude-sonnet-4-5-20250929')).toBe(0.0303);
  });

  it('prices OpenAI cached input at the cached rate (gpt-4o-mini, dated snapshot)', () => {
    // 999,500 × $0.15 + 500 × $0.075 + 2,000 × $0.60 = $151,162.5 per million = $0.1511625.
    const usage: Usage = { inputTokens: 1_000_000, cachedInputTokens: 500, outputTokens: 2_000 };
    expect(cost(usage, 'gpt-4o-mini-2024-07-18')).toBe(0.1511625);
  });

  it('switches every rate to the long-context tier once the input passes the threshold (Gemini 2.5 Pro)', () => {
    // 250,000 input (50,000 cached) > 200,000: 200,000 × $2.50 + 50,000 × $0.25 + 10,000 × $15 = $0.6625.
    expect(cost({ inputTokens: 250_000, cachedInputTokens: 50_000, outputTokens: 10_000 }, 'models/gemini-2.5-pro')).toBe(0.6625);
    // At the threshold itself the standard tier applies: 200,000 × $1.25 + 10,000 × $10 = $0.35.
    expect(cost({ inputTokens: 200_000, outputTokens: 10_000 }, 'gemini-2.5-pro')).toBe(0.35);
  });

  it('gives no number, never 0, for an unknown model or a kind of token whose price is unknown', () => {
    expect(cost({ inputTokens: 10, outputTokens: 10 }, 'my-local-llama')).toBeUndefined();
    // Gemini has no per-token cache write price.
    expect(cost({ inputTokens: 10, cacheWriteInputTokens: 5, outputTokens: 1 }, 'gemini-2.5-flash')).toBeUndefined();
    expect(cost({ inputTokens: 10, outputTokens: 1 }, 'gemini-2.5-flash')).toBe((10 * 0.3 + 1 * 2.5) / 1e6);
  });

  it('prices the built-in offline backend at 0, and a config price over it and over the defaults', () => {
    expect(costNanoUsd({ inputTokens: 100, outputTokens: 100 }, priceFor(NO_CONFIG, 'offline', 'svc.intelligent-pro', true))).toBe(0);
    const configured = { 'gpt-4.1': { input: 1, output: 1 }, 'azure:gpt-4.1': { input: 10, output: 20 } };
    expect(cost({ inputTokens: 1_000, outputTokens: 1_000 }, 'gpt-4.1', 'openai', configured)).toBe(0.002);
    expect(cost({ inputTokens: 1_000, outputTokens: 1_000 }, 'gpt-4.1', 'azure', configured)).toBe(0.03);
    expect(cost({ inputTokens: 1_000, outputTokens: 1_000 }, 'gpt-4.1')).toBe(0.01);
  });

  it('ignores a malformed config price instead of computing NaN or a fake 0', () => {
    const configured = { 'my-model': { input: '3', output: 15 } as unknown as ModelPrice, 'gpt-4.1': { input: -1, output: 8 } };
    expect(cost({ inputTokens: 1, outputTokens: 1 }, 'my-model', 'x', configured)).toBeUndefined();
    // The malformed override falls back to the shipped price.
    expect(cost({ inputTokens: 1_000_000, outputTokens: 0 }, 'gpt-4.1', 'x', configured)).toBe(2);
  });

  it('finds snapshots by their base name only: a date or -latest suffix, a models/ prefix', () => {
    expect(baseNames('claude-haiku-4-5@20251001')).toContain('claude-haiku-4-5');
    expect(baseNames('gpt-4.1-2025-04-14')).toContain('gpt-4.1');
    expect(baseNames('models/gemini-2.5-flash')).toContain('gemini-2.5-flash');
    // A different model whose name starts like a priced one is not priced as it.
    expect(priceFor(NO_CONFIG, 'openai', 'gpt-4o-audio-preview')).toBeUndefined();
  });
});

describe('cost properties', () => {
  const tokens = fc.nat({ max: 2_000_000 });
  const usageArb = fc
    .record({ uncached: tokens, read: tokens, write: tokens, output: tokens })
    .map(({ uncached, read, write, output }): Usage => ({ inputTokens: uncached + read + write, cachedInputTokens: read, cacheWriteInputTokens: write, outputTokens: output }));

  it('every shipped price gives a whole, non-negative number of nano-dollars, or none when a rate it needs is missing', () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(DEFAULT_PRICES)), usageArb, (model, usage) => {
        const price = DEFAULT_PRICES[model]!;
        const nano = costNanoUsd(usage, price);
        const rates = price.longContext && usage.inputTokens > price.longContext.aboveInputTokens ? price.longContext : price;
        const missing = (usage.cachedInputTokens! > 0 && rates.cacheRead === undefined) || (usage.cacheWriteInputTokens! > 0 && rates.cacheWrite === undefined);
        if (missing) return nano === undefined;
        return nano !== undefined && Number.isSafeInteger(nano) && nano >= 0;
      }),
    );
  });

  it('a request costs what its parts cost, each priced alone (to the nano-dollar)', () => {
    const price: ModelPrice = { input: 2.5, output: 10, cacheRead: 0.25, cacheWrite: 3.125 };
    fc.assert(
      fc.property(usageArb, (usage) => {
        const whole = costNanoUsd(usage, price)!;
        const parts =
          costNanoUsd({ inputTokens: usage.inputTokens - usage.cachedInputTokens! - usage.cacheWriteInputTokens!, outputTokens: 0 }, price)! +
          costNanoUsd({ inputTokens: usage.cachedInputTokens!, cachedInputTokens: usage.cachedInputTokens!, outputTokens: 0 }, price)! +
          costNanoUsd({ inputTokens: usage.cacheWriteInputTokens!, cacheWriteInputTokens: usage.cacheWriteInputTokens!, outputTokens: 0 }, price)! +
          costNanoUsd({ inputTokens: 0, outputTokens: usage.outputTokens }, price)!;
        return Math.abs(whole - parts) <= 2;
      }),
    );
  });

  it('a model name is looked up by own property only: no name finds a price it was not given', () => {
    const configured = Object.assign(Object.create(null) as Record<string, ModelPrice>, { 'known-model': { input: 1, output: 1 } });
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'), fc.string()), (name) => {
        const price = priceFor(configured, 'x', name);
        return price === undefined || name === 'known-model' || baseNames(name).some((base) => Object.hasOwn(DEFAULT_PRICES, base));
      }),
    );
    expect(priceFor({}, 'x', '__proto__')).toBeUndefined();
    expect(priceFor({}, 'x', 'constructor')).toBeUndefined();
  });
});
