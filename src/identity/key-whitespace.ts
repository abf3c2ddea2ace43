/**
 * Whitespace in a key, which the spec makes a cause of 401 (never trimmed), and the readings of a
 * presented key that tell the caller *why* it was refused: the same key with the whitespace
 * removed, whether it came raw or written out as an escape.
 *
 * A key as issued is `svc_<slug>_<base64url>`: it never holds white space, `\` or `%`, so
 * removing them, or an escape that stands for white space, cannot turn one key into another.
 */

/**
 * One character of Unicode white space (JavaScript's `\s` leaves out U+0085, next line), or a
 * zero-width space, joiner or word joiner pasted along with a key.
 */
const WHITESPACE_CHAR = /[\s\u0085\u180E\u200B-\u200D\u2060\uFEFF]/u;
const ALL_WHITESPACE = /[\s\u0085\u180E\u200B-\u200D\u2060\uFEFF]/gu;
const ONLY_WHITESPACE = /^[\s\u0085\u180E\u200B-\u200D\u2060\uFEFF]+$/u;
export const LEADING_WHITESPACE = /^[\s\u0085\u180E\u200B-\u200D\u2060\uFEFF]/u;
export const TRAILING_WHITESPACE = /[\s\u0085\u180E\u200B-\u200D\u2060\uFEFF]$/u;

/** `\n`, `\r`, `\t`, `\f`, `\v`, `\xA0`, `\u00a0`, `\u{200B}`: as JSON, a shell's $'…' or a .env file writes them. */
const BACKSLASH_ESCAPE = /\\(?:u\{([0-9a-fA-F]{1,6})\}|u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|([nrtfv]))/g;
const LETTER_ESCAPES: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', f: '\f', v: '\v' };
/** A run of percent-encoded bytes, as a URL writes them: `%20`, `%0A`, `%C2%A0`. */
const PERCENT_RUN = /(?:%[0-9a-fA-F]{2})+/g;

export type KeyWhitespace = 'raw' | 'escaped';

/** Whether a key holds white space, raw (anywhere) or written out as an escape. */
export function whitespaceIn(key: string): KeyWhitespace | undefined {
  if (WHITESPACE_CHAR.test(key)) return 'raw';
  return withoutEscapedWhitespace(key) !== key ? 'escaped' : undefined;
}

/**
 * What the presented key would be without its white space: each distinct reading that differs
 * from it, and whether escapes had to be undone to get there. Node reads header bytes as Latin-1,
 * so a no-break or zero-width space sent as UTF-8 arrives as two or three odd characters: the
 * value is read both ways.
 */
export function readingsWithoutWhitespace(presented: string): Array<{ key: string; escaped: boolean }> {
  const readings = new Map<string, boolean>();
  for (const text of new Set([presented, Buffer.from(presented, 'latin1').toString('utf8')])) {
    const raw = text.replace(ALL_WHITESPACE, '');
    if (!readings.has(raw)) readings.set(raw, false);
    const unescaped = withoutEscapedWhitespace(text).replace(ALL_WHITESPACE, '');
    if (!readings.has(unescaped)) readings.set(unescaped, true);
  }
  readings.delete(presented);
  return [...readings].map(([key, escaped]) => ({ key, escaped }));
}

/** The text with every escape that stands for white space removed; other escapes are left as they are. */
function withoutEscapedWhitespace(text: string): string {
  if (!text.includes('\\') && !text.includes('%')) return text;
  return text
    .replace(BACKSLASH_ESCAPE, (escape, braced?: string, unicode?: string, hex?: string, letter?: string) => {
      const code = braced ?? unicode ?? hex;
      const char = code !== undefined ? codePoint(parseInt(code, 16)) : LETTER_ESCAPES[letter!]!;
      return ONLY_WHITESPACE.test(char) ? '' : escape;
    })
    .replace(PERCENT_RUN, (run) => (ONLY_WHITESPACE.test(percentDecoded(run)) ? '' : run));
}

const codePoint = (code: number): string => (code <= 0x10ffff ? String.fromCodePoint(code) : '');

/** A percent-encoded run as UTF-8, else byte by byte as Latin-1 (`%A0` alone is a no-break space there). */
function percentDecoded(run: string): string {
  try {
    return decodeURIComponent(run);
  } catch {
    return run.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}
