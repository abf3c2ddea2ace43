import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ModelPrice } from '../../src/config/settings.js';
import type { Usage } from '../../src/core/reply.js';
import { fromOverride, modelInfo, packagePriceList, PRICE_PACKAGE_SOURCE } from '../../src/catalog/index.js';
import { costNanoUsd, priceFor, usdOf } from '../../src/usage/prices.js';
import { priceProviderIds, priceProviderOf } from '../../src/backends/registry.js';
import type { BackendType } from '../../src/core/backend-types.js';

const NO_CONFIG: Record<string, ModelPrice> = {};
const cost = (usage: Usage, model: string, backend = 'upstream', configured = NO_CONFIG, type?: BackendType): number | undefined => {
  const nano = costNanoUsd(usage, priceFor(configured, backend, model, false, priceProviderOf(type)));
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

  it('prices one-hour cache writes at their own rate, apart from 5-minute ones (Claude Sonnet 4.5)', () => {
    // 10,000 input = 2,000 uncached + 6,000 read + 500 written for 5 minutes + 1,500 for an hour; 1,000 output.
    // 2,000 × $3 + 6,000 × $0.30 + 500 × $3.75 + 1,500 × $6 + 1,000 × $15 = $33,675 per million.
    const usage: Usage = { inputTokens: 10_000, cachedInputTokens: 6_000, cacheWriteInputTokens: 2_000, cacheWrite1hInputTokens: 1_500, outputTokens: 1_000 };
    expect(cost(usage, 'claude-sonnet-4-5-20250929')).toBe(0.033675);
  });

  it('prices every kind of token at its long-context rate past 200K (Claude Sonnet 4.5), cache lifetimes included', () => {
    // 250,000 input = 170,000 uncached × $6 + 50,000 read × $0.60 + 20,000 5-minute writes × $7.50
    // + 10,000 one-hour writes × $12; 10,000 output × $22.50 = $1,545,000 per million.
    const usage: Usage = { inputTokens: 250_000, cachedInputTokens: 50_000, cacheWriteInputTokens: 30_000, cacheWrite1hInputTokens: 10_000, outputTokens: 10_000 };
    expect(cost(usage, 'claude-sonnet-4-5')).toBe(1.545);
  });

  it('switches GPT-5.4 to its long-context rates past 272K input tokens, and not before', () => {
    // 272,000 × $5 + 1,000 × $22.50 = $1,382,500 per million; 271,999 × $2.50 + 1,000 × $15 = $694,997.50.
    expect(cost({ inputTokens: 272_000, outputTokens: 1_000 }, 'gpt-5.4', 'oa', NO_CONFIG, 'openai-responses')).toBe(1.3825);
    expect(cost({ inputTokens: 271_999, outputTokens: 1_000 }, 'gpt-5.4', 'oa', NO_CONFIG, 'openai-responses')).toBe(0.6949975);
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
    expect(costNanoUsd({ inputTokens: 100, outputTokens: 100 }, priceFor(NO_CONFIG, 'offline', 'svc.intelligent-pro', true, undefined))).toBe(0);
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

  it('finds dated snapshots and prefixed names as the price package matches them', () => {
    expect(priceFor(NO_CONFIG, 'anth', 'claude-haiku-4-5-20251001', false, priceProviderOf('anthropic'))?.input.base).toBe(1);
    expect(priceFor(NO_CONFIG, 'oa', 'gpt-4.1-2025-04-14', false, priceProviderOf('openai-chat'))?.input.base).toBe(2);
    expect(priceFor(NO_CONFIG, 'gem', 'models/gemini-2.5-flash', false, priceProviderOf('gemini'))?.input.base).toBe(0.3);
    // A different model whose name starts like a priced one is not priced as it.
    expect(priceFor(NO_CONFIG, 'oa', 'gpt-4.1-turbo-imaginary', false, priceProviderOf('openai-chat'))).toBeUndefined();
  });

  it('a config price has no one-hour write rate: a request that wrote for an hour gets no cost under it', () => {
    const configured = { 'claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } };
    const usage: Usage = { inputTokens: 100, cacheWriteInputTokens: 50, cacheWrite1hInputTokens: 10, outputTokens: 1 };
    expect(cost(usage, 'claude-sonnet-4-5', 'anth', configured)).toBeUndefined();
    expect(cost({ ...usage, cacheWrite1hInputTokens: 0 }, 'claude-sonnet-4-5', 'anth', configured)).toBe((50 * 3 + 50 * 3.75 + 15) / 1e6);
  });
});

describe('cost properties', () => {
  const tokens = fc.nat({ max: 2_000_000 });
  const usageArb = fc
    .record({ uncached: tokens, read: tokens, write: tokens, output: tokens })
    .map(({ uncached, read, write, output }): Usage => ({ inputTokens: uncached + read + write, cachedInputTokens: read, cacheWriteInputTokens: write, outputTokens: output }));

  it('every price the package ships gives a whole, non-negative number of nano-dollars, or none when a rate it needs is missing', () => {
    const shipped = packagePriceList(new Date(), priceProviderIds());
    expect(shipped.length).toBeGreaterThan(100);
    fc.assert(
      fc.property(fc.constantFrom(...shipped), usageArb, ({ price }, usage) => {
        const nano = costNanoUsd(usage, price);
        const missing = (usage.cachedInputTokens! > 0 && !price.cacheRead) || (usage.cacheWriteInputTokens! > 0 && !price.cacheWrite5m);
        if (missing) return nano === undefined;
        return nano !== undefined && Number.isSafeInteger(nano) && nano >= 0;
      }),
    );
  });

  it('a request costs what its parts cost, each priced alone (to the nano-dollar)', () => {
    const price = fromOverride({ input: 2.5, output: 10, cacheRead: 0.25, cacheWrite: 3.125 });
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
        const price = priceFor(configured, 'x', name, false, undefined);
        return price === undefined || name === 'known-model' || modelInfo({ type: undefined, priceProvider: undefined, upstreamModel: name }).price?.source === PRICE_PACKAGE_SOURCE;
      }),
    );
    expect(priceFor({}, 'x', '__proto__', false, undefined)).toBeUndefined();
    expect(priceFor({}, 'x', 'constructor', false, undefined)).toBeUndefined();
  });
});
