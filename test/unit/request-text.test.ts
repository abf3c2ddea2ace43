import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../src/core/request.js';
import { forEachRequestText, rewriteRequestText } from '../../src/core/request-text.js';
import { chatFormat } from '../../src/formats/chat/chat-format.js';
import { messagesFormat } from '../../src/formats/messages/messages-format.js';
import { responsesFormat } from '../../src/formats/responses/responses-format.js';

/**
 * A request's text in both the forms an upstream may be sent (the canonical request and the
 * client's own body): read in the client's own places, rewritten alike in both, never in the
 * client's objects, and never in what is not text (images as data, reasoning signed upstream).
 */

const MARK = 'MARK';
const CONTEXT = { secret: 'unit-test-secret-0123456789abcdef' };

/** One body per format, with the mark in every place a model reads, and in places it must not be changed. */
const BODIES = {
  chat: {
    model: 'svc.intelligent-basic',
    messages: [
      { role: 'system', content: `system ${MARK}` },
      { role: 'user', content: [{ type: 'text', text: `user ${MARK}` }, { type: 'image_url', image_url: { url: `data:image/png;base64,${MARK}` } }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'run', arguments: `{"cmd":"${MARK}"}` } }] },
      { role: 'tool', tool_call_id: 'call_1', content: `result ${MARK}` },
    ],
    tools: [{ type: 'function', function: { name: 'run', description: `tool ${MARK}`, parameters: { type: 'object', properties: { cmd: { type: 'string', description: `param ${MARK}` } } } } }],
  },
  messages: {
    model: 'svc.intelligent-basic',
    max_tokens: 100,
    system: [{ type: 'text', text: `system ${MARK}` }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: `user ${MARK}` }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: MARK } }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: `thought ${MARK}`, signature: 'sig' },
          { type: 'tool_use', id: 'toolu_1', name: 'run', input: { cmd: MARK } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: `result ${MARK}` }] },
    ],
    tools: [{ name: 'run', description: `tool ${MARK}`, input_schema: { type: 'object', properties: { cmd: { type: 'string', description: `param ${MARK}` } } } }],
  },
  responses: {
    model: 'svc.intelligent-basic',
    instructions: `system ${MARK}`,
    input: [
      { role: 'user', content: [{ type: 'input_text', text: `user ${MARK}` }] },
      { type: 'function_call', call_id: 'call_1', name: 'run', arguments: `{"cmd":"${MARK}"}` },
      { type: 'function_call_output', call_id: 'call_1', output: `result ${MARK}` },
    ],
    tools: [{ type: 'function', name: 'run', description: `tool ${MARK}`, parameters: { type: 'object', properties: { cmd: { type: 'string', description: `param ${MARK}` } } } }],
  },
} as const;

const FORMATS = { chat: chatFormat, messages: messagesFormat, responses: responsesFormat } as const;
type Name = keyof typeof FORMATS;

const decode = (name: Name): CanonicalRequest => FORMATS[name].decode(structuredClone(BODIES[name]), CONTEXT).request;

/** Every string of a canonical request a model reads, as JSON (reasoning and images aside). */
const canonicalText = (request: CanonicalRequest): string => JSON.stringify({ system: request.system, tools: request.tools, messages: request.messages.map((message) => message.content.filter((part) => part.type !== 'reasoning' && part.type !== 'image')) });

describe('forEachRequestText', () => {
  it.each(Object.keys(FORMATS) as Name[])('names places as the %s client does, the conversation last', (name) => {
    const seen: string[] = [];
    forEachRequestText(decode(name), (text, where) => {
      if (text.includes(MARK)) seen.push(where);
    });
    const expected = {
      chat: ['tools[0]', 'tools[0]', 'messages[0]', 'messages[1]', 'messages[2]', 'messages[3]'],
      messages: ['system[0]', 'tools[0]', 'tools[0]', 'messages[0]', 'messages[1]', 'messages[2]'],
      responses: ['instructions', 'tools[0]', 'tools[0]', 'input[0]', 'input[1]', 'input[2]'],
    }[name];
    expect(seen).toEqual(expected);
    // Tools and the system prompt before any of the conversation.
    expect(seen.findIndex((where) => /^(messages|input)/.test(where))).toBeGreaterThan(seen.findLastIndex((where) => !/^(messages|input)/.test(where)));
  });
});

describe('rewriteRequestText', () => {
  it.each(Object.keys(FORMATS) as Name[])('rewrites the %s request in both forms, and leaves the client body and opaque parts alone', (name) => {
    const body = structuredClone(BODIES[name]) as Record<string, unknown>;
    const original = structuredClone(body);
    const request = FORMATS[name].decode(body, CONTEXT).request;
    rewriteRequestText(request, (text) => text.replaceAll(MARK, 'DONE'));
    // The client's own objects are as they came.
    expect(body).toEqual(original);
    const forwarded = JSON.stringify(request.passthrough!.body);
    // What stays is only what must: the image's data, and the signed thinking block.
    const kept = forwarded.match(new RegExp(MARK, 'g'))?.length ?? 0;
    expect(kept).toBe({ chat: 1, messages: 2, responses: 0 }[name]);
    expect(forwarded).not.toContain(`user ${MARK}`);
    expect(canonicalText(request)).not.toContain(MARK);
    expect(canonicalText(request)).toContain('DONE');
  });

  it('returns the same objects when nothing changes', () => {
    fc.assert(
      fc.property(fc.constantFrom(...(Object.keys(FORMATS) as Name[])), (name) => {
        const request = decode(name);
        const { system, tools, messages, passthrough } = request;
        const body = passthrough!.body;
        rewriteRequestText(request, (text) => text);
        expect(request.system).toBe(system);
        expect(request.tools).toBe(tools);
        expect(request.messages).toBe(messages);
        expect(request.passthrough!.body).toBe(body);
      }),
    );
  });

  it("keeps a client's __proto__ member a member", () => {
    const body = JSON.parse(`{"model":"svc.intelligent-basic","messages":[{"role":"user","content":"${MARK}"}],"metadata":{"__proto__":"${MARK}"}}`);
    const request = chatFormat.decode(body, CONTEXT).request;
    rewriteRequestText(request, (text) => text.replaceAll(MARK, 'DONE'));
    const metadata = request.passthrough!.body.metadata as Record<string, unknown>;
    expect(Object.hasOwn(metadata, '__proto__')).toBe(true);
    expect(metadata['__proto__']).toBe('DONE');
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
  });
});
