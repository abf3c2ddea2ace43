import { stringEnd } from './json-scan.js';

/**
 * The text a client's JSON body was parsed from, kept beside the parsed body, so that a
 * same-format upstream can be sent the client's own bytes (with its model set) instead of the body
 * written out again: for a coding agent's request of 100 KB or more, writing it out costs more
 * than parsing it did. Kept only for text that JSON.parse reads whole: a key given twice is read
 * once by JSON.parse, and an upstream that read the other one would see another request than the
 * one the router checked, capped and scanned.
 */
const texts = new WeakMap<object, { text: string; parsedMembers: number; whole?: boolean }>();

/** Keeps `text` as the text of `body`, whose parsed form has `parsedMembers` object members; checked against the text only when it is asked for. */
export function keepBodyText(body: unknown, text: string, parsedMembers: number): void {
  if (body !== null && typeof body === 'object') texts.set(body, { text, parsedMembers });
}

/**
 * The client's text of this very body object, when JSON.parse read it whole (the members written in
 * it are the members parsed); a body any policy rewrote is another object, with none. Counted on
 * the first ask, so a request that is translated never scans its text.
 */
export function bodyTextOf(body: object): string | undefined {
  const kept = texts.get(body);
  if (kept === undefined) return undefined;
  kept.whole ??= writtenMembers(kept.text) === kept.parsedMembers;
  return kept.whole ? kept.text : undefined;
}

/**
 * The object members written in JSON text (each is one `:` outside strings). Only strings are
 * crossed, by native searches; the text is valid JSON already (JSON.parse read it).
 */
export function writtenMembers(text: string): number {
  let members = 0;
  let at = 0;
  // The next colon at or after `at`, kept between strings so that no stretch of text is searched twice.
  let colon = text.indexOf(':');
  for (;;) {
    const quote = text.indexOf('"', at);
    const end = quote === -1 ? text.length : quote;
    while (colon !== -1 && colon < end) {
      members++;
      colon = text.indexOf(':', colon + 1);
    }
    if (quote === -1) return members;
    at = stringEnd(text, quote);
    if (at === -1) return -1;
    if (colon !== -1 && colon < at) colon = text.indexOf(':', at);
  }
}
