import { isJsonSpace, skipJsonSpace, stringEnd } from '../../core/json-scan.js';

/**
 * Finding a member of a JSON object in its text, without parsing the rest: forwarding changes one
 * or two values of an upstream's reply (its model, svc_meta) and must leave every other byte as
 * the upstream wrote it. The text is JSON already (the tap or the upstream's own format says so);
 * on text that is not, these find nothing rather than throw.
 */

/** Where a member's value lies in the text: `text.slice(start, end)` is the value's JSON. */
export interface ValueSpan {
  start: number;
  end: number;
}

/** The end of the value that starts at `at`, or -1. */
function valueEnd(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c === 34) return stringEnd(text, at);
  if (c === 123 || c === 91) {
    let depth = 0;
    for (let i = at; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (d === 34) {
        i = stringEnd(text, i) - 1;
        if (i < 0) return -1;
      } else if (d === 123 || d === 91) depth++;
      else if (d === 125 || d === 93) {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
  let i = at;
  while (i < text.length) {
    const d = text.charCodeAt(i);
    if (d === 44 || d === 125 || d === 93 || isJsonSpace(d)) break;
    i++;
  }
  return i === at ? -1 : i;
}

/** A key as JSON.parse reads it: only a key written with escapes needs decoding. */
function keyAt(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end - 1);
  if (raw.indexOf('\\') === -1) return raw;
  try {
    return JSON.parse(text.slice(start, end)) as string;
  } catch {
    return raw;
  }
}

/**
 * The value spans of the members named `key` in the object whose `{` is at `objectAt` (the first
 * non-space character when left out), in order: JSON.parse keeps the last of duplicate keys, so a
 * rewrite must change them all. Stops at `firstOnly`'s first hit.
 */
export function memberSpans(text: string, key: string, objectAt = skipJsonSpace(text, 0), firstOnly = false): ValueSpan[] {
  const spans: ValueSpan[] = [];
  if (text.charCodeAt(objectAt) !== 123) return spans;
  let at = skipJsonSpace(text, objectAt + 1);
  if (text.charCodeAt(at) === 125) return spans;
  for (;;) {
    if (text.charCodeAt(at) !== 34) return spans;
    const keyEnd = stringEnd(text, at);
    if (keyEnd === -1) return spans;
    const name = keyAt(text, at, keyEnd);
    at = skipJsonSpace(text, keyEnd);
    if (text.charCodeAt(at) !== 58) return spans;
    const start = skipJsonSpace(text, at + 1);
    const end = valueEnd(text, start);
    if (end === -1) return spans;
    if (name === key) {
      spans.push({ start, end });
      if (firstOnly) return spans;
    }
    at = skipJsonSpace(text, end);
    if (text.charCodeAt(at) !== 44) return spans;
    at = skipJsonSpace(text, at + 1);
  }
}

/** The span of `path`'s value (`['message', 'model']`), following the last of duplicate keys. */
export function pathSpan(text: string, path: readonly string[]): ValueSpan | undefined {
  let objectAt = skipJsonSpace(text, 0);
  let span: ValueSpan | undefined;
  for (const key of path) {
    span = memberSpans(text, key, objectAt).at(-1);
    if (!span) return undefined;
    objectAt = span.start;
  }
  return span;
}

/** The text with each span replaced by `json` (spans in order, not overlapping). */
export function replaceSpans(text: string, spans: readonly ValueSpan[], json: string): string {
  if (!spans.length) return text;
  let out = '';
  let from = 0;
  for (const span of spans) {
    out += text.slice(from, span.start) + json;
    from = span.end;
  }
  return out + text.slice(from);
}

/**
 * The object's text with a member set: every member named `key` gets `json` as its value, or,
 * when there is none, the member is added last (before the closing brace, whatever space precedes it).
 */
export function withMember(text: string, key: string, json: string): string {
  const spans = memberSpans(text, key);
  if (spans.length) return replaceSpans(text, spans, json);
  const close = text.lastIndexOf('}');
  if (close === -1) return text;
  const empty = text.charCodeAt(skipJsonSpace(text, skipJsonSpace(text, 0) + 1)) === 125;
  return `${text.slice(0, close)}${empty ? '' : ','}${JSON.stringify(key)}:${json}${text.slice(close)}`;
}
