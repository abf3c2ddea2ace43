import { randomUUID } from 'node:crypto';

/**
 * Text longer than this leaves the stream encoders in slices of this size: an event that carries
 * it is never built as one string (nor copied whole again for the socket), and each slice is
 * written, under the client's backpressure, before the next is made.
 */
export const PIECE_CHARS = 1024 * 1024;

/** Stands in for a long string while the rest of a value is serialised; no client text can equal it. */
const MARK = `\u0000svc-long-string-${randomUUID()}\u0000`;
const MARK_JSON = JSON.stringify(MARK);

/**
 * The JSON text of `value`, in pieces that join to exactly `JSON.stringify(value)`: each string
 * longer than `sliceChars` is escaped a slice at a time, so a value that carries a long answer is
 * never held as one more string of that size (nor copied again for the socket) while it is
 * written. Slices never part a surrogate pair.
 */
export function* jsonPieces(value: unknown, sliceChars: number): Generator<string> {
  const long: string[] = [];
  const json = JSON.stringify(value, (_key, field: unknown) => {
    if (typeof field === 'string' && field.length > sliceChars) {
      long.push(field);
      return MARK;
    }
    return field;
  });
  let from = 0;
  for (const text of long) {
    const at = json.indexOf(MARK_JSON, from);
    yield `${json.slice(from, at)}"`;
    for (let start = 0; start < text.length; ) {
      let end = Math.min(text.length, start + sliceChars);
      // A pair parted here would come out as two escaped halves: cut before it (or after it, for a slice of one).
      if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1)) && isLowSurrogate(text.charCodeAt(end))) end += end - start > 1 ? -1 : 1;
      const escaped = JSON.stringify(text.slice(start, end));
      yield escaped.slice(1, -1);
      start = end;
    }
    from = at + MARK_JSON.length - 1; // the closing quote goes out with what follows
  }
  yield from === 0 ? json : json.slice(from);
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;
