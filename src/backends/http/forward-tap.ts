import { RouterError } from '../../core/errors.js';
import { isJsonSpace, stringEnd } from '../../core/json-text.js';
import type { FrameNote } from '../../core/forwarded.js';
import type { Usage } from '../../core/reply.js';
import type { CanonicalRequest } from '../../core/request.js';
import type { SseFrame } from './sse-decoder.js';

/**
 * What a same-format upstream's tap reads: of a JSON reply, its usage; of a stream, per frame,
 * only what usage, errors and the stream's end need. Most frames are not parsed at all: a key is
 * found in the frame's text (a key cannot occur unescaped inside a JSON string), and only frames
 * that carry usage or an error are parsed, with the backend's own checked readers.
 */
export interface ForwardTap {
  /** The reply's usage; undefined for a body that is no reply (the backend's decodeReply then says why, or estimates). */
  replyUsage(backend: string, body: unknown): Usage | undefined;
  /** The reply's text as the client is to get it, when the tap corrects what the upstream said; undefined to pass it as it came. */
  correctedReply?(body: unknown, request: CanonicalRequest): string | undefined;
  stream(backend: string, request: CanonicalRequest): StreamTap;
}

export interface StreamTap {
  /** The note for one frame, or 'error' for the upstream's error frame (the backend's stream decoder maps it). */
  read(frame: SseFrame): FrameNote | 'error';
  /** The upstream's body ended: undefined when the stream had finished, else the error a cut-off stream is. */
  atEnd(): RouterError | undefined;
}

/** Where the value of the first `"key":` at or after `from` starts, or -1: the key may be at any depth. */
export function keyValueAt(text: string, key: string, from = 0): number {
  const quoted = quotedKeys.get(key) ?? quote(key);
  for (let at = text.indexOf(quoted, from); at !== -1; at = text.indexOf(quoted, at + quoted.length)) {
    let i = at + quoted.length;
    while (isJsonSpace(text.charCodeAt(i))) i++;
    // A string value equal to the key's name is followed by `,`, `}` or `]`, never by `:`.
    if (text.charCodeAt(i) !== 58) continue;
    i++;
    while (isJsonSpace(text.charCodeAt(i))) i++;
    return i;
  }
  return -1;
}

/**
 * One pass over a frame's text for the keys a tap reads: for each member whose key is one of
 * `keys` (at any depth, in the order of the text), `onKey(its index in keys, where its value
 * starts, just past a string value's closing quote or -1)`. Every string is stepped over whole,
 * so key-like text inside a string is never taken for a key, and a key written with escapes is
 * still that key, as it is to JSON.parse.
 */
export function scanKeys(text: string, keys: readonly string[], onKey: (key: number, value: number, stringEnd: number) => void): void {
  // The next backslash at or after the current key, found by one forward search per stretch:
  // most keys hold none, and only one that does is decoded.
  let slash = text.indexOf('\\');
  for (let at = text.indexOf('"'); at !== -1; ) {
    const end = stringEnd(text, at);
    if (end === -1) return;
    let i = end;
    while (isJsonSpace(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) !== 58) {
      at = text.indexOf('"', end);
      continue;
    }
    i++;
    while (isJsonSpace(text.charCodeAt(i))) i++;
    const length = end - at - 2;
    let k = 0;
    while (k < keys.length && !(keys[k]!.length === length && text.startsWith(keys[k]!, at + 1))) k++;
    if (k === keys.length) {
      if (slash !== -1 && slash < at) slash = text.indexOf('\\', at);
      k = slash !== -1 && slash < end ? escapedKeyIndex(text, at, end, keys) : -1;
    }
    if (k !== -1) onKey(k, i, text.charCodeAt(i) === 34 ? stringEnd(text, i) : -1);
    // A string value is the next string: stepped over whole, as it is followed by no colon.
    at = text.indexOf('"', i);
  }
}

/** Which of `keys` the key string at `at`…`end`, written with escapes, is as JSON.parse reads it; or -1. */
function escapedKeyIndex(text: string, at: number, end: number, keys: readonly string[]): number {
  try {
    return keys.indexOf(JSON.parse(text.slice(at, end)) as string);
  } catch {
    return -1;
  }
}

/**
 * An event's `type`, which leads every event of the Anthropic and OpenAI Responses grammars, so the
 * first `"type":` in the text is the event's. Written with escapes (or missing), it is read as
 * JSON.parse reads it.
 */
export function leadingType(data: string): string | undefined {
  const at = keyValueAt(data, 'type');
  if (at !== -1 && data.charCodeAt(at) === 34) {
    const end = stringEnd(data, at);
    const raw = end === -1 ? '' : data.slice(at + 1, end - 1);
    if (end !== -1 && raw.indexOf('\\') === -1) return raw;
  }
  try {
    const type = (JSON.parse(data) as { type?: unknown } | null)?.type;
    return typeof type === 'string' ? type : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the value starting at `at` is JSON `null`. */
export const isNullAt = (text: string, at: number): boolean => text.startsWith('null', at);

/** A key's quoted form, made once: the taps look for a few keys in every frame. */
const quotedKeys = new Map<string, string>();
function quote(key: string): string {
  const quoted = `"${key}"`;
  if (quotedKeys.size < 64) quotedKeys.set(key, quoted);
  return quoted;
}

/** The characters of every string value of these keys (escapes counted as written): output size, for a stream cut short. */
export function stringCharsOf(text: string, keys: readonly string[]): number {
  let chars = 0;
  scanKeys(text, keys, (_key, value, stringEnd) => {
    if (stringEnd !== -1) chars += stringEnd - value - 2;
  });
  return chars;
}

/**
 * A frame that is not a JSON object even by its ends (cut off, an HTML page, plain text) fails the
 * stream as the decoders fail it; the frames passed unparsed are checked no further than that.
 */
export function checkObjectFrame(backend: string, frame: SseFrame): void {
  const { data } = frame;
  let first = 0;
  while (isJsonSpace(data.charCodeAt(first))) first++;
  let last = data.length - 1;
  while (last > first && isJsonSpace(data.charCodeAt(last))) last--;
  if (data.charCodeAt(first) !== 123 || data.charCodeAt(last) !== 125) throw new RouterError(502, 'upstream', `Backend '${backend}' sent a stream event that is not valid JSON.`);
}

