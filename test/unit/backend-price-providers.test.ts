import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BACKENDS, priceProviderIds, priceProviderOf, priceProviderOfBackend } from '../../src/backends/registry.js';
import { loadPriceTable } from '../../src/catalog/price-package.js';
import { packagePriceList } from '../../src/catalog/index.js';
import { withDefaults } from '../../src/config/settings.js';
import { BACKEND_TYPES, type BackendType } from '../../src/core/backend-types.js';
import { catalogWindow } from '../../src/routing/context-windows.js';
import { priceFor } from '../../src/usage/prices.js';

/**
 * Each backend type says in its own folder (definition.ts) where the price package lists its
 * models; the catalog names no backend type. So every registered type must name a provider, and
 * every price lookup for a configured backend must go through it: a type without one, or a caller
 * that drops it, prices that type's models by name alone, and Bedrock's ids (`amazon.nova-pro-v1:0`)
 * then find nothing or another provider's price.
 */

const NOW = new Date();
const settingsWith = (type: BackendType) => withDefaults({ backends: { up: { type, baseUrl: 'http://127.0.0.1:9' } } });

describe('backend price providers', () => {
  it.each(BACKEND_TYPES)('%s names a price provider the package lists priced models for', (type) => {
    const provider = BACKENDS[type].priceProvider;
    expect(provider?.id, `${type} names no priceProvider in its definition.ts`).toEqual(expect.any(String));
    expect(loadPriceTable().findProvider({ providerId: provider.id })?.id).toBe(provider.id);
    expect(packagePriceList(NOW, [provider.id]).length).toBeGreaterThan(0);
    expect(priceProviderIds()).toContain(provider.id);
  });

  it.each(BACKEND_TYPES)("prices a %s backend's models as its provider lists them", (type) => {
    const provider = BACKENDS[type].priceProvider;
    const listed = packagePriceList(NOW, [provider.id]);
    const settings = settingsWith(type);
    expect(priceProviderOfBackend(settings, 'up')).toBe(provider);
    let found = 0;
    fc.assert(
      fc.property(fc.constantFrom(...listed), ({ id, price }) => {
        const priced = priceFor({}, 'up', id, false, priceProviderOfBackend(settings, 'up'));
        // A listed id the package's own matcher does not find by itself (`ft:gpt-4o`) is no case.
        if (priced === undefined) return;
        found++;
        expect(priced).toEqual(price);
      }),
      { numRuns: 200 },
    );
    expect(found).toBeGreaterThan(0);
  });

  it('prices Bedrock ids only through its provider: by name alone they find nothing', () => {
    // The case a dropped provider would break silently: AWS's own ids, at AWS's prices.
    expect(priceFor({}, 'up', 'amazon.nova-pro-v1:0', false, undefined)).toBeUndefined();
    expect(priceFor({}, 'up', 'amazon.nova-pro-v1:0', false, priceProviderOfBackend(settingsWith('bedrock'), 'up'))?.input.base).toBeGreaterThan(0);
    expect(catalogWindow('bedrock', 'amazon.nova-pro-v1:0')?.tokens).toBe(300_000);
    expect(catalogWindow(undefined, 'amazon.nova-pro-v1:0')).toBeUndefined();
  });

  it('gives no provider for the offline backend, a name not configured or a made-up type', () => {
    const settings = withDefaults({ backends: { odd: { type: 'constructor' as BackendType, baseUrl: 'http://127.0.0.1:9' } } });
    expect(priceProviderOfBackend(settings, 'offline')).toBeUndefined();
    expect(priceProviderOfBackend(settings, 'odd')).toBeUndefined();
    expect(priceProviderOfBackend(settings, '__proto__')).toBeUndefined();
    for (const type of ['__proto__', 'constructor', 'toString', '']) expect(priceProviderOf(type)).toBeUndefined();
  });
});
