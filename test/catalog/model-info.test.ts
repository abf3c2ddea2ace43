import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CAPABILITY_ROWS, mapEffort, modelInfo, PRICE_PACKAGE_SOURCE } from '../../src/catalog/index.js';
import { REASONING_EFFORTS, type ReasoningEffort } from '../../src/core/request.js';
import { priceProviderOf } from '../../src/backends/registry.js';
import type { BackendType } from '../../src/core/backend-types.js';

/** A lookup as a caller makes it: the type's own price provider, from its definition. */
const on = (type: BackendType | undefined, upstreamModel: string, backendName?: string) => ({ type, priceProvider: priceProviderOf(type), upstreamModel, ...(backendName ? { backendName } : {}) });

describe('modelInfo', () => {
  it('gives each value with its source: the price package and its version, or the local table and its page', () => {
    const info = modelInfo(on('anthropic', 'claude-sonnet-4-5-20250929'));
    expect(info.catalogId).toBe('claude-sonnet-4-5');
    expect(info.contextWindow).toEqual({ value: 200_000, source: PRICE_PACKAGE_SOURCE });
    expect(info.price?.source).toBe(PRICE_PACKAGE_SOURCE);
    expect(info.price?.value.cacheWrite1h?.base).toBe(6);
    expect(info.price?.value.input.tiers).toEqual([{ aboveInputTokens: 200_000, price: 6 }]);
    expect(info.maxOutput).toEqual({ value: 64_000, source: 'local table (https://platform.claude.com/docs/en/about-claude/models/overview)' });
    expect(info.capabilities?.source).toMatch(/^local table \(https:\/\//);
  });

  it('every local row cites a vendor page', () => {
    for (const row of CAPABILITY_ROWS) expect(row.doc, String(row.family)).toMatch(/^https:\/\/(?:platform\.openai\.com|platform\.claude\.com|ai\.google\.dev)\//);
  });

  it('lets the config win: BACKEND:MODEL over MODEL over the package, for prices and windows', () => {
    const overrides = {
      prices: { 'gpt-4.1': { input: 1, output: 1 }, 'azure:gpt-4.1': { input: 9, output: 9 } },
      contextWindows: { 'azure:gpt-4.1': 64_000 },
    };
    const azure = modelInfo(on('openai-chat', 'gpt-4.1', 'azure'), overrides);
    expect(azure.price).toMatchObject({ source: 'config: prices["azure:gpt-4.1"]', value: { input: { base: 9 } } });
    expect(azure.contextWindow).toEqual({ value: 64_000, source: 'config: contextWindows["azure:gpt-4.1"]' });
    const other = modelInfo(on('openai-chat', 'gpt-4.1', 'oa'), overrides);
    expect(other.price).toMatchObject({ source: 'config: prices["gpt-4.1"]', value: { input: { base: 1 } } });
    expect(other.contextWindow?.source).toBe(PRICE_PACKAGE_SOURCE);
    // A malformed override is passed over, not turned into NaN or 0.
    const broken = modelInfo(on('openai-chat', 'gpt-4.1'), { prices: { 'gpt-4.1': { input: '2', output: 8 } }, contextWindows: { 'gpt-4.1': -1 } });
    expect(broken.price?.source).toBe(PRICE_PACKAGE_SOURCE);
    expect(broken.contextWindow?.source).toBe(PRICE_PACKAGE_SOURCE);
  });

  it('gives an unknown model no numbers at all, whatever its name', () => {
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom('__proto__', 'constructor', 'toString', 'my-llama', 'x'.repeat(5_000)), fc.string({ maxLength: 30 }).map((text) => `zz-${text}`)), (name) => {
        const info = modelInfo(on('openai-chat', name), { prices: {}, contextWindows: {} });
        expect(info).toEqual({ model: name });
      }),
    );
  });

  it('takes a backend type from a hand-edited config as no type, never as a prototype key', () => {
    for (const type of ['__proto__', 'constructor', 'toString']) {
      expect(priceProviderOf(type)).toBeUndefined();
      const info = modelInfo({ type: type as never, priceProvider: priceProviderOf(type), upstreamModel: 'claude-haiku-4-5' });
      expect(info.price?.value.input.base).toBe(1);
    }
  });

  it('finds nothing in the config through the prototype', () => {
    for (const name of ['__proto__', 'constructor', 'hasOwnProperty']) {
      const info = modelInfo({ type: undefined, priceProvider: undefined, upstreamModel: name, backendName: 'x' }, { prices: {}, contextWindows: {} });
      expect(info.price).toBeUndefined();
      expect(info.contextWindow).toBeUndefined();
    }
  });

  it('takes the price in force on the day asked: Opus 4.6 lost its long-context tier on 2026-03-13', () => {
    const before = modelInfo(on('anthropic', 'claude-opus-4-6'), {}, new Date('2026-03-01T00:00:00Z'));
    const after = modelInfo(on('anthropic', 'claude-opus-4-6'), {}, new Date('2026-04-01T00:00:00Z'));
    expect(before.price?.value.input.tiers).toEqual([{ aboveInputTokens: 200_000, price: 10 }]);
    expect(after.price?.value.input.tiers).toEqual([]);
  });
});

describe('mapEffort', () => {
  const scale = fc.uniqueArray(fc.constantFrom<ReasoningEffort>(...REASONING_EFFORTS), { minLength: 1 });

  it('keeps a level the model has, else picks the nearest it has, names the change, and never turns reasoning off', () => {
    fc.assert(
      fc.property(fc.constantFrom<ReasoningEffort>(...REASONING_EFFORTS), scale, (asked, accepted) => {
        const mapped = mapEffort(asked, accepted, 'm');
        if (accepted.includes(asked)) {
          expect(mapped).toEqual({ effort: asked });
          return;
        }
        if (asked !== 'none' && accepted.every((effort) => effort === 'none')) {
          expect(mapped).toBeUndefined();
          return;
        }
        expect(accepted).toContain(mapped!.effort);
        if (asked !== 'none') expect(mapped!.effort).not.toBe('none');
        expect(mapped!.warning).toContain(`'${asked}' sent as '${mapped!.effort}'`);
        const distance = (effort: ReasoningEffort) => Math.abs(REASONING_EFFORTS.indexOf(effort) - REASONING_EFFORTS.indexOf(asked));
        const candidates = accepted.filter((effort) => asked === 'none' || effort !== 'none');
        expect(distance(mapped!.effort)).toBe(Math.min(...candidates.map(distance)));
      }),
    );
  });
});
