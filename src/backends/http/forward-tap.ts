import { RouterError } from '../../core/errors.js';
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
    while (isSpace(text.charCodeAt(i))) i++;
    // A string value equal to the key's name is followed by `,`, `}` or `]`, never by `:`.
    if (text.charCodeAt(i) !== 58) continue;
    i++;
    while (isSpace(text.charCodeAt(i))) i++;
    return i;
  }
  return -1;
}

/** A key's quoted form, made once: the taps look for a few keys in every frame. */
const quotedKeys = new Map<string, string>();
function quote(key: string): string {
  const quoted = `"${key}"`;
  if (quotedKeys.size < 64) quotedKeys.set(key, quoted);
  return quoted;
}

/** The characters of every string value of `key` at or after `from` (escapes counted as written): output size, for a stream cut short. */
export function stringValueChars(text: string, key: string, from = 0): number {
  let chars = 0;
  for (let at = keyValueAt(text, key, from); at !== -1; ) {
    if (text.charCodeAt(at) !== 34) {
      at = keyValueAt(text, key, at);
      continue;
    }
    let end = at + 1;
    for (;;) {
      const quote = text.indexOf('"', end);
      if (quote === -1) return chars;
      let slashes = 0;
      while (text.charCodeAt(quote - 1 - slashes) === 92) slashes++;
      end = quote + 1;
      if (slashes % 2 === 0) break;
    }
    chars += end - at - 2;
    at = keyValueAt(text, key, end);
  }
  return chars;
}

/** Whether the text has `"key":` with a value other than null (at any depth). */
export function hasNonNull(text: string, key: string): boolean {
  for (let at = keyValueAt(text, key); at !== -1; at = keyValueAt(text, key, at)) {
    if (!text.startsWith('null', at)) return true;
  }
  return false;
}

/**
 * A frame that is not a JSON object even by its ends (cut off, an HTML page, plain text) fails the
 * stream as the decoders fail it; the frames passed unparsed are checked no further than that.
 */
export function checkObjectFrame(backend: string, frame: SseFrame): void {
  const { data } = frame;
  let first = 0;
  while (isSpace(data.charCodeAt(first))) first++;
  let last = data.length - 1;
  while (last > first && isSpace(data.charCodeAt(last))) last--;
  if (data.charCodeAt(first) !== 123 || data.charCodeAt(last) !== 125) throw new RouterError(502, 'upstream', `Backend '${backend}' sent a stream event that is not valid JSON.`);
}

const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9;
