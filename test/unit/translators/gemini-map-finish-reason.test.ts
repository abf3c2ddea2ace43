import { describe, expect, it } from 'vitest';
import { finishReasonFor, finishReasonFromGemini, geminiFinishReason } from '../../../src/wire/gemini/finish-reason.js';
import type { FinishReason } from '../../../src/core/reply.js';

describe('gemini finish reasons', () => {
  const cases: Array<[string | undefined, FinishReason]> = [
    ['STOP', 'stop'],
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content-filter'],
    ['RECITATION', 'content-filter'],
    ['LANGUAGE', 'content-filter'],
    ['BLOCKLIST', 'content-filter'],
    ['PROHIBITED_CONTENT', 'content-filter'],
    ['SPII', 'content-filter'],
    ['IMAGE_SAFETY', 'content-filter'],
    ['MALFORMED_FUNCTION_CALL', 'error'],
    ['UNEXPECTED_TOOL_CALL', 'error'],
    ['OTHER', 'stop'],
    ['FINISH_REASON_UNSPECIFIED', 'stop'],
    ['SOMETHING_NEW', 'stop'],
    [undefined, 'stop'],
  ];
  it.each(cases)('%s → %s', (reason, expected) => {
    expect(finishReasonFromGemini(reason)).toBe(expected);
  });

  it.each([
    ['STOP', true, 'tool-calls'],
    ['STOP', false, 'stop'],
    ['MAX_TOKENS', true, 'length'],
    ['SAFETY', true, 'content-filter'],
  ] as const)('%s with calls made: %s → %s', (reason, calls, expected) => {
    expect(finishReasonFor(reason, calls)).toBe(expected);
  });
});

describe('finish reasons told to a Gemini client', () => {
  const reasons: FinishReason[] = ['stop', 'length', 'tool-calls', 'content-filter', 'error'];

  it("maps each canonical reason to Gemini's word, and back to the same reason (tool calls aside, which STOP with calls means)", () => {
    for (const reason of reasons) {
      const told = geminiFinishReason(reason);
      expect(finishReasonFor(told, reason === 'tool-calls'), `${reason} → ${told}`).toBe(reason === 'error' ? 'stop' : reason);
    }
    expect(reasons.map((reason) => geminiFinishReason(reason))).toEqual(['STOP', 'MAX_TOKENS', 'STOP', 'SAFETY', 'OTHER']);
  });

  it("keeps a Gemini upstream's own word where it says the same, and never passes another provider's", () => {
    expect(geminiFinishReason('content-filter', 'RECITATION')).toBe('RECITATION');
    expect(geminiFinishReason('tool-calls', 'STOP')).toBe('STOP');
    expect(geminiFinishReason('error', 'MALFORMED_FUNCTION_CALL')).toBe('MALFORMED_FUNCTION_CALL');
    expect(geminiFinishReason('stop', 'MAX_TOKENS')).toBe('STOP');
    expect(geminiFinishReason('stop', 'end_turn')).toBe('STOP');
    expect(geminiFinishReason('content-filter', 'refusal')).toBe('SAFETY');
    expect(geminiFinishReason('length', 'length')).toBe('MAX_TOKENS');
    expect(geminiFinishReason('stop', 'constructor')).toBe('STOP');
  });
});
