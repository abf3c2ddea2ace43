import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeResponsesRequest } from '../../../src/backends/openai-responses/encode-request.js';
import type { Message, Part } from '../../../src/core/request.js';
import { userRequest } from './support.js';

/**
 * Every input item the Responses encoder writes is one the API reference names by its shape: an
 * input message (role user, system or developer; `type` optional) or an item carrying its `type`.
 * An assistant message without `type: "message"` is refused by servers that tell items apart by
 * their type (llama.cpp's: "Cannot determine type of 'item'"), so it never goes out untyped.
 * https://platform.openai.com/docs/api-reference/responses/create#responses-create-input
 */

const text = fc.string({ maxLength: 12 }).map((value): Part => ({ type: 'text', text: value }));
const call = fc.tuple(fc.string({ minLength: 1, maxLength: 6 }), fc.constantFrom('get_weather', 'search')).map(([id, name]): Part => ({ type: 'tool-call', id, name, arguments: '{}' }));
const result = fc.tuple(fc.string({ minLength: 1, maxLength: 6 }), fc.string({ maxLength: 12 })).map(([callId, output]): Part => ({ type: 'tool-result', callId, content: [{ type: 'text', text: output }] }));
const reasoning = fc.constantFrom<Part>({ type: 'reasoning', text: 'thought', providerMetadata: { openai: { encryptedContent: 'gAAAA-sealed' } } }, { type: 'reasoning', text: 'thought' });

const message: fc.Arbitrary<Message> = fc.oneof(
  fc.array(text, { minLength: 1, maxLength: 3 }).map((content): Message => ({ role: 'user', content })),
  fc.array(text, { minLength: 1, maxLength: 2 }).map((content): Message => ({ role: 'system', content })),
  fc.array(fc.oneof(text, call, reasoning), { minLength: 1, maxLength: 4 }).map((content): Message => ({ role: 'assistant', content })),
  fc.array(result, { minLength: 1, maxLength: 2 }).map((content): Message => ({ role: 'tool', content })),
);

describe('Responses input items', () => {
  it('are typed, or input messages of a role that needs no type', () => {
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 8 }), (messages) => {
        const body = encodeResponsesRequest({ ...userRequest(), messages }, 'm', false);
        for (const item of body.input as unknown as Array<Record<string, unknown>>) {
          if (typeof item.type === 'string') continue;
          expect(['user', 'system', 'developer']).toContain(item.role);
        }
        const assistant = (body.input as unknown as Array<Record<string, unknown>>).filter((item) => item.role === 'assistant');
        for (const item of assistant) expect(item.type).toBe('message');
      }),
      { numRuns: 300 },
    );
  });
});
