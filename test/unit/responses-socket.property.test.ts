import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RouterError } from '../../src/core/errors.js';
import { sse } from '../../src/formats/shared/sse.js';
import { MAX_DEPTH } from '../../src/server/read-body.js';
import { SocketConversation } from '../../src/server/responses-socket/socket-conversation.js';
import { SseMessages } from '../../src/server/responses-socket/sse-messages.js';
import { socketTurn } from '../../src/server/responses-socket/turn-body.js';

describe('SseMessages', () => {
  it('gives each frame\'s data once, in order, however the text is cut into pieces', () => {
    const event = fc.record({ type: fc.string({ maxLength: 12 }), text: fc.string({ maxLength: 40 }) });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 20 }), (events, cuts) => {
        const text = events.map((payload) => sse(payload, 'response.output_text.delta')).join('') + ': a comment line\n\n';
        const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
        const pieces: string[] = [];
        let from = 0;
        for (const point of points) {
          pieces.push(text.slice(from, point));
          from = point;
        }
        pieces.push(text.slice(from));
        const frames = new SseMessages();
        const messages = pieces.flatMap((piece) => frames.push(piece));
        expect(messages.map((message) => JSON.parse(message))).toEqual(events);
        expect(frames.partial).toBe(false);
      }),
    );
  });

  it('joins multi-line data and skips [DONE]', () => {
    const frames = new SseMessages();
    expect(frames.push('data: {"a":\ndata: 1}\n\ndata: [DONE]\n\n')).toEqual(['{"a":\n1}']);
  });
});

describe('socketTurn', () => {
  it('turns any message into a request body or a 4xx RouterError, never anything else', () => {
    const conversation = new SocketConversation(10_000);
    conversation.remember('resp_known', [{ role: 'user', content: 'hi' }], [{ type: 'message', role: 'assistant', content: [] }]);
    const message = fc.oneof(
      fc.string(),
      fc.json(),
      fc.jsonValue().map((value) => JSON.stringify(value)),
      fc
        .record(
          {
            type: fc.constantFrom('response.create', 'response.cancel', 7),
            model: fc.string(),
            input: fc.oneof(fc.string(), fc.array(fc.jsonValue()), fc.jsonValue()),
            previous_response_id: fc.oneof(fc.constantFrom('resp_known', 'resp_other', '', '__proto__', 'constructor'), fc.jsonValue()),
            generate: fc.jsonValue(),
            background: fc.jsonValue(),
            client_metadata: fc.oneof(fc.dictionary(fc.string(), fc.string()), fc.jsonValue()),
          },
          { requiredKeys: [] },
        )
        .map((value) => JSON.stringify(value)),
      // Nested past anything real, in any member: written by hand, as JSON.stringify could not.
      fc
        .tuple(fc.integer({ min: 1, max: 6000 }), fc.constantFrom('input', 'metadata', 'client_metadata', 'tools'), fc.constantFrom('array', 'object'))
        .map(([depth, field, kind]) => `{"type":"response.create","model":"m","${field}":${kind === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)}}`),
    );
    fc.assert(
      fc.property(message, (text) => {
        try {
          const turn = socketTurn(text, conversation);
          // What the socket takes, the pipeline can write out again, as deep as the HTTP endpoint takes and no deeper.
          expect(nesting(turn.body)).toBeLessThanOrEqual(MAX_DEPTH);
          expect(() => JSON.stringify(turn.body)).not.toThrow();
          expect(turn.body.stream).toBe(true);
          expect(turn.body).not.toHaveProperty('type');
          expect(turn.body).not.toHaveProperty('client_metadata');
          expect(Array.isArray(turn.input)).toBe(true);
          // A known previous response's items come first, and the id is not passed on.
          if (turn.body.previous_response_id !== undefined) expect(typeof turn.body.previous_response_id).not.toBe('string');
        } catch (error) {
          expect(error).toBeInstanceOf(RouterError);
          expect((error as RouterError).status).toBeGreaterThanOrEqual(400);
          expect((error as RouterError).status).toBeLessThan(500);
        }
      }),
      { numRuns: 500 },
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('puts the held response\'s items before the new input, and refuses an id it does not hold', () => {
    const conversation = new SocketConversation(10_000);
    conversation.remember('resp_1', [{ role: 'user', content: 'a' }], [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'b' }] }]);
    const turn = socketTurn(JSON.stringify({ type: 'response.create', model: 'm', previous_response_id: 'resp_1', input: 'c' }), conversation);
    expect(turn.body.input).toEqual([
      { role: 'user', content: 'a' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'b' }] },
      { type: 'message', role: 'user', content: 'c' },
    ]);
    expect(turn.body).not.toHaveProperty('previous_response_id');
    expect(() => socketTurn(JSON.stringify({ type: 'response.create', previous_response_id: 'resp_0' }), conversation)).toThrow(/Previous response with id 'resp_0' not found/);
  });
});

/** How many levels of arrays and objects a JSON value has (a scalar has none). */
function nesting(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let deepest = 0;
  for (const inner of Object.values(value)) deepest = Math.max(deepest, nesting(inner));
  return deepest + 1;
}

describe('SocketConversation', () => {
  it('keeps one response, and none that is larger than the bound or too deep to be written out', () => {
    const conversation = new SocketConversation(100);
    conversation.remember('resp_1', ['a'], ['b']);
    conversation.remember('resp_2', ['c'], ['d']);
    expect(conversation.itemsUpTo('resp_1')).toBeUndefined();
    expect(conversation.itemsUpTo('resp_2')).toEqual(['c', 'd']);
    conversation.remember('resp_3', ['x'.repeat(200)], []);
    expect(conversation.itemsUpTo('resp_3')).toBeUndefined();
    expect(conversation.itemsUpTo('resp_2')).toBeUndefined();
    let deep: unknown = 'leaf';
    for (let i = 0; i < 20_000; i++) deep = [deep];
    conversation.remember('resp_4', ['e'], []);
    expect(() => conversation.remember('resp_5', [deep], [])).not.toThrow();
    expect(conversation.itemsUpTo('resp_5')).toBeUndefined();
  });
});
