import fc from 'fast-check';
import { expect } from 'vitest';

/**
 * Upstream error texts that hold the upstream's key, for the redaction properties: the key in the
 * shapes providers use, quoted the ways error texts quote it, inside ordinary text.
 */

/** The upstream's key, in shapes providers use, and one with no recognisable shape at all. */
const keyArb = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9]{40}$/).map((rest) => `sk-proj-${rest}`),
  fc.stringMatching(/^[A-Za-z0-9_-]{40}$/).map((rest) => `sk-ant-api03-${rest}AA`),
  fc.stringMatching(/^[A-Za-z0-9_-]{35}$/).map((rest) => `AIza${rest}`),
  fc.stringMatching(/^[0-9a-f]{40}$/),
  fc.stringMatching(/^[A-Za-z0-9]{24,48}$/),
);

/** How the key appears inside the upstream's text. */
const quoteArb = fc.constantFrom(
  (key: string) => key,
  (key: string) => `Bearer ${key}`,
  (key: string) => `x-api-key: ${key}`,
  (key: string) => `"api_key":"${key}"`,
);

/** Ordinary text around it, long enough that some runs put the key across any cut the router makes. */
const textArb = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ minLength: 150, maxLength: 700 }), fc.lorem({ maxCount: 30 }));

export const upstreamTextArb = fc
  .record({ key: keyArb, quote: quoteArb, before: textArb, after: textArb, twice: fc.boolean() })
  .map(({ key, quote, before, after, twice }) => ({ key, text: `${before}${quote(key)}${after}${twice ? ` (${key})` : ''}` }));


/** Fails if `text` holds the key, or any 12-character run of it (a key cut short is still a leak). */
export function expectNoKey(text: string, key: string, where: string): void {
  expect(text.includes(key), `${where} holds the key`).toBe(false);
  for (let i = 0; i + 12 <= key.length; i += 4) {
    expect(text.includes(key.slice(i, i + 12)), `${where} holds part of the key: ${key.slice(i, i + 12)}`).toBe(false);
  }
}
