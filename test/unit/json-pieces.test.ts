import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonPieces } from '../../src/formats/shared/json-pieces.js';

describe('jsonPieces', () => {
  it('joins to exactly JSON.stringify, with long strings in slices no longer than asked and never a surrogate pair parted', () => {
    const text = fc.string({ unit: fc.constantFrom('a', '"', '\\', '\n', '\u0000', 'é', '🙂', '\ud800', '\udc00'), maxLength: 40 });
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.constant(null), fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 4 }), tie('node'), { maxKeys: 4 })),
    })).node;
    fc.assert(
      fc.property(value, fc.integer({ min: 1, max: 12 }), (input, sliceChars) => {
        const pieces = [...jsonPieces(input, sliceChars)];
        expect(pieces.join('')).toBe(JSON.stringify(input));
        // Every piece is valid UTF-16 wherever the original was: no piece ends in the first half of a pair it split.
        const whole = pieces.join('');
        let offset = 0;
        for (const piece of pieces) {
          offset += piece.length;
          const before = whole.charCodeAt(offset - 1);
          const after = whole.charCodeAt(offset);
          expect(before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('hands a long string on in slices rather than whole', () => {
    const long = 'x'.repeat(10_000);
    const pieces = [...jsonPieces({ a: 1, text: long, b: [long] }, 1000)];
    expect(pieces.join('')).toBe(JSON.stringify({ a: 1, text: long, b: [long] }));
    expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThanOrEqual(1000 + 20);
  });
});
