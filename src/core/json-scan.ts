/**
 * Reading JSON text without parsing it, for the same-format path: a backend's tap finds the keys
 * it needs in a frame, a format's forwarder edits one member of a reply. Both step over strings
 * the same way, so neither takes text inside a string for structure.
 */

/** JSON's four whitespace characters. */
export const isJsonSpace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9;

/** The first position at or after `at` that is not JSON whitespace. */
export function skipJsonSpace(text: string, at: number): number {
  while (at < text.length && isJsonSpace(text.charCodeAt(at))) at++;
  return at;
}

/** Just past the closing quote of the string that opens at `at`, or -1 when it is not closed. */
export function stringEnd(text: string, at: number): number {
  for (let from = at + 1; ; ) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return -1;
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === 92) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}
