import { StringDecoder } from 'node:string_decoder';
import { RouterError } from '../../core/errors.js';

export interface SseFrame {
  event?: string;
  data: string;
}

/** Bounds on what one upstream event may make the decoder hold, in characters (UTF-16 code units). */
export interface SseLimits {
  /** The longest line, its line end not counted. */
  maxLineChars: number;
  /** The longest data of one event: its `data:` values joined with newlines. */
  maxEventChars: number;
}

/** Beyond these an upstream event is not a well-formed chat event; stop rather than buffer without end. */
export const SSE_LIMITS: Readonly<SseLimits> = { maxLineChars: 16 * 1024 * 1024, maxEventChars: 16 * 1024 * 1024 };

const BOM = 0xfeff;

/**
 * Decodes a server-sent event stream from bytes, as the WHATWG grammar defines it: a leading byte
 * order mark is dropped, frames end at a blank line, `data:` lines join with newlines, `:` lines are
 * comments, CR/LF/CRLF all end lines, and multi-byte characters split across chunks are
 * reassembled. Frames come in batches, one per body chunk that completed any, so a burst costs one
 * step of the pipeline rather than one per frame.
 *
 * A line longer than `limits.maxLineChars`, or an event whose data grows past
 * `limits.maxEventChars`, is a 502, whatever the chunking: a line of exactly the limit passes. The
 * frames completed before the offending line still come out, then the error.
 */
export async function* decodeSse(body: AsyncIterable<Uint8Array>, limits: Readonly<SseLimits> = SSE_LIMITS): AsyncGenerator<SseFrame[]> {
  const { maxLineChars, maxEventChars } = limits;
  // StringDecoder keeps a character split across chunks for the next one, at a seventh of TextDecoder's cost per chunk.
  const decoder = new StringDecoder('utf8');
  // Text after the last line end, kept in pieces: a long line is joined once, when it ends, not on every chunk.
  let pending: string[] = [];
  let pendingChars = 0;
  let atStart = true;
  let event: string | undefined;
  let data: string[] = [];
  /** The length of `data` joined with newlines. */
  let dataChars = 0;
  let failure: RouterError | undefined;
  const flush = (): SseFrame | undefined => {
    const joined = data.length === 1 ? data[0]! : data.join('\n');
    const frame = data.length === 0 ? undefined : event === undefined ? { data: joined } : { event, data: joined };
    event = undefined;
    data = [];
    dataChars = 0;
    return frame;
  };
  /** The data line's value: one piece of an event's data; false when it breaks the event bound (then `failure` is set). */
  const dataValue = (value: string): boolean => {
    dataChars += data.length === 0 ? value.length : value.length + 1;
    if (dataChars > maxEventChars) {
      failure = eventTooLarge(maxEventChars);
      return false;
    }
    data.push(value);
    return true;
  };
  /** The complete, non-empty line `text[start, end)`; false when it breaks the event bound. */
  const field = (text: string, start: number, end: number): boolean => {
    // Nearly every line is `data: …` or `event: …`: their values are cut from the text at once.
    if (text.startsWith('data: ', start)) return dataValue(text.slice(start + 6, end));
    if (text.startsWith('event: ', start)) {
      event = text.slice(start + 7, end);
      return true;
    }
    const line = text.slice(start, end);
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    if (name === 'data') {
      const value = colon === -1 ? '' : line.slice(colon + 1);
      return dataValue(value.charCodeAt(0) === 32 ? value.slice(1) : value);
    }
    if (name === 'event') {
      const value = colon === -1 ? '' : line.slice(colon + 1);
      event = value.charCodeAt(0) === 32 ? value.slice(1) : value;
    }
    return true;
  };
  /** Reads the complete lines of `text`, collecting frames; returns the unfinished rest. Stops at a bound broken. */
  const readLines = (text: string, frames: SseFrame[]): string => {
    let start = 0;
    // Most streams never send a CR: then a line ends at the next LF, found natively.
    const plainLf = text.indexOf('\r') === -1;
    for (;;) {
      const end = plainLf ? text.indexOf('\n', start) : nextLineEnd(text, start);
      if (end === -1) break;
      if (end - start > maxLineChars) {
        failure = lineTooLong(maxLineChars);
        return '';
      }
      if (end === start) {
        const frame = flush();
        if (frame) frames.push(frame);
      } else if (!field(text, start, end)) {
        return '';
      }
      start = end + (text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10 ? 2 : 1);
    }
    const rest = start === 0 ? text : text.slice(start);
    // A CR last in the text is a line end waiting to see whether LF follows, not part of the line.
    if (rest.length - (rest.charCodeAt(rest.length - 1) === 13 ? 1 : 0) > maxLineChars) failure = lineTooLong(maxLineChars);
    return rest;
  };
  for await (const chunk of body) {
    let text = decoder.write(chunk);
    if (atStart) {
      // The byte order mark may come split over chunks; StringDecoder hands it over whole.
      if (text === '') continue;
      atStart = false;
      if (text.charCodeAt(0) === BOM) text = text.slice(1);
    }
    if (text === '') continue;
    // No line end in this chunk (and none waiting to be confirmed): nothing can complete yet.
    if (!LINE_END.test(text) && !(pendingChars && pending.at(-1)!.endsWith('\r'))) {
      pending.push(text);
      pendingChars += text.length;
      if (pendingChars > maxLineChars) throw lineTooLong(maxLineChars);
      continue;
    }
    const frames: SseFrame[] = [];
    // A lone CR at the end may be the first half of CRLF: readLines keeps it for the next chunk.
    const rest = readLines(pendingChars ? pending.join('') + text : text, frames);
    pending = rest === '' ? [] : [rest];
    pendingChars = rest.length;
    if (frames.length) yield frames;
    if (failure) throw failure;
  }
  const frames: SseFrame[] = [];
  let tail = pending.join('') + decoder.end();
  if (atStart && tail.charCodeAt(0) === BOM) tail = tail.slice(1);
  let last = readLines(tail, frames);
  // At the end of the body a CR kept to see whether LF follows has its answer, and an unfinished line is complete.
  if (!failure && last !== '') {
    if (last.charCodeAt(last.length - 1) === 13) last = last.slice(0, -1);
    if (last !== '') field(last, 0, last.length);
  }
  if (!failure) {
    const frame = flush();
    if (frame) frames.push(frame);
  }
  if (frames.length) yield frames;
  if (failure) throw failure;
}

const LINE_END = /[\r\n]/;

const size = (chars: number): string => (chars % (1024 * 1024) === 0 ? `${chars / (1024 * 1024)} MiB` : `${chars} characters`);

const lineTooLong = (limit: number): RouterError => new RouterError(502, 'upstream', `The upstream sent an event line larger than ${size(limit)}.`);

const eventTooLarge = (limit: number): RouterError => new RouterError(502, 'upstream', `The upstream sent an event whose data is larger than ${size(limit)}.`);

/** Where the line starting at `from` ends (CR, LF or CRLF), or -1; a CR last in the text waits to see whether LF follows. */
function nextLineEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) return i;
    if (c === 13) return i + 1 < text.length ? i : -1;
  }
  return -1;
}

/** A frame's data as JSON; an upstream that sends anything else mid-stream is a 502, not a crash. */
export function parseFrameJson<T>(backend: string, frame: SseFrame): T {
  try {
    return JSON.parse(frame.data) as T;
  } catch {
    throw new RouterError(502, 'upstream', `Backend '${backend}' sent a stream event that is not valid JSON.`);
  }
}
