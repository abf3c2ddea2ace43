import { RouterError } from '../../core/errors.js';
import type { ForwardedReply, FrameNote } from '../../core/forwarded.js';
import type { Usage } from '../../core/reply.js';
import { walkJsonObject, type WalkMemo } from '../../core/json-check.js';
import type { CanonicalRequest } from '../../core/request.js';
import { parseFrameJson, type SseFrame } from './sse-decoder.js';

/**
 * What a same-format upstream's tap reads: of a JSON reply, its usage; of a stream, per frame,
 * only what usage, errors and the stream's end need. Most frames are not parsed at all: one walk of
 * the frame's text (core/json-check.ts) checks that it is a JSON object and finds the keys the tap
 * reads, and only frames that carry usage or an error are parsed, with the backend's own checked
 * readers. A frame that is no event of the format fails the stream as it fails the translated one.
 */
export interface ForwardTap {
  /** The reply's usage; undefined for a body that is no reply (the backend's decodeReply then says why, or estimates). */
  replyUsage(backend: string, body: unknown): Usage | undefined;
  /** What the reply reports doing to the request that the client is to be told; undefined when nothing. */
  replyNotes?(body: unknown): Pick<ForwardedReply, 'warnings' | 'unreadReasoning'> | undefined;
  /** The reply's text as the client is to get it, when the tap corrects what the upstream said; undefined to pass it as it came. */
  correctedReply?(body: unknown, request: CanonicalRequest): string | undefined;
  stream(backend: string, request: CanonicalRequest): StreamTap;
}

export interface StreamTap {
  /**
   * The note for one frame, or 'error' for the upstream's error frame (the backend's stream decoder
   * maps it); throws, as the decoder does, at a frame that is no event (see `notAnEvent`).
   */
  read(frame: SseFrame): FrameNote | 'error';
  /** The upstream's body ended: undefined when the stream had finished, else the error a cut-off stream is. */
  atEnd(): RouterError | undefined;
}

/** Whether the value starting at `at` is JSON `null`. */
export const isNullAt = (text: string, at: number): boolean => text.startsWith('null', at);

/** The string value `text[start, end)` (its quotes included) as JSON.parse reads it; undefined when it is no string (`end` -1). */
export function stringValueAt(text: string, start: number, end: number): string | undefined {
  if (end === -1) return undefined;
  const raw = text.slice(start + 1, end - 1);
  return raw.indexOf('\\') === -1 ? raw : (JSON.parse(text.slice(start, end)) as string);
}

/** What one walk of an event frame finds: whether it is a JSON object, its own `type`, and the characters of its output strings. */
export interface EventFrame {
  isObject: boolean;
  /** The event's own string `type` (a member of the top-level object), else undefined. */
  type: string | undefined;
  /** Characters of the string members named by `keys` after the first, at any depth: the output a delta carries. */
  outputChars: number;
}

/**
 * Walks an event frame once (core/json-check.ts): `keys[0]` names the event's type, the other keys
 * the string members that hold output. The event's own type is the top-level one, not a block's,
 * item's or part's, and the last of duplicates, as JSON.parse keeps it. A stream's `memo` lets a
 * frame that begins as the last one did be walked from where they part.
 */
export function readEventFrame(data: string, keys: readonly string[], memo?: WalkMemo): EventFrame {
  let typeAt = -1;
  let typeEnd = -1;
  let outputChars = 0;
  const isObject = walkJsonObject(data, keys, (key, value, stringEnd, depth) => {
    if (key !== 0) {
      if (stringEnd !== -1) outputChars += stringEnd - value - 2;
    } else if (depth === 1) {
      typeAt = value;
      typeEnd = stringEnd;
    }
  }, memo);
  return { isObject, type: isObject && typeAt !== -1 ? stringValueAt(data, typeAt, typeEnd) : undefined, outputChars };
}

/**
 * The error for a frame the tap found is no event of its format (not a JSON object, or without what
 * the format's grammar requires of every event): the backend's own reader, which the translated
 * decoder runs on every frame, says why, so both paths fail the stream with the same words.
 */
export function notAnEvent(backend: string, frame: SseFrame, read: (backend: string, raw: unknown) => unknown): RouterError {
  try {
    read(backend, parseFrameJson(backend, frame));
  } catch (error) {
    if (error instanceof RouterError) return error;
  }
  return new RouterError(502, 'upstream', `Backend '${backend}' sent a stream event that is not valid JSON.`);
}
