import { describe, expect, it } from 'vitest';
import { decodeGeminiStream } from '../../../src/backends/gemini/decode-stream.js';
import { readToolCallId } from '../../../src/backends/gemini/tool-call-id.js';
import { decodeSse } from '../../../src/backends/http/sse-decoder.js';
import { collectReply } from '../../../src/core/collect-reply.js';
import type { StreamEvent } from '../../../src/core/stream-events.js';
import { collect, collectUntilThrow, evenPieces, expectRouterError, flat, userRequest } from './support.js';

const SIGNATURE = 'EpAICo0IAb4+9vuku3oDHR5EQSMfPm5IpmH06lgm9aGICNAJKKfpVXU3971qpSGSFiIVb60jKjMU182k==';
const usage = (candidates: number, thoughts = 0) => ({
  promptTokenCount: 9,
  candidatesTokenCount: candidates,
  totalTokenCount: 9 + candidates + thoughts,
  ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
});
const chunk = (parts: unknown[] | undefined, candidates: number, finishReason?: string, thoughts = 0) => ({
  candidates: [{ ...(parts ? { content: { parts, role: 'model' } } : {}), ...(finishReason ? { finishReason } : {}), index: 0 }],
  usageMetadata: usage(candidates, thoughts),
  modelVersion: 'gemini-3-pro-preview',
  responseId: 'M3iLaY-AI7zTxN8P3Piw4Qg',
});
/** Wire bytes as Gemini writes them: `data: ` lines with CRLF ends, no [DONE]. */
const sse = (...chunks: unknown[]): Uint8Array => new TextEncoder().encode(chunks.map((value) => `data: ${JSON.stringify(value)}\r\n\r\n`).join(''));

const decode = async (bytes: Uint8Array, size = 1 << 20): Promise<StreamEvent[]> =>
  collect(flat(decodeGeminiStream('gem', decodeSse(evenPieces(bytes, size)), userRequest())));

const TEXT = sse(
  chunk([{ text: 'Think first.', thought: true }], 0, undefined, 302),
  chunk([{ text: 'There are **3** "r"s ' }], 13, undefined, 302),
  chunk([{ text: 'in strawberry.' }], 23, undefined, 302),
  chunk([{ text: '', thoughtSignature: SIGNATURE }], 23, 'STOP', 302),
);

describe('gemini decodeGeminiStream', () => {
  it('turns thought and text chunks into reasoning and text blocks, finishing with the last usage', async () => {
    expect(await decode(TEXT)).toEqual([
      { type: 'start', id: 'M3iLaY-AI7zTxN8P3Piw4Qg', usage: { inputTokens: 9, outputTokens: 0 } },
      { type: 'reasoning-start' },
      { type: 'reasoning-delta', text: 'Think first.' },
      { type: 'reasoning-end' },
      { type: 'text-start' },
      { type: 'text-delta', text: 'There are **3** "r"s ' },
      { type: 'text-delta', text: 'in strawberry.' },
      { type: 'text-end', providerMetadata: { gemini: { thoughtSignature: SIGNATURE } } },
      { type: 'finish', reason: 'stop', finish: { unified: 'stop', raw: 'STOP' }, usage: { inputTokens: 9, outputTokens: 325, reasoningTokens: 302, raw: usage(23, 302) } },
    ]);
  });

  it('decodes the same events whatever the network cuts (one byte at a time)', async () => {
    expect(await decode(TEXT, 1)).toEqual(await decode(TEXT));
  });

  it('turns parallel function calls into whole tool calls, the first carrying the signature', async () => {
    const bytes = sse(
      chunk([{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: SIGNATURE }, { functionCall: { name: 'get_weather', args: { city: '東京' } } }], 15, undefined, 804),
      chunk([{ text: '' }], 15, 'STOP', 804),
    );
    const events = await decode(bytes);
    const starts = events.flatMap((event) => (event.type === 'tool-call-start' ? [event] : []));
    expect(starts.map((event) => event.name)).toEqual(['get_weather', 'get_weather']);
    expect(readToolCallId(starts[0]!.id)).toEqual({ thoughtSignature: SIGNATURE });
    expect(starts.map((event) => event.providerMetadata)).toEqual([{ gemini: { thoughtSignature: SIGNATURE } }, undefined]);
    expect(readToolCallId(starts[1]!.id)).toEqual({});
    expect(events.map((event) => event.type)).toEqual([
      'start',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-end',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-end',
      'finish',
    ]);
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls', finish: { unified: 'tool-calls', raw: 'STOP' }, usage: { inputTokens: 9, outputTokens: 819, reasoningTokens: 804, raw: usage(15, 804) } });
    const reply = await collectReply(decodeGeminiStream('gem', decodeSse(evenPieces(bytes, 5)), userRequest()));
    expect(reply.content.map((part) => (part.type === 'tool-call' ? part.arguments : ''))).toEqual(['{"city":"Paris"}', '{"city":"東京"}']);
    expect(reply.content[0]!.providerMetadata).toEqual({ gemini: { thoughtSignature: SIGNATURE } });
  });

  it('stops at the chunk with the finishReason, whatever follows', async () => {
    const events = await decode(sse(chunk([{ text: 'Done.' }], 2, 'MAX_TOKENS'), chunk([{ text: 'never read' }], 3)));
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'length', finish: { unified: 'length', raw: 'MAX_TOKENS' }, usage: { inputTokens: 9, outputTokens: 2, raw: usage(2) } });
    expect(JSON.stringify(events)).not.toContain('never read');
  });

  it('finishes a blocked prompt as stopped by the content filter', async () => {
    const events = await decode(sse({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 } }));
    const raw = { promptTokenCount: 9, totalTokenCount: 9 };
    expect(events).toEqual([
      { type: 'start', usage: { inputTokens: 9, outputTokens: 0 } },
      { type: 'finish', reason: 'content-filter', finish: { unified: 'content-filter', raw: 'SAFETY' }, usage: { inputTokens: 9, outputTokens: 0, raw } },
    ]);
  });

  it('keeps each signature on the block it came in, a signed text part starting a new block', async () => {
    const events = await decode(
      sse(
        chunk([{ text: 'Plan.', thought: true, thoughtSignature: 'c2lnLTE=' }], 0),
        chunk([{ text: 'One. ', thoughtSignature: 'c2lnLTI=' }, { text: 'Two.' }], 2),
        chunk([{ text: '', thoughtSignature: 'c2lnLTM=' }], 3, 'STOP'),
      ),
    );
    const ends = events.flatMap((event) => (event.type === 'text-end' || event.type === 'reasoning-end' ? [[event.type, event.providerMetadata?.gemini?.thoughtSignature]] : []));
    expect(ends).toEqual([
      ['reasoning-end', 'c2lnLTE='],
      ['text-end', 'c2lnLTI='],
      ['text-end', 'c2lnLTM='],
    ]);
  });

  it('names parts no client format carries in the finish event’s warnings', async () => {
    const events = await decode(sse(chunk([{ inlineData: { mimeType: 'image/png', data: 'iVBO' } }], 1, 'STOP')));
    expect(events.at(-1)).toMatchObject({ type: 'finish', warnings: ["Gemini's answer held inlineData, which the client's format cannot carry; it was left out."] });
  });

  it('says the stream was cut off when it ends before a finishReason', async () => {
    const { items, error } = await collectUntilThrow(decodeGeminiStream('gem', decodeSse(evenPieces(sse(chunk([{ text: 'Half' }], 1)), 1 << 20)), userRequest()));
    expect(items.flat().map((event) => event.type)).toEqual(['start', 'text-start', 'text-delta']);
    expect(expectRouterError(error, 502, 'upstream').message).toContain('ended the stream before it finished');
  });

  it('passes on an error chunk mid-stream, after what came before it', async () => {
    const bytes = sse(chunk([{ text: 'Hel' }], 1), { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } });
    const { items, error } = await collectUntilThrow(decodeGeminiStream('gem', decodeSse(evenPieces(bytes, 1 << 20)), userRequest()));
    expect(items.flat().map((event) => event.type)).toEqual(['start', 'text-start', 'text-delta']);
    expect(expectRouterError(error, 503, 'overloaded').message).toContain('overloaded');
  });

  it('is a 502 naming the field when a chunk is malformed', async () => {
    const { error } = await collectUntilThrow(decodeGeminiStream('gem', decodeSse(evenPieces(sse(chunk([{ functionCall: { args: {} } }], 1)), 64)), userRequest()));
    expect(expectRouterError(error, 502, 'upstream').message).toContain('candidates[0].content.parts[0].functionCall.name');
  });
});
