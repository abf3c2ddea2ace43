import { describe, expect, it } from 'vitest';
import { decodeGeminiReply } from '../../../src/backends/gemini/decode-reply.js';
import { readToolCallId } from '../../../src/backends/gemini/tool-call-id.js';
import type { Reply } from '../../../src/core/reply.js';
import { expectRouterError, userRequest } from './support.js';

const SIGNATURE = 'EpEgCo4gAb4+9vvWwdN+NkNiCCwrqvFI8uf9IiD2A47Bm4Sga0kUTm4e/QuEnsZnNuSXJaINVVvcoApg6Y==';
const usage = { promptTokenCount: 9, candidatesTokenCount: 6, totalTokenCount: 15 };
const reply = (parts: unknown[], finishReason = 'STOP', extra: Record<string, unknown> = {}) => ({
  candidates: [{ content: { role: 'model', parts }, finishReason, index: 0 }],
  usageMetadata: usage,
  modelVersion: 'gemini-3-pro-preview',
  responseId: 'Il0taoSYJ5Cez7',
  ...extra,
});
const decode = (raw: unknown): Reply => decodeGeminiReply('gem', raw, userRequest());

describe('gemini decodeGeminiReply', () => {
  it('reads text with its signature, the finish, usage and the response id', () => {
    expect(decode(reply([{ text: '1+1 equals 2.', thoughtSignature: SIGNATURE }]))).toEqual({
      id: 'Il0taoSYJ5Cez7',
      content: [{ type: 'text', text: '1+1 equals 2.', providerMetadata: { gemini: { thoughtSignature: SIGNATURE } } }],
      finishReason: 'stop',
      finish: { unified: 'stop', raw: 'STOP' },
      usage: { inputTokens: 9, outputTokens: 6, raw: usage },
    });
  });

  it('gives the signature of a trailing empty text to the part before it', () => {
    expect(decode(reply([{ text: 'Answer.' }, { text: '', thoughtSignature: SIGNATURE }])).content).toEqual([
      { type: 'text', text: 'Answer.', providerMetadata: { gemini: { thoughtSignature: SIGNATURE } } },
    ]);
    expect(decode(reply([{ text: 'Thought.', thought: true, thoughtSignature: SIGNATURE }, { text: 'Answer.' }])).content).toEqual([
      { type: 'reasoning', text: 'Thought.', providerMetadata: { gemini: { thoughtSignature: SIGNATURE } } },
      { type: 'text', text: 'Answer.' },
    ]);
  });

  it('names parts no client format carries in the reply’s warnings', () => {
    const decoded = decode(reply([{ text: 'Here:' }, { inlineData: { mimeType: 'image/png', data: 'iVBO' } }, { executableCode: { language: 'PYTHON', code: '1' } }]));
    expect(decoded.content).toEqual([{ type: 'text', text: 'Here:' }]);
    expect(decoded.warnings).toEqual([
      "Gemini's answer held inlineData, which the client's format cannot carry; it was left out.",
      "Gemini's answer held executableCode, which the client's format cannot carry; it was left out.",
    ]);
  });

  it('turns thought parts into reasoning and joins neighbouring pieces of one kind', () => {
    const decoded = decode(reply([{ text: 'Think ', thought: true }, { text: 'hard.', thought: true }, { text: 'An' }, { text: 'swer.' }]));
    expect(decoded.content).toEqual([
      { type: 'reasoning', text: 'Think hard.' },
      { type: 'text', text: 'Answer.' },
    ]);
  });

  it('turns function calls into tool calls whose ids carry the signature and Gemini’s id', () => {
    const decoded = decode(
      reply([
        { functionCall: { name: 'get_weather', args: { city: 'Paris' }, id: 'fc-1' }, thoughtSignature: SIGNATURE },
        { functionCall: { name: 'get_weather', args: { city: '東京' } } },
        { functionCall: { name: 'no_args' } },
      ]),
    );
    expect(decoded.finishReason).toBe('tool-calls');
    const calls = decoded.content.flatMap((part) => (part.type === 'tool-call' ? [part] : []));
    expect(calls.map(({ name, arguments: args }) => [name, args])).toEqual([
      ['get_weather', '{"city":"Paris"}'],
      ['get_weather', '{"city":"東京"}'],
      ['no_args', '{}'],
    ]);
    expect(readToolCallId(calls[0]!.id)).toEqual({ upstreamId: 'fc-1', thoughtSignature: SIGNATURE });
    expect(calls[0]!.providerMetadata).toEqual({ gemini: { thoughtSignature: SIGNATURE } });
    expect(calls[1]!.providerMetadata).toBeUndefined();
    expect(readToolCallId(calls[1]!.id)).toEqual({});
    expect(new Set(calls.map((call) => call.id)).size).toBe(3);
    for (const call of calls) expect(call.id).toMatch(/^call_[A-Za-z0-9_-]+$/);
  });

  it.each([
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content-filter'],
    ['MALFORMED_FUNCTION_CALL', 'error'],
  ])('maps finishReason %s to %s', (reason, expected) => {
    expect(decode(reply([{ text: 'cut' }], reason)).finishReason).toBe(expected);
  });

  it('accepts a candidate a filter stopped with no content at all', () => {
    const decoded = decode({ candidates: [{ finishReason: 'SAFETY', index: 0 }], usageMetadata: usage });
    expect(decoded).toMatchObject({ content: [], finishReason: 'content-filter' });
  });

  it('answers a blocked prompt as an empty reply stopped by the content filter', () => {
    const decoded = decode({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 }, responseId: 'r' });
    expect(decoded).toEqual({
      id: 'r',
      content: [],
      finishReason: 'content-filter',
      finish: { unified: 'content-filter', raw: 'PROHIBITED_CONTENT' },
      usage: { inputTokens: 9, outputTokens: 0, raw: { promptTokenCount: 9, totalTokenCount: 9 } },
    });
  });

  it('estimates usage when none is reported', () => {
    const decoded = decode({ candidates: [{ content: { parts: [{ text: 'abcdefgh' }] }, finishReason: 'STOP' }] });
    expect(decoded.usage).toEqual({ inputTokens: 3, outputTokens: 2 });
  });

  it.each([
    ['a body that is not an object', [], 'body'],
    ['no candidates and no block reason', { modelVersion: 'x' }, 'candidates'],
    ['an empty candidates list', { candidates: [] }, 'candidates[0]'],
    ['candidates that are not a list', { candidates: {} }, 'candidates'],
    ['parts that are not a list', { candidates: [{ content: { parts: 'x' } }] }, 'candidates[0].content.parts'],
    ['a function call without a name', reply([{ functionCall: { args: {} } }]), 'candidates[0].content.parts[0].functionCall.name'],
    ['function call args that are not an object', reply([{ functionCall: { name: 'f', args: '{}' } }]), 'candidates[0].content.parts[0].functionCall.args'],
    ['text that is not a string', reply([{ text: 5 }]), 'candidates[0].content.parts[0].text'],
    ['a finishReason that is not a string', { candidates: [{ content: { parts: [] }, finishReason: 1 }] }, 'candidates[0].finishReason'],
    ['a usage count that is not a number', reply([{ text: 'x' }], 'STOP', { usageMetadata: { promptTokenCount: '9' } }), 'usageMetadata.promptTokenCount'],
  ])('is a 502 naming the field for %s', (_name, raw, field) => {
    let thrown: unknown;
    try {
      decode(raw);
    } catch (error) {
      thrown = error;
    }
    expect(expectRouterError(thrown, 502, 'upstream').message).toContain(`whose ${field} `);
  });

  it.each([
    [{ code: 429, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED' }, 429, 'rate_limit'],
    [{ code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' }, 503, 'overloaded'],
    [{ code: 500, message: 'Internal error', status: 'INTERNAL' }, 502, 'upstream'],
  ])('says what a 200 carrying an error reported (%o)', (error, status, kind) => {
    let thrown: unknown;
    try {
      decode({ error });
    } catch (caught) {
      thrown = caught;
    }
    expect(expectRouterError(thrown, status, kind).message).toContain(error.message);
  });
});
