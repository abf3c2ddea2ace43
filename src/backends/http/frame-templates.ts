/**
 * Pieces for reading an upstream stream frame of a known, common shape without a full JSON.parse.
 * A reader built from them either matches the whole frame exactly (then its result equals what
 * JSON.parse would give, on every field the decoder reads) or returns undefined, and the caller
 * parses the frame as usual. Anything unusual — whitespace, another key order, an escape in a field
 * that is not decoded — is simply not matched, so the fallback decides, errors included.
 *
 * test/unit/frame-templates.property.test.ts proves the equality over generated and recorded frames.
 */

/** A JSON string whose value is read: escapes allowed (checked when decoded by JSON.parse). */
export const READ_STRING = String.raw`"(?:[^"\\\u0000-\u001f]|\\.)*"`;

/** A JSON string that is skipped: no escapes at all, so it is certainly valid and needs no decoding. */
export const PLAIN_STRING = String.raw`"[^"\\\u0000-\u001f]*"`;

/** A non-negative JSON integer (no leading zeros, no fraction or exponent). */
export const INTEGER = String.raw`(?:0|[1-9]\d{0,14})`;

/**
 * The value of a matched READ_STRING. Without a backslash its characters are the value; with one,
 * JSON.parse of the piece decodes it, and throws for an escape JSON does not allow (the caller then
 * falls back to parsing the whole frame, which reports it).
 */
export function stringValue(piece: string): string {
  return piece.indexOf('\\') === -1 ? piece.slice(1, -1) : (JSON.parse(piece) as string);
}

/** Runs a template reader, treating a piece it cannot decode as no match. */
export function tryTemplate<T>(read: (data: string) => T | undefined, data: string): T | undefined {
  try {
    return read(data);
  } catch {
    return undefined;
  }
}
