import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../src/core/request.js';
import { cacheBreaks, type TurnMark } from '../../src/sessions/cache-breaks.js';
import { fingerprintPrompt } from '../../src/sessions/prompt-fingerprint.js';

const request: CanonicalRequest = { model: 'svc.x', system: [], tools: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] };
const mark = (target: string, extra: Partial<TurnMark> = {}): TurnMark => ({ fingerprint: fingerprintPrompt(request), startedAt: 0, target, ...extra });

describe('a cache drop after a change of model', () => {
  it("names reasoning the turn's model did not read, with who wrote it where known", () => {
    const reasons = cacheBreaks(mark('a:claude-fable-5-1'), mark('b:claude-opus-5', { unreadReasoning: { blocks: 2, writers: ['claude-fable-5-1'] } }));
    expect(reasons).toContainEqual({ kind: 'reasoning', text: 'reasoning from another model: 2 reasoning blocks (claude-fable-5-1) not read by b:claude-opus-5' });
    expect(cacheBreaks(mark('b:x'), mark('b:x', { unreadReasoning: { blocks: 1, writers: [] } }))).toEqual([{ kind: 'reasoning', text: 'reasoning from another model: 1 reasoning block not read by b:x' }]);
    expect(cacheBreaks(mark('b:x'), mark('b:x'))).toEqual([]);
  });
});
