import { stringEnd } from './json-scan.js';

/**
 * The text a client's JSON body was parsed from, kept beside the parsed body, so that a
 * same-format upstream can be sent the client's own bytes (with its model set) instead of the body
 * written out again: for a coding agent's request of 100 KB or more, writing it out costs more
 * than parsing it did. Kept only for text that JSON.parse reads whole: a key given twice is read
 * once by JSON.parse, and an upstream that read the other one would see another request than the
 * one the router checked, capped and scanned.
 */
const texts = new WeakMap<object, string>();

/** Keeps `text` as the text of `body`, when `parsedMembers` (every object member of the parsed body) matches the members written in it. */
export function keepBodyText(body: unknown, text: string, parsedMembers: number): void {
  if (body !== null && typeof body === 'object' && writtenMembers(text) === parsedMembers) texts.set(body, text);
}

/** The client's text of this very body object, when it was kept; a body any policy rewrote is another object, with none. */
export const bodyTextOf = (body: object): string | undefined => texts.get(body);

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
