import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claudeModelPlan } from '../../src/cli/claude-model-plan.js';
import { claudeModelEnv } from '../../src/cli/client-settings.js';
import { codexModelCatalogJson } from '../../src/cli/codex-model-catalog.js';
import { withDefaults } from '../../src/config/settings.js';
import { FORMATS } from '../../src/formats/registry.js';
import { FALLBACK_CONTEXT_WINDOW } from '../../src/formats/responses/codex-models.js';
import { PRICE_PACKAGE_SOURCE } from '../../src/catalog/index.js';
import { catalogWindow, contextWindowOf } from '../../src/routing/context-windows.js';
import { resolveChain } from '../../src/routing/resolve-route.js';
import { SKUS } from '../../src/core/model-names.js';

const PRO = 'svc.intelligent-pro';
const BASIC = 'svc.intelligent-basic';
const LITE = 'svc.intelligent-lite';
const messages = FORMATS.find((format) => format.name === 'messages')!;

describe('catalogWindow', () => {
  it.each([
    ['openai-chat', 'gpt-4o', 128_000],
    ['openai-chat', 'gpt-4o-mini-2024-07-18', 128_000],
    ['openai-responses', 'gpt-4.1-nano', 1_000_000],
    // GPT-5 holds 400,000 tokens, at most 128,000 of them output: a client compacts under the prompt's cap.
    ['openai-responses', 'gpt-5-codex', 272_000],
    ['openai-chat', 'o1-mini', 128_000],
    ['openai-chat', 'o3', 200_000],
    ['anthropic', 'claude-haiku-4-5-20251001', 200_000],
    ['anthropic', 'claude-sonnet-4-6', 1_000_000],
    ['gemini', 'models/gemini-2.5-pro', 1_048_576],
  ] as const)('%s %s holds %i tokens', (type, model, tokens) => {
    expect(catalogWindow(type, model)?.tokens).toBe(tokens);
  });

  it('names where each window came from: the price package and its version, or the local table and its page', () => {
    expect(catalogWindow('anthropic', 'claude-haiku-4-5')?.from).toBe(PRICE_PACKAGE_SOURCE);
    expect(PRICE_PACKAGE_SOURCE).toMatch(/^@pydantic\/genai-prices \d+\.\d+\.\d+$/);
    expect(catalogWindow('gemini', 'gemini-2.5-pro')?.from).toMatch(/^local table \(https:\/\/ai\.google\.dev\//);
  });

  it.each(['llama3:8b', 'my-model', 'o3ish', 'svc.intelligent-pro', '', 'constructor', '__proto__', 'x'.repeat(10_000)])('knows no window for %s', (model) => {
    expect(catalogWindow(undefined, model)).toBeUndefined();
    expect(catalogWindow('openai-chat', model)).toBeUndefined();
  });
});

describe('contextWindowOf', () => {
  const settings = withDefaults({
    routes: { [PRO]: ['anth:claude-sonnet-4-5', 'oa:gpt-4o'], [BASIC]: ['local:llama3:8b'], [LITE]: ['offline'], 'claude-*': ['anth'] },
    backends: { anth: { type: 'anthropic' }, oa: { type: 'openai-chat' }, local: { type: 'openai-chat' } },
    contextWindows: { 'local:llama3:8b': 8_192 },
  } as never);

  it('takes the smallest window along a chain, since a fallback may land on any target', () => {
    expect(contextWindowOf(settings, PRO)).toEqual({ known: true, window: { tokens: 128_000, source: 'catalog', from: PRICE_PACKAGE_SOURCE } });
  });

  it('uses a window set for a target, and one set for the route before its targets', () => {
    expect(contextWindowOf(settings, BASIC)).toEqual({ known: true, window: { tokens: 8_192, source: 'config', from: 'config: contextWindows["local:llama3:8b"]' } });
    const routeSet = withDefaults({ ...settings, contextWindows: { ...settings.contextWindows, [BASIC]: 4_096 } });
    expect(contextWindowOf(routeSet, BASIC)).toEqual({ known: true, window: { tokens: 4_096, source: 'config', from: `config: contextWindows["${BASIC}"]` } });
  });

  it('says which targets are unknown, and that an offline route has no window', () => {
    expect(contextWindowOf(withDefaults({ routes: { [BASIC]: ['local:llama3:8b', 'oa:gpt-4o'] } }), BASIC)).toEqual({
      known: false,
      reason: 'unknown-model',
      targets: ['local:llama3:8b'],
    });
    expect(contextWindowOf(settings, LITE)).toEqual({ known: false, reason: 'offline' });
    expect(contextWindowOf(settings, 'svc.unrouted')).toEqual({ known: false, reason: 'offline' });
  });

  it('a pattern route passes the client\'s model through: the catalog decides', () => {
    expect(contextWindowOf(settings, 'claude-opus-4-1')).toEqual({ known: true, window: { tokens: 200_000, source: 'catalog', from: PRICE_PACKAGE_SOURCE } });
  });

  it('never finds a window through the prototype, whatever name a client or the config uses', () => {
    fc.assert(
      fc.property(fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', PRO), (name) => {
        const bare = withDefaults({ routes: { [PRO]: ['local:x'] } });
        expect(contextWindowOf(bare, name).known).toBe(false);
        // Only numbers count as windows, even if a hand-edited file holds something else.
        const odd = withDefaults({ routes: { [PRO]: ['local:x'] }, contextWindows: JSON.parse(`{"${name}": "1000", "local:x": -5}`) });
        expect(contextWindowOf(odd, name).known).toBe(false);
      }),
    );
  });
});

describe('the Codex catalog and Claude Code are told the same window', () => {
  it('writes each SKU\'s window into the catalog, with the fallback for unknown ones', () => {
    const settings = withDefaults({ routes: { [PRO]: ['anth:claude-sonnet-4-5'], [BASIC]: ['local:mystery'] } });
    const catalog = JSON.parse(codexModelCatalogJson(SKUS, undefined, settings)) as { models: Array<{ slug: string; context_window: number }> };
    expect(Object.fromEntries(catalog.models.map((model) => [model.slug, model.context_window]))).toEqual({
      [PRO]: 200_000,
      [BASIC]: FALLBACK_CONTEXT_WINDOW,
      [LITE]: FALLBACK_CONTEXT_WINDOW,
    });
    expect(claudeModelEnv(claudeModelPlan(withDefaults({ routes: { [PRO]: ['anth:claude-sonnet-4-5'] } }))).CLAUDE_CODE_MAX_CONTEXT_TOKENS).toBe('200000');
  });
});

describe("the Codex catalog offers the route model's reasoning levels", () => {
  it("lists the levels the lead target's model takes, within Codex's own, else low, medium and high", () => {
    const settings = withDefaults({
      backends: { oa: { type: 'openai-responses' }, anth: { type: 'anthropic' } },
      routes: { [PRO]: ['offline', 'oa:gpt-5.2'], [BASIC]: ['anth:claude-opus-4-7'], [LITE]: ['oa:my-model'] },
    } as never);
    const catalog = JSON.parse(codexModelCatalogJson(SKUS, undefined, settings)) as { models: Array<{ slug: string; supported_reasoning_levels: Array<{ effort: string }> }> };
    const levels = Object.fromEntries(catalog.models.map((model) => [model.slug, model.supported_reasoning_levels.map((level) => level.effort)]));
    expect(levels).toEqual({
      [PRO]: ['none', 'low', 'medium', 'high', 'xhigh'],
      // Anthropic's max is no Codex level.
      [BASIC]: ['low', 'medium', 'high', 'xhigh'],
      [LITE]: ['low', 'medium', 'high'],
    });
  });
});

/** Any config of the three SKUs, each unrouted, offline or routed to a real backend. */
type SkuRoutes = Record<string, readonly string[] | undefined>;
const skuRoutes: fc.Arbitrary<SkuRoutes> = fc.record({
  [PRO]: fc.constantFrom(undefined, ['offline'], ['oa:gpt-4o'], ['offline', 'anth:claude-sonnet-4-5']),
  [BASIC]: fc.constantFrom(undefined, ['offline'], ['oa:gpt-4.1-mini']),
  [LITE]: fc.constantFrom(undefined, ['offline'], ['oa:gpt-4o-mini']),
});
const toSettings = (routes: SkuRoutes) =>
  withDefaults({ routes: Object.fromEntries(Object.entries(routes).flatMap(([sku, targets]) => (targets ? [[sku, [...targets]]] : []))) });
const isReal = (routes: SkuRoutes, sku: string) => (routes[sku] ?? []).some((target) => !target.startsWith('offline'));

describe('no Claude Code request reaches the offline backend while a real route exists', () => {
  it('every model variable connect writes names an SKU routed to a real backend, when any is', () => {
    fc.assert(
      fc.property(skuRoutes, (routes) => {
        const env = claudeModelEnv(claudeModelPlan(toSettings(routes)));
        const anyReal = SKUS.some((sku) => isReal(routes, sku));
        for (const [name, value] of Object.entries(env)) {
          if (!name.endsWith('_MODEL')) continue;
          expect(SKUS as readonly string[], name).toContain(value);
          if (anyReal) expect(isReal(routes, value), `${name}=${value}`).toBe(true);
        }
      }),
    );
  });

  it('an unrouted claude-* id borrows the first real SKU route, and says so; offline only when none is real', () => {
    fc.assert(
      fc.property(skuRoutes, fc.constantFrom('claude-haiku-4-5-20251001', 'claude-sonnet-4-5', 'claude-opus-4-1'), (routes, model) => {
        const route = resolveChain(toSettings(routes), model, messages, FORMATS);
        const firstReal = SKUS.find((sku) => isReal(routes, sku));
        if (firstReal) {
          expect(route.servedAs).toBe(firstReal);
          expect(route.targets.some((target) => target.backend !== 'offline')).toBe(true);
        } else {
          expect(route).toEqual({ targets: [{ backend: 'offline' }] });
        }
      }),
    );
  });

  it('a claude-* route of its own still wins', () => {
    const settings = withDefaults({ routes: { [PRO]: ['oa:gpt-4o'], 'claude-*': ['anth'] } });
    expect(resolveChain(settings, 'claude-haiku-4-5', messages, FORMATS)).toEqual({ targets: [{ backend: 'anth' }], route: 'claude-*' });
  });
});
