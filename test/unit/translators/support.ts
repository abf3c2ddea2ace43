import { readFileSync } from 'node:fs';
import { decodeSse, type SseFrame } from '../../../src/backends/http/sse-decoder.js';
import { RouterError } from '../../../src/core/errors.js';
import type { Usage } from '../../../src/core/reply.js';
import type { CanonicalRequest } from '../../../src/core/request.js';
import type { StreamEvent } from '../../../src/core/stream-events.js';
import type { EncodeContext, SvcMeta } from '../../../src/formats/client-format.js';
import { cutAtTerminal } from '../../helpers/cut-at-terminal.js';

const fixtures = new URL('../../fixtures/', import.meta.url);

/** The raw bytes of a fixture file, exactly as stored. */
export const fixtureBytes = (path: string): Uint8Array => new Uint8Array(readFileSync(new URL(path, fixtures)));
export const fixtureText = (path: string): string => readFileSync(new URL(path, fixtures), 'utf8');
export const fixtureJson = <T = unknown>(path: string): T => JSON.parse(fixtureText(path)) as T;

/** Bytes as a network body would deliver them: in pieces cut at the given byte offsets. */
export async function* pieces(bytes: Uint8Array, cuts: number[] = []): AsyncGenerator<Uint8Array> {
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    if (cut <= from || cut >= bytes.length) continue;
    yield bytes.slice(from, cut);
    from = cut;
  }
  yield bytes.slice(from);
}

/** Bytes delivered in fixed-size pieces (size 1 cuts every multi-byte character). */
export async function* evenPieces(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.slice(i, i + size);
}

/** SSE frames of a fixture file, decoded the way a backend decodes its upstream body. */
export const fixtureFrames = (path: string, cuts?: number[]): AsyncIterable<SseFrame[]> => decodeSse(pieces(fixtureBytes(path), cuts));

export async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}

/** Everything a stream yielded before it threw, and what it threw. */
export async function collectUntilThrow<T>(source: AsyncIterable<T>): Promise<{ items: T[]; error: unknown }> {
  const items: T[] = [];
  try {
    for await (const item of source) items.push(item);
  } catch (error) {
    return { items, error };
  }
  return { items, error: undefined };
}

export function expectRouterError(error: unknown, status: number, kind: string): RouterError {
  if (!(error instanceof RouterError)) throw new Error(`expected a RouterError, got ${String(error)}`);
  if (error.status !== status || error.kind !== kind) {
    throw new Error(`expected RouterError ${status}/${kind}, got ${error.status}/${error.kind}: ${error.message}`);
  }
  return error;
}

/** A minimal canonical request; `Say hello` is 9 characters, so its estimate is 3 tokens. */
export function userRequest(text = 'Say hello', extra: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return { model: 'svc.test', system: [], messages: [{ role: 'user', content: [{ type: 'text', text }] }], tools: [], ...extra };
}

/** Canonical events as an encoder receives them, one batch per event (so one chunk of text per event). */
export async function* replay(events: StreamEvent[]): AsyncGenerator<StreamEvent[]> {
  for (const event of events) yield [event];
}

/** A decoder's batches of events as one flat sequence. */
export async function* flat<T>(batches: AsyncIterable<T[]>): AsyncGenerator<T> {
  for await (const batch of batches) yield* batch;
}

export const FIXED_META: SvcMeta = {
  request_id: 'req_fixed',
  sku: 'svc.test',
  backend: 'fake',
  upstream_model: 'upstream-model',
  attempts: 1,
  latency_ms: 12,
  usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
  remaining_tokens: 1000,
};

/**
 * An EncodeContext built by hand; `finished` holds every usage the pipeline's step recorded
 * (`finishing`), and svc_meta reports the last of them (none yet: zero).
 */
export function encodeContext<Options>(options: Options, request: CanonicalRequest = userRequest()): EncodeContext<Options> & { finished: Usage[] } {
  const finished: Usage[] = [];
  return {
    requestId: 'req_fixed',
    model: 'svc.test',
    created: 1_700_000_000,
    options,
    request,
    secret: 'unit-test-secret-0123456789abcdef',
    finished,
    svcMeta: (): SvcMeta => {
      const usage = finished.at(-1) ?? { inputTokens: 0, outputTokens: 0 };
      return {
        ...FIXED_META,
        usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens },
      };
    },
  };
}

/** Batches as the pipeline hands them to an encoder: cut at the first terminal event, the finish's usage recorded first. */
export function finishing(batches: AsyncIterable<StreamEvent[]>, context: { finished: Usage[] }): AsyncIterable<StreamEvent[]> {
  return cutAtTerminal(batches, (event) => event.type === 'finish' && context.finished.push(event.usage));
}

/** Replaces the random ids a client encoder mints, so its output can be compared byte for byte. */
export const normaliseIds = (text: string): string => text.replace(/chatcmpl-[0-9a-f]{24}/g, 'chatcmpl-ID').replace(/msg_[0-9a-f]{24}/g, 'msg_ID');

/** An encoder's output split into SSE frames (each a block ending at a blank line). */
export function framesOf(text: string): string[] {
  if (!text.endsWith('\n\n')) throw new Error('output does not end with a blank line');
  return text.slice(0, -2).split('\n\n');
}
