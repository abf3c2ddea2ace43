import { isJsonSpace, skipJsonSpace, stringEnd } from './json-scan.js';

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

/** A top-level member's value span, and which of the keys asked for it has. */
interface KeyedSpan extends ValueSpan {
  key: number;
}

/**
 * The top-level value spans of the members named by `keys`, in the order of the text, from one
 * walk of the object whose `{` is the first non-space character: what memberSpans finds for each
 * key, without a walk per key.
 */
function keyedSpans(text: string, keys: readonly string[]): KeyedSpan[] {
  const found: KeyedSpan[] = [];
  let at = skipJsonSpace(text, 0);
  if (text.charCodeAt(at) !== 123) return found;
  at = skipJsonSpace(text, at + 1);
  if (text.charCodeAt(at) === 125) return found;
  for (;;) {
    if (text.charCodeAt(at) !== 34) return found;
    const keyEnd = stringEnd(text, at);
    if (keyEnd === -1) return found;
    const key = keys.indexOf(keyAt(text, at, keyEnd));
    at = skipJsonSpace(text, keyEnd);
    if (text.charCodeAt(at) !== 58) return found;
    const start = skipJsonSpace(text, at + 1);
    const end = valueEnd(text, start);
    if (end === -1) return found;
    if (key !== -1) found.push({ start, end, key });
    at = skipJsonSpace(text, end);
    if (text.charCodeAt(at) !== 44) return found;
    at = skipJsonSpace(text, at + 1);
  }
}

/**
 * withMember for several members at once, in one walk: the same text as setting each in turn
 * (`withMember(withMember(text, k1, v1), k2, v2)`), for distinct keys. A forwarded reply gets its
 * model and svc_meta this way.
 */
export function withMembers(text: string, keys: readonly string[], values: readonly string[]): string {
  const spans = keyedSpans(text, keys);
  let out = '';
  let from = 0;
  let present = 0;
  for (const span of spans) {
    out += text.slice(from, span.start) + values[span.key]!;
    from = span.end;
    present |= 1 << span.key;
  }
  if (present === (1 << keys.length) - 1) return from === 0 ? text : out + text.slice(from);
  const inside = skipJsonSpace(text, skipJsonSpace(text, 0) + 1);
  let empty = text.charCodeAt(inside) === 125;
  // As withMember in turn would: an append lands before the last `}`, so on text that is no single object an "empty" one may stay empty.
  const staysEmpty = empty && inside !== text.lastIndexOf('}');
  let added = '';
  for (let i = 0; i < keys.length; i++) {
    if (present & (1 << i)) continue;
    added += `${empty ? '' : ','}${JSON.stringify(keys[i])}:${values[i]!}`;
    empty = staysEmpty;
  }
  const close = text.lastIndexOf('}');
  if (close === -1) return out + text.slice(from);
  if (close < from) return out + text.slice(from);
  return `${out}${text.slice(from, close)}${added}${text.slice(close)}`;
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

/** The longest text whose beginning a FirstMemberRewriter keeps (its slice keeps the whole text alive). */
const LARGEST_KEPT = 64 * 1024;

/**
 * Sets the first top-level member named `key` to `json` in each text of a series, exactly as
 * `replaceSpans(text, memberSpans(text, key, undefined, true), json)` does. A stream's frames begin
 * alike (Chat's chunks: id, object, created, model …), so when a text begins with the last one's
 * text up to the end of that member's string value, the beginning rewritten last time is reused and
 * only the rest is copied: one comparison of equal slices (native, where startsWith reads a
 * character at a time) in place of a walk per frame.
 */
export class FirstMemberRewriter {
  /** The last text rewritten, up to the end of the member's value (empty: nothing to reuse). */
  private head = '';
  /** That beginning with the value replaced. */
  private rewritten = '';

  constructor(
    private readonly key: string,
    private readonly json: string,
  ) {}

  rewrite(text: string): string {
    if (this.head !== '' && text.slice(0, this.head.length) === this.head) return this.rewritten + text.slice(this.head.length);
    const span = memberSpans(text, this.key, undefined, true)[0];
    if (!span) return text;
    const rewritten = text.slice(0, span.start) + this.json;
    // Only a string value ends where its text says: a number or literal could run on in the next
    // text. A slice holds its whole text: a long one is not kept for the frames after it.
    const reusable = text.charCodeAt(span.start) === 34 && text.length <= LARGEST_KEPT;
    this.head = reusable ? text.slice(0, span.end) : '';
    this.rewritten = reusable ? rewritten : '';
    return rewritten + text.slice(span.end);
  }
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
