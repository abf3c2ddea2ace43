import { expect } from 'vitest';
import { decodeSse, type SseFrame } from '../../../src/backends/http/sse-decoder.js';
import type { StreamEvent } from '../../../src/core/stream-events.js';
import { collectUntilThrow, expectRouterError, pieces } from '../translators/support.js';

/** Removes the field at `path` from a copy of `value`. */
export const REMOVE = Symbol('remove');

/** A row of a boundary table: in this body (or this chunk of a stream), set or remove one field. */
export interface Row {
  /** The field as the router names it, e.g. `choices[0].message.tool_calls[0].function.name`. */
  path: string;
  /** What to put there instead; REMOVE leaves it out. */
  value: unknown;
  /** The end of the message: `is missing`, `is not a string`, … */
  problem: string;
  /** For streams: which chunk (0-based) to change. */
  chunk?: number;
}

/** A deep copy of `body` with the field at `path` (dots and [n] indexes) set to `value` (parents made as needed), or removed. */
export function withField<T>(body: T, path: string, value: unknown): T {
  const copy = structuredClone(body) as any;
  const keys = path.split(/\.|\[(\d+)\]/).filter((key) => key !== undefined && key !== '');
  let target = copy;
  for (const key of keys.slice(0, -1)) target = target[key] ??= {}; // a field under an absent parent gets the parent
  const last = keys.at(-1)!;
  if (value === REMOVE) {
    if (Array.isArray(target)) target.splice(Number(last), 1);
    else delete target[last];
  } else {
    target[last] = value;
  }
  return copy;
}

/** How a row reads in a test title. */
export const title = (row: Row): string => `${row.chunk !== undefined ? `chunk ${row.chunk}: ` : ''}${row.path} ${row.value === REMOVE ? 'removed' : `= ${JSON.stringify(row.value)}`} → ${row.problem}`;

/** The SSE frames of these JSON chunks (with an `event:` line when the chunk has a `type`), then `[DONE]` if asked. */
export function framesOf(chunks: unknown[], done = false): AsyncIterable<SseFrame[]> {
  const text =
    chunks
      .map((chunk) => {
        const type = typeof chunk === 'object' && chunk !== null && 'type' in chunk ? `event: ${String((chunk as { type: unknown }).type)}\n` : '';
        return `${type}data: ${JSON.stringify(chunk)}\n\n`;
      })
      .join('') + (done ? 'data: [DONE]\n\n' : '');
  return decodeSse(pieces(new TextEncoder().encode(text)));
}

/** Runs a stream decoder to its end; returns its events, and what it threw if it threw. */
export async function runStream(stream: AsyncIterable<StreamEvent[]>): Promise<{ events: StreamEvent[]; error: unknown }> {
  const { items, error } = await collectUntilThrow(stream);
  return { events: items.flat(), error };
}

/** Asserts a 502 upstream error whose message names the backend, what it sent and the field. */
export function expectFieldFault(error: unknown, backend: string, what: string, row: Row): void {
  const routerError = expectRouterError(error, 502, 'upstream');
  expect(routerError.message).toBe(`Backend '${backend}' sent a ${what} whose ${row.path} ${row.problem}.`);
}
