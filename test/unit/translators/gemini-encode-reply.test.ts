import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProviderMetadata } from '../../../src/core/provider-metadata.js';
import type { Reply, ReplyPart } from '../../../src/core/reply.js';
import type { Part } from '../../../src/core/request.js';
import { decodeGeminiRequest, type GeminiOptions } from '../../../src/formats/gemini/decode-request.js';
import { encodeGeminiReply } from '../../../src/formats/gemini/encode-reply.js';
import { encodeContext, FIXED_META } from './support.js';

const options = (includeThoughts = true): GeminiOptions => ({ includeThoughts, jsonArray: false });
const reply = (content: ReplyPart[], extra: Partial<Reply> = {}): Reply => ({ content, finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 5 }, ...extra });

/** The model turn a client replays, as the next request's canonical assistant message. */
function replayed(body: ReturnType<typeof encodeGeminiReply>, secret: string): Part[] {
  const next = decodeGeminiRequest(
    { contents: [{ role: 'user', parts: [{ text: 'q' }] }, body.candidates[0]!.content] },
    { secret, params: { model: 'svc.test', method: 'generateContent' }, query: new URLSearchParams() },
  );
  return next.request.messages[1]!.content;
}

describe('a GenerateContentResponse from a canonical reply', () => {
  it('has the parts, the finish reason, usage, the client model and svc_meta last', () => {
    const context = encodeContext(options(), undefined);
    const body = encodeGeminiReply(
      reply(
        [
          { type: 'reasoning', text: 'Let me see.', providerMetadata: { gemini: { thoughtSignature: 'c2lnMQ==' } } },
          { type: 'text', text: 'Calling.' },
          { type: 'tool-call', id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}', providerMetadata: { gemini: { thoughtSignature: 'c2lnMg==' } } },
        ],
        { finishReason: 'tool-calls', usage: { inputTokens: 100, outputTokens: 30, cachedInputTokens: 60, reasoningTokens: 12 }, id: 'resp_1' },
      ),
      context,
    );
    expect(body).toEqual({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: 'Let me see.', thought: true, thoughtSignature: 'c2lnMQ==' },
              { text: 'Calling.' },
              { functionCall: { id: 'call_1', name: 'weather', args: { city: 'Paris' } }, thoughtSignature: 'c2lnMg==' },
            ],
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 18, totalTokenCount: 130, cachedContentTokenCount: 60, thoughtsTokenCount: 12 },
      modelVersion: 'svc.test',
      responseId: 'resp_1',
      svc_meta: FIXED_META && expect.objectContaining({ request_id: 'req_fixed' }),
    });
    expect(Object.keys(body).at(-1)).toBe('svc_meta');
  });

  it('leaves thought text out unless the client asked for thoughts, keeping the signature', () => {
    const body = encodeGeminiReply(reply([{ type: 'reasoning', text: 'secret plan', providerMetadata: { gemini: { thoughtSignature: 'c2ln' } } }, { type: 'text', text: 'Hi' }]), encodeContext(options(false)));
    expect(body.candidates[0]!.content.parts).toEqual([{ text: '', thought: true, thoughtSignature: 'c2ln' }, { text: 'Hi' }]);
  });

  it('seals another upstream\'s reasoning into the next part the client replays, and gets it back from the replay', () => {
    const context = encodeContext(options(false));
    const thinking: ReplyPart = { type: 'reasoning', text: 'Thinking about Paris.', providerMetadata: { anthropic: { signature: 'EqQBCkYIBxgCKkB' } } };
    const call: ReplyPart = { type: 'tool-call', id: 'toolu_01', name: 'weather', arguments: '{"city":"Paris"}' };
    const body = encodeGeminiReply(reply([thinking, call], { finishReason: 'tool-calls' }), context);
    const [part] = body.candidates[0]!.content.parts;
    expect(body.candidates[0]!.content.parts).toHaveLength(1);
    expect(part).toMatchObject({ functionCall: { id: 'toolu_01', name: 'weather', args: { city: 'Paris' } }, thoughtSignature: expect.stringMatching(/^svcr2\./) });
    expect(JSON.stringify(body)).not.toContain('Thinking about Paris');
    expect(replayed(body, context.secret)).toEqual([thinking, call]);
  });

  it('maps each finish reason, keeping a Gemini upstream\'s own word', () => {
    const finish = (finishReason: Reply['finishReason'], raw?: string) => encodeGeminiReply(reply([{ type: 'text', text: 'x' }], { finishReason, ...(raw ? { finish: { unified: finishReason, raw } } : {}) }), encodeContext(options())).candidates[0]!.finishReason;
    expect([finish('stop'), finish('length'), finish('tool-calls'), finish('content-filter'), finish('error'), finish('content-filter', 'RECITATION'), finish('content-filter', 'refusal')]).toEqual(['STOP', 'MAX_TOKENS', 'STOP', 'SAFETY', 'OTHER', 'RECITATION', 'SAFETY']);
  });

  it('says a web search and its citations as groundingMetadata', () => {
    const body = encodeGeminiReply(
      reply([
        { type: 'web-search', id: 'ws_1', query: 'paris weather', results: [{ url: 'https://weather.example/paris', title: 'Paris' }] },
        { type: 'text', text: 'It is sunny.', citations: [{ url: 'https://weather.example/paris', title: 'Paris', startIndex: 0, endIndex: 12 }] },
      ]),
      encodeContext(options()),
    );
    expect(body.candidates[0]).toMatchObject({
      content: { parts: [{ text: 'It is sunny.' }] },
      groundingMetadata: { webSearchQueries: ['paris weather'], groundingChunks: [{ web: { uri: 'https://weather.example/paris', title: 'Paris' } }], groundingSupports: [{ segment: { startIndex: 0, endIndex: 12, text: 'It is sunny.' }, groundingChunkIndices: [0] }] },
    });
  });
});

/**
 * Whatever the answer, a Gemini client that replays the model turn as it got it gives the next
 * request everything an upstream needs of that turn: its text, its calls (ids, names, arguments)
 * and every reasoning part that carries provider data, in order, with that data. Reasoning with
 * nothing to replay (unsigned, unsealable) is the only thing a replay may drop.
 */
describe('a replayed answer', () => {
  const metadata = fc.oneof(
    fc.constant<ProviderMetadata | undefined>(undefined),
    fc.base64String({ minLength: 4, maxLength: 24 }).map((signature): ProviderMetadata => ({ gemini: { thoughtSignature: signature } })),
    fc.string({ minLength: 1, maxLength: 24 }).map((signature): ProviderMetadata => ({ anthropic: { signature } })),
    fc.string({ minLength: 1, maxLength: 24 }).map((encrypted): ProviderMetadata => ({ openai: { encryptedContent: encrypted, itemId: 'rs_1' } })),
  );
  const geminiOrNone = fc.oneof(fc.constant<ProviderMetadata | undefined>(undefined), fc.base64String({ minLength: 4, maxLength: 24 }).map((signature): ProviderMetadata => ({ gemini: { thoughtSignature: signature } })));
  const part: fc.Arbitrary<ReplyPart> = fc.oneof(
    fc.record({ type: fc.constant('text' as const), text: fc.string({ minLength: 1, maxLength: 20 }), providerMetadata: geminiOrNone }),
    fc.record({ type: fc.constant('reasoning' as const), text: fc.string({ maxLength: 20 }), providerMetadata: metadata }),
    fc.record({
      type: fc.constant('tool-call' as const),
      id: fc.stringMatching(/^[a-z_]{1,8}[0-9]{1,4}$/),
      name: fc.stringMatching(/^[a-z_]{1,12}$/),
      arguments: fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), fc.oneof(fc.string(), fc.integer(), fc.boolean())).map((args) => JSON.stringify(args)),
      providerMetadata: geminiOrNone,
    }),
  );
  const clean = (parts: Array<Part | ReplyPart>) => parts.map((entry) => Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined)));

  it.each([true, false])('keeps every part an upstream needs, in order (thoughts shown: %s)', (includeThoughts) => {
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 6 }), (content) => {
        const ids = new Set<string>();
        const unique = content.filter((entry) => entry.type !== 'tool-call' || (!ids.has(entry.id) && ids.add(entry.id)));
        const context = encodeContext(options(includeThoughts));
        const body = encodeGeminiReply(reply(unique), context);
        // An answer with nothing to show (an unsigned thought, not asked for) is no turn to replay.
        fc.pre(body.candidates[0]!.content.parts.length > 0);
        const got = replayed(body, context.secret).filter((entry) => entry.type !== 'reasoning' || entry.providerMetadata);
        const wanted = unique.filter((entry) => entry.type !== 'reasoning' || entry.providerMetadata);
        expect(clean(got)).toEqual(clean(wanted.map((entry) => (entry.type === 'reasoning' && entry.providerMetadata?.gemini && !includeThoughts ? { ...entry, text: '' } : entry))));
      }),
    );
  });
});
