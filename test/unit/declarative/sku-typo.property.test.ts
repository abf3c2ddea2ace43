import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { editDistance } from '../../../src/core/closest.js';
import { validateText } from '../../../src/config/declarative/validate.js';
import { isRoutableModelName, SKUS } from '../../../src/core/model-names.js';
import { skuTypoOf } from '../../../src/core/sku-typo.js';

/**
 * A near miss of a built-in SKU (one or two edits, or a change of case) is a typo wherever a route
 * is named; a name clearly apart from every SKU is a new SKU the file may define.
 */

const letter = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-'.split(''));

/** One edit of a word: a letter inserted, removed, replaced, or two neighbours swapped (never in `svc.`). */
const editOf = (word: string): fc.Arbitrary<string> =>
  fc.tuple(fc.integer({ min: 4, max: word.length }), letter, fc.constantFrom('insert', 'delete', 'replace', 'swap')).map(([at, char, kind]) => {
    const index = Math.min(at, word.length - 1);
    if (kind === 'insert') return word.slice(0, at) + char + word.slice(at);
    if (kind === 'delete') return word.slice(0, index) + word.slice(index + 1);
    if (kind === 'replace') return word.slice(0, index) + char + word.slice(index + 1);
    return index + 1 < word.length ? word.slice(0, index) + word[index + 1] + word[index] + word.slice(index + 2) : word;
  });

const nearMiss = fc
  .constantFrom(...SKUS)
  .chain((sku) => fc.oneof(editOf(sku), editOf(sku).chain(editOf), fc.constant(sku.toUpperCase().replace('SVC.', 'svc.'))))
  .filter((name) => !(SKUS as readonly string[]).includes(name) && isRoutableModelName(name));

const clearlyApart = fc
  .stringMatching(/^svc\.[a-z][a-z0-9-]{0,20}$/)
  .filter((name) => SKUS.every((sku) => editDistance(name.toLowerCase(), sku) > 2));

const fileWith = (section: 'routes' | 'contextWindows' | 'routePolicies', name: string): string =>
  JSON.stringify({
    routes: { [section === 'routes' ? name : 'svc.intelligent-pro']: ['offline'] },
    ...(section === 'contextWindows' ? { contextWindows: { [name]: 8192 } } : {}),
    ...(section === 'routePolicies' ? { routePolicies: { [name]: { weights: { offline: 1 } } } } : {}),
  });

describe('a near miss of a built-in SKU', () => {
  it('is named as a typo of that SKU', () => {
    fc.assert(
      fc.property(nearMiss, (name) => {
        const sku = skuTypoOf(name);
        expect(sku).toBeDefined();
        expect(editDistance(name.toLowerCase(), sku!)).toBeLessThanOrEqual(2);
      }),
    );
  });

  it('is refused by config validate wherever the file names a route, with "did you mean" at its line', () => {
    fc.assert(
      fc.property(nearMiss, fc.constantFrom('routes', 'contextWindows', 'routePolicies') as fc.Arbitrary<'routes' | 'contextWindows' | 'routePolicies'>, (name, section) => {
        const { config, problems } = validateText(fileWith(section, name));
        expect(config).toBeUndefined();
        const problem = problems.find((found) => found.path[0] === section && found.path[1] === name);
        expect(problem?.message).toMatch(/did you mean "svc\.intelligent-(pro|basic|lite)"\?/);
        expect(problem?.line).toBe(1);
      }),
    );
  });

  it('the example: svc.inteligent-basic', () => {
    expect(skuTypoOf('svc.inteligent-basic')).toBe('svc.intelligent-basic');
    expect(validateText(fileWith('routes', 'svc.inteligent-basic')).problems[0]?.message).toContain('did you mean "svc.intelligent-basic"?');
  });
});

describe('a name clearly apart from every SKU', () => {
  it('is a new SKU, which the file may route', () => {
    fc.assert(
      fc.property(clearlyApart, (name) => {
        expect(skuTypoOf(name)).toBeUndefined();
        const { problems } = validateText(fileWith('routes', name));
        expect(problems).toEqual([]);
      }),
    );
  });

  it('the SKUs themselves and claude-* names are never typos', () => {
    for (const name of [...SKUS, 'claude-*', 'claude-sonnet-4-5']) expect(skuTypoOf(name)).toBeUndefined();
  });
});
