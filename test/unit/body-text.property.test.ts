import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { writtenMembers } from '../../src/core/body-text.js';

/** Object members of a parsed value, at every depth. */
function parsedMembers(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + parsedMembers(item), 0);
  return Object.values(value).reduce((sum: number, item) => sum + 1 + parsedMembers(item), 0);
}

/**
 * Whether a client's text may go upstream as written rests on counting the members written in it
 * (a key given twice is one member to JSON.parse): the count must be exact whatever the strings
 * hold (colons, quotes, escapes) and whatever the spacing.
 */
describe('writtenMembers', () => {
  const tricky = fc.string({ unit: fc.constantFrom('a', ':', '"', '\\', '{', '}', ',', ' ', 'é'), maxLength: 10 });
  const value = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), tricky, fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(tricky, tie('node'), { maxKeys: 3 })),
  })).node;

  it('counts exactly the members JSON.parse reads, when no key is given twice', () => {
    fc.assert(
      fc.property(value, fc.constantFrom(undefined, 1, '\t'), (item, indent) => {
        const text = JSON.stringify(item, null, indent) ?? 'null';
        expect(writtenMembers(text)).toBe(parsedMembers(JSON.parse(text)));
      }),
      { numRuns: 500 },
    );
  });

  it('counts a key given twice twice, which JSON.parse reads once', () => {
    fc.assert(
      fc.property(tricky, fc.jsonValue({ maxDepth: 2 }), fc.jsonValue({ maxDepth: 2 }), (key, first, second) => {
        const text = `{${JSON.stringify(key)}:${JSON.stringify(first)},${JSON.stringify(key)} : ${JSON.stringify(second)}}`;
        expect(writtenMembers(text)).toBe(parsedMembers(JSON.parse(text)) + 1 + parsedMembers(first));
      }),
      { numRuns: 300 },
    );
  });
});
