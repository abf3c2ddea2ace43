import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RouterError } from '../../../src/core/errors.js';
import type { ProviderMetadata } from '../../../src/core/provider-metadata.js';
import type { Reply, ReplyPart } from '../../../src/core/reply.js';
import { replyEvents } from '../../../src/core/reply-events.js';
import type { StreamEvent } from '../../../src/core/stream-events.js';
import type { GeminiOptions } from '../../../src/formats/gemini/decode-request.js';
import { encodeGeminiReply } from '../../../src/formats/gemini/encode-reply.js';
import { encodeGeminiStream } from '../../../src/formats/gemini/encode-stream.js';
import { unsealReasoning } from '../../../src/formats/responses/seal-reasoning.js';
import type { GeminiPart } from '../../../src/wire/gemini/types.js';
import { collect, encodeContext, finishing } from './support.js';

const options = (includeThoughts: boolean, jsonArray = false): GeminiOptions => ({ includeThoughts, jsonArray });

/** Events in batches of one, each text delta cut in pieces of three characters, as a stream brings them. */
async function* batches(events: StreamEvent[]): AsyncGenerator<StreamEvent[]> {
  for (const event of events) {
    if (event.type !== 'text-delta' && event.type !== 'reasoning-delta') {
      yield [event];
      continue;
    }
    const points = [...event.text];
    if (!points.length) yield [event];
    for (let i = 0; i < points.length; i += 3) yield [{ ...event, text: points.slice(i, i + 3).join('') }];
  }
}

async function streamed(reply: Reply, includeThoughts: boolean, jsonArray = false) {
  const context = encodeContext(options(includeThoughts, jsonArray));
  const text = (await collect(encodeGeminiStream(finishing(batches(replyEvents(reply)), context), context))).join('');
  const chunks: any[] = jsonArray ? (JSON.parse(text) as any[]) : text.split('\r\n\r\n').filter(Boolean).map((frame) => JSON.parse(frame.replace(/^data: /, '')) as unknown);
  return { context, text, chunks };
}

/**
 * Streamed parts as a client folds them into one turn (as Gemini's own non-streamed reply has
 * them): neighbouring pieces of text of one kind joined, an empty piece that only carries a
 * signature given to the unsigned piece before it.
 */
function fold(chunks: any[]): GeminiPart[] {
  const parts: GeminiPart[] = [];
  for (const chunk of chunks) {
    for (const part of (chunk.candidates?.[0]?.content?.parts ?? []) as GeminiPart[]) {
      const last = parts.at(-1);
      const sameKind = last?.text !== undefined && part.text !== undefined && !!last.thought === !!part.thought && !last.thoughtSignature;
      if (sameKind && part.text === '' && part.thoughtSignature) last!.thoughtSignature = part.thoughtSignature;
      else if (sameKind && !part.thoughtSignature && part.text !== '') last!.text += part.text!;
      else if (sameKind && part.thoughtSignature && !last!.text) Object.assign(last!, part);
      else parts.push({ ...part });
    }
  }
  return parts;
}

/** A reply comes from one upstream: its parts carry Gemini's signatures, or another provider's reasoning, never both. */
const signature = fc.base64String({ minLength: 4, maxLength: 16 }).map((value): ProviderMetadata => ({ gemini: { thoughtSignature: value } }));
const foreign = fc.string({ minLength: 1, maxLength: 16 }).map((value): ProviderMetadata => ({ anthropic: { signature: value } }));
const maybe = (arbitrary: fc.Arbitrary<ProviderMetadata>) => fc.oneof(fc.constant<ProviderMetadata | undefined>(undefined), arbitrary);
const partsFrom = (gemini: boolean): fc.Arbitrary<ReplyPart> =>
  fc.oneof(
    fc.record({ type: fc.constant('text' as const), text: fc.string({ minLength: 1, maxLength: 20 }), providerMetadata: gemini ? maybe(signature) : fc.constant(undefined) }),
    fc.record({ type: fc.constant('reasoning' as const), text: fc.string({ minLength: 1, maxLength: 20 }), providerMetadata: maybe(gemini ? signature : foreign) }),
    fc.record({ type: fc.constant('tool-call' as const), id: fc.uuid(), name: fc.stringMatching(/^[a-z_]{1,12}$/), arguments: fc.constant('{"a":1}'), providerMetadata: gemini ? maybe(signature) : fc.constant(undefined) }),
  );
const content = fc.boolean().chain((gemini) => fc.array(partsFrom(gemini), { minLength: 1, maxLength: 5 }));
/** Neighbouring texts of one kind as one part (the later's signature kept), in plain JSON. */
function joinTexts(parts: GeminiPart[]): GeminiPart[] {
  const out: GeminiPart[] = [];
  for (const entry of JSON.parse(JSON.stringify(parts)) as GeminiPart[]) {
    const last = out.at(-1);
    if (last?.text !== undefined && entry.text !== undefined && !!last.thought === !!entry.thought && !last.thoughtSignature) {
      last.text += entry.text;
      if (entry.thoughtSignature) last.thoughtSignature = entry.thoughtSignature;
    } else out.push(entry);
  }
  return out;
}
const reasons: Array<Reply['finishReason']> = ['stop', 'length', 'tool-calls', 'content-filter', 'error'];

describe('streamGenerateContent chunks from canonical events', () => {
  it.each([true, false])('fold into the parts a JSON reply has, ending with the finish, usage and svc_meta (thoughts shown: %s)', async (includeThoughts) => {
    await fc.assert(
      fc.asyncProperty(content, fc.constantFrom(...reasons), async (parts, finishReason) => {
        const reply: Reply = { content: parts, finishReason, usage: { inputTokens: 20, outputTokens: 9, reasoningTokens: 3 } };
        const { chunks, context } = await streamed(reply, includeThoughts);
        const whole = encodeGeminiReply(reply, encodeContext(options(includeThoughts)));
        // Seals differ (each is encrypted afresh): compare them by what they open to, as the decoder would.
        // Plain reasoning (no provider data: kept for an upstream that wants its text back) may ride a
        // part later in a stream than in a JSON reply, where that part's own signature comes only at its
        // end: those seals compare as a set, apart from where they ride.
        const plain: Array<string[]> = [[], []];
        const opened = (parts: GeminiPart[], side: number) =>
          parts.flatMap((entry) => {
            if (!entry.thoughtSignature?.startsWith('svcr2.')) return [entry];
            const payload = unsealReasoning(entry.thoughtSignature, context.secret, 'seal');
            if (payload.providerMetadata) return [{ ...entry, thoughtSignature: payload }];
            plain[side]!.push(payload.text);
            const { thoughtSignature: _s, ...rest } = entry;
            return entry.thought && !entry.text ? [] : [rest];
          });
        // Gemini's stream does not mark where one text part ends and the next begins: neighbouring texts compare joined.
        expect(joinTexts(opened(joinTexts(fold(chunks)), 0) as GeminiPart[])).toEqual(joinTexts(opened(joinTexts(whole.candidates[0]!.content.parts), 1) as GeminiPart[]));
        expect(plain[0]!.sort()).toEqual(plain[1]!.sort());
        const last = chunks.at(-1);
        expect(last.candidates[0].finishReason).toBe(whole.candidates[0]!.finishReason);
        expect(last.usageMetadata).toEqual(whole.usageMetadata);
        expect(Object.keys(last).at(-1)).toBe('svc_meta');
        expect(last.svc_meta.usage).toEqual({ input_tokens: 20, output_tokens: 9, total_tokens: 29 });
        expect(chunks.slice(0, -1).every((chunk) => chunk.candidates[0].finishReason === undefined && chunk.usageMetadata === undefined)).toBe(true);
        expect(new Set(chunks.map((chunk) => chunk.modelVersion))).toEqual(new Set([context.model]));
      }),
      { numRuns: 60 },
    );
  });

  it('writes one JSON array without alt=sse, its elements the server-sent chunks', async () => {
    const reply: Reply = { content: [{ type: 'text', text: 'Hello there, friend.' }], finishReason: 'stop', usage: { inputTokens: 3, outputTokens: 4 } };
    const sse = await streamed(reply, false);
    const array = await streamed(reply, false, true);
    expect(array.text.startsWith('[{')).toBe(true);
    expect(array.text.endsWith('}]')).toBe(true);
    expect(array.chunks.map((chunk) => chunk.candidates[0].content.parts)).toEqual(sse.chunks.map((chunk) => chunk.candidates[0].content.parts));
  });

  it.each([false, true])("ends with Google's error object when the upstream fails mid-stream (JSON array: %s)", async (jsonArray) => {
    const context = encodeContext(options(false, jsonArray));
    const events: StreamEvent[][] = [[{ type: 'start' }, { type: 'text-start' }, { type: 'text-delta', text: 'Hal' }], [{ type: 'error', error: new RouterError(503, 'overloaded', "Backend 'up' is overloaded.", undefined, 'upstream_overloaded', 2000) }]];
    const text = (await collect(encodeGeminiStream(finishing((async function* () { yield* events; })(), context), context))).join('');
    const chunks: any[] = jsonArray ? JSON.parse(text) : text.split('\r\n\r\n').filter(Boolean).map((frame) => JSON.parse(frame.slice('data: '.length)));
    expect(chunks).toHaveLength(2);
    expect(chunks[0].candidates[0].content.parts).toEqual([{ text: 'Hal' }]);
    expect(chunks[1]).toEqual({
      error: {
        code: 503,
        message: "Backend 'up' is overloaded.",
        status: 'UNAVAILABLE',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '2s' },
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'UPSTREAM_OVERLOADED', domain: 'svc-router', metadata: { request_id: 'req_fixed' } },
        ],
      },
    });
  });
});
