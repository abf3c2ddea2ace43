import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBody, newItemsAfter, replayedIdentity, settingsOf, type AnsweredTurn } from '../../../src/backends/openai-responses/socket/continuation.js';

/**
 * A turn continues the socket's last response only when it is that turn's body with the response's
 * output replayed and new items after it: then exactly the new items go; anything else, the whole body.
 */

const user = fc.string({ maxLength: 12 }).map((text) => ({ role: 'user', content: text }));
const result = fc.tuple(fc.string({ minLength: 1, maxLength: 6 }), fc.string({ maxLength: 8 })).map(([id, output]) => ({ type: 'function_call_output', call_id: id, output }));
const said = fc.string({ maxLength: 12 }).map((text) => ({ type: 'message', role: 'assistant', status: 'completed', id: 'msg_x', content: [{ type: 'output_text', text, annotations: [] }] }));
const called = fc.string({ minLength: 1, maxLength: 6 }).map((id) => ({ type: 'function_call', id: 'fc_x', call_id: id, name: 'lookup', arguments: '{}' }));
const reasoning = fc.constant({ type: 'reasoning', id: 'rs_x', summary: [], encrypted_content: 'opaque' });

const conversation = fc.record({
  before: fc.array(fc.oneof(user, result, said, called), { maxLength: 6 }),
  output: fc.array(fc.oneof(said, called, reasoning), { minLength: 1, maxLength: 4 }),
  added: fc.array(fc.oneof(user, result), { minLength: 1, maxLength: 3 }),
});

const SETTINGS = { model: 'gpt-5', instructions: 'be brief', tools: [], store: false };

function answered(before: unknown[], output: unknown[]): AnsweredTurn {
  const body = createBody({ ...SETTINGS, input: before, stream: true });
  return { responseId: 'resp_1', settings: settingsOf(body), input: before.map((item) => JSON.stringify(item)), output: output.map(replayedIdentity).filter((identity): identity is string => identity !== undefined) };
}

describe('newItemsAfter', () => {
  it('sends exactly the new items of a turn that replays the last response, whether or not it replays its reasoning', () => {
    fc.assert(
      fc.property(conversation, fc.boolean(), ({ before, output, added }, withReasoning) => {
        const replayed = withReasoning ? output : output.filter((item) => item.type !== 'reasoning');
        const next = newItemsAfter(answered(before, output), createBody({ ...SETTINGS, input: [...before, ...replayed, ...added], stream: true }));
        expect(next?.items).toEqual(added);
      }),
    );
  });

  it('sends the whole body when the settings, the earlier input or the replayed output differ, or nothing is new', () => {
    fc.assert(
      fc.property(conversation, fc.nat(), ({ before, output, added }, pick) => {
        const last = answered(before, output);
        const whole = [...before, ...output, ...added];
        expect(newItemsAfter(last, createBody({ ...SETTINGS, instructions: 'be thorough', input: whole }))).toBeUndefined();
        expect(newItemsAfter(last, createBody({ ...SETTINGS, input: [...before, ...output] }))).toBeUndefined();
        expect(newItemsAfter(last, createBody({ ...SETTINGS, input: whole, previous_response_id: 'resp_0' }))).toBeUndefined();
        // One earlier item or one replayed message or call changed.
        const changeable = [...before.keys(), ...output.flatMap((item, index) => (item.type === 'reasoning' ? [] : [before.length + index]))];
        const at = changeable[pick % changeable.length]!;
        const changed = whole.map((item, index) => (index === at ? { ...item, ...('call_id' in item ? { call_id: `${item.call_id}!` } : 'role' in item && item.role === 'user' ? { content: `${item.content}!` } : { content: [{ type: 'output_text', text: 'other', annotations: [] }] }) } : item));
        if (JSON.stringify(changed[at]) !== JSON.stringify(whole[at]) && replayedIdentity(changed[at]) !== replayedIdentity(whole[at]) || at < before.length) {
          expect(newItemsAfter(last, createBody({ ...SETTINGS, input: changed }))).toBeUndefined();
        }
      }),
    );
  });

  it('leaves transport-only members out of the create message', () => {
    expect(createBody({ model: 'gpt-5', input: [], stream: true, background: false, stream_options: {} })).toEqual({ model: 'gpt-5', input: [] });
  });
});
