import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeChatReply } from '../../../src/backends/openai-chat/decode-reply.js';
import { decodeChatStream } from '../../../src/backends/openai-chat/decode-stream.js';
import type { SseFrame } from '../../../src/backends/http/sse-decoder.js';
import { collectReply } from '../../../src/core/collect-reply.js';
import { userRequest } from './support.js';

/**
 * OpenRouter's reasoning_details (https://openrouter.ai/docs/use-cases/reasoning-tokens): however a
 * stream cuts its blocks into pieces, the reasoning part holds each block whole, as a non-streamed
 * reply would, and blocks that arrive with no readable reasoning (encrypted only) still make one.
 */
type Detail = Record<string, unknown> & { index: number };

const detailsArb: fc.Arbitrary<Detail[]> = fc
  .array(
    fc.oneof(
      fc.record({ type: fc.constant('reasoning.text'), text: fc.string({ minLength: 1, maxLength: 30 }), signature: fc.string({ minLength: 1, maxLength: 12 }), format: fc.constant('anthropic-claude-v1') }),
      fc.record({ type: fc.constant('reasoning.encrypted'), data: fc.base64String({ minLength: 4, maxLength: 40 }), format: fc.constant('openai-responses-v1') }),
      fc.record({ type: fc.constant('reasoning.summary'), summary: fc.string({ minLength: 1, maxLength: 30 }), format: fc.constant('openai-responses-v1') }),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((details) => details.map((detail, index) => ({ ...detail, index })));

/** A block cut in pieces: its joined string in parts at the given points, its other fields on the last piece. */
function piecesOf(detail: Detail, cuts: number[]): Detail[] {
  const key = 'text' in detail ? 'text' : 'data' in detail ? 'data' : 'summary';
  const whole = detail[key] as string;
  const points = [...new Set(cuts.map((cut) => cut % (whole.length + 1)))].sort((a, b) => a - b);
  const parts = [0, ...points, whole.length].flatMap((start, at, all) => (at < all.length - 1 && all[at + 1]! > start ? [whole.slice(start, all[at + 1])] : []));
  const { signature, ...rest } = detail;
  return parts.map((part, at) => ({ ...rest, [key]: part, ...(at === parts.length - 1 && signature !== undefined ? { signature } : {}) }) as Detail);
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null): SseFrame => ({ data: JSON.stringify({ id: 'gen-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] }) });

async function* once(frames: SseFrame[]): AsyncGenerator<SseFrame[]> {
  yield frames;
}

describe('OpenRouter reasoning_details', () => {
  it('a stream holds each block whole, however it was cut, as a non-streamed reply does', async () => {
    await fc.assert(
      fc.asyncProperty(detailsArb, fc.array(fc.nat(40), { maxLength: 4 }), fc.boolean(), async (details, cuts, withText) => {
        const frames = [
          ...details.flatMap((detail) => piecesOf(detail, cuts).map((piece) => chunk({ ...(withText && piece.type === 'reasoning.text' ? { reasoning: piece.text } : {}), reasoning_details: [piece] }))),
          chunk({ content: 'Answer.' }),
          chunk({}, 'stop'),
          { data: '[DONE]' },
        ];
        const streamed = await collectReply(decodeChatStream('or', once(frames), userRequest()));
        const whole = decodeChatReply('or', { id: 'gen-1', choices: [{ message: { content: 'Answer.', reasoning_details: details }, finish_reason: 'stop' }] }, userRequest());
        const reasoningOf = (parts: typeof streamed.content) => parts.filter((part) => part.type === 'reasoning');
        expect(reasoningOf(streamed.content)).toHaveLength(1);
        expect(reasoningOf(streamed.content)[0]!.providerMetadata).toEqual({ openrouter: { reasoningDetails: details } });
        expect(reasoningOf(whole.content)[0]!.providerMetadata).toEqual({ openrouter: { reasoningDetails: details } });
        expect(streamed.content.at(-1)).toMatchObject({ type: 'text', text: 'Answer.' });
      }),
      { numRuns: 60 },
    );
  });
});
