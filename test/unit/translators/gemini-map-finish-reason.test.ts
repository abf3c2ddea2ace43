import { describe, expect, it } from 'vitest';
import { finishReasonFor, finishReasonFromGemini } from '../../../src/backends/gemini/map-finish-reason.js';
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
