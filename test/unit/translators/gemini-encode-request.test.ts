import { describe, expect, it } from 'vitest';
import { encodeGeminiRequest } from '../../../src/backends/gemini/encode-request.js';
import { SKIP_SIGNATURE_VALIDATION } from '../../../src/wire/gemini/thought-signature.js';
import { geminiUrl } from '../../../src/backends/gemini/gemini-backend.js';
import { readToolCallId, toolCallId } from '../../../src/backends/gemini/tool-call-id.js';
import type { CanonicalRequest, Message, ToolChoice } from '../../../src/core/request.js';
import { expectRouterError, userRequest } from './support.js';

const SIGNATURE = 'CiQBjz1rX9ZqT6sYw0yW5tL3+uGvN2xPzQ/k8hJc7aRbE4mD1fU=';
const encode = (request: CanonicalRequest) => encodeGeminiRequest(request, 'gemini-2.5-flash', false);
const withMessages = (messages: Message[], extra: Partial<CanonicalRequest> = {}): CanonicalRequest => ({ ...userRequest(), messages, ...extra });

describe('gemini encodeGeminiRequest', () => {
  it('puts the system prompt in systemInstruction and user text in a user turn', () => {
    expect(encode(userRequest('Say hello', { system: [{ type: 'text', text: 'Be brief.' }, { type: 'text', text: '' }] }))).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'Say hello' }] }],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
    });
  });

  it('sends images inline (data: URLs) or by reference, and joins neighbouring turns of one role', () => {
    const body = encode(
      withMessages([
        { role: 'user', content: [{ type: 'text', text: 'Look' }, { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=' }] },
        { role: 'system', content: [{ type: 'text', text: 'Stay on topic.' }] },
        { role: 'user', content: [{ type: 'image', url: 'https://example.test/cat.webp' }, { type: 'image', url: 'https://example.test/x', mediaType: 'image/gif' }] },
      ]),
    );
    expect(body.contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'Look' },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
          { text: 'Stay on topic.' },
          { fileData: { mimeType: 'image/webp', fileUri: 'https://example.test/cat.webp' } },
          { fileData: { mimeType: 'image/gif', fileUri: 'https://example.test/x' } },
        ],
      },
    ]);
  });

  it('refuses an image that is neither a data: nor an http(s) URL, naming the part', () => {
    let thrown: unknown;
    try {
      encode(withMessages([{ role: 'user', content: [{ type: 'image', url: 'file:///etc/passwd' }] }]));
    } catch (error) {
      thrown = error;
    }
    expect(expectRouterError(thrown, 400, 'invalid_request').message).toContain('messages[0].content[0]');
  });

  it('replays calls with the signature and id their tool-call ids carry, and results named for their calls', () => {
    const signed = toolCallId({ thoughtSignature: SIGNATURE, upstreamId: 'fc-1' });
    const plain = toolCallId();
    const body = encode(
      withMessages([
        { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'Anthropic thought', providerMetadata: { anthropic: { signature: 'anthropic-sig' } } },
            { type: 'text', text: 'Checking.' },
            { type: 'tool-call', id: signed, name: 'get_weather', arguments: '{"city":"Paris"}' },
            { type: 'tool-call', id: plain, name: 'get_time', arguments: '' },
          ],
        },
        {
          role: 'tool',
          content: [
            { type: 'tool-result', callId: signed, content: [{ type: 'text', text: 'sunny' }] },
            { type: 'tool-result', callId: plain, content: [{ type: 'text', text: 'no clock' }], isError: true },
          ],
        },
      ]),
    );
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather?' }] },
      {
        role: 'model',
        parts: [
          // Another provider's reasoning, which Gemini cannot read: its visible text, plain.
          { text: 'Anthropic thought' },
          { text: 'Checking.' },
          { functionCall: { name: 'get_weather', args: { city: 'Paris' }, id: 'fc-1' }, thoughtSignature: SIGNATURE },
          { functionCall: { name: 'get_time', args: {} } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { output: 'sunny' }, id: 'fc-1' } },
          { functionResponse: { name: 'get_time', response: { error: 'no clock' } } },
        ],
      },
    ]);
  });

  it('puts each signature back on the part it came on: text, thought and call', () => {
    const signedBy = (thoughtSignature: string) => ({ providerMetadata: { gemini: { thoughtSignature } } });
    const body = encode(
      withMessages([
        { role: 'user', content: [{ type: 'text', text: 'Go' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'Plan.', ...signedBy('c2lnLTE=') },
            { type: 'reasoning', text: 'Unsigned thought.' },
            { type: 'text', text: 'Done.', ...signedBy('c2lnLTI=') },
            { type: 'text', text: '', ...signedBy('c2lnLTM=') },
            { type: 'tool-call', id: toolCallId({ thoughtSignature: 'b2xk' }), name: 'f', arguments: '{}', ...signedBy('c2lnLTQ=') },
          ],
        },
      ]),
    );
    expect(body.contents[1]!.parts).toEqual([
      { text: 'Plan.', thought: true, thoughtSignature: 'c2lnLTE=' },
      { text: 'Done.', thoughtSignature: 'c2lnLTI=' },
      { text: '', thoughtSignature: 'c2lnLTM=' },
      // The part's own metadata wins over what its id carries.
      { functionCall: { name: 'f', args: {} }, thoughtSignature: 'c2lnLTQ=' },
    ]);
  });

  it('sends files inline, by reference or as text, and refuses another provider’s file id', () => {
    const body = encode(
      withMessages([
        {
          role: 'user',
          content: [
            { type: 'file', source: { kind: 'base64', data: 'JVBERi0=' }, mediaType: 'application/pdf', filename: 'a.pdf' },
            { type: 'file', source: { kind: 'url', url: 'https://example.test/b.pdf' } },
            { type: 'file', source: { kind: 'text', text: 'notes' }, filename: 'notes.txt' },
            { type: 'file', source: { kind: 'file-id', id: 'https://generativelanguage.googleapis.com/v1beta/files/abc', provider: 'gemini' }, mediaType: 'application/pdf' },
          ],
        },
      ]),
    );
    expect(body.contents[0]!.parts).toEqual([
      { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
      { fileData: { mimeType: 'application/pdf', fileUri: 'https://example.test/b.pdf' } },
      { text: 'notes.txt:\nnotes' },
      { fileData: { mimeType: 'application/pdf', fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/abc' } },
    ]);
    let thrown: unknown;
    try {
      encode(withMessages([{ role: 'user', content: [{ type: 'file', source: { kind: 'file-id', id: 'file-123', provider: 'openai' } }] }]));
    } catch (error) {
      thrown = error;
    }
    expect(expectRouterError(thrown, 400, 'invalid_request').message).toContain('messages[0].content[0]: the file is a file id issued by openai');
  });

  it('names what Gemini has no setting for in the request’s backend warnings, afresh on each encoding', () => {
    const request = userRequest('hi', { tools: [{ name: 'f', parameters: { type: 'object', properties: { a: { type: 'string' } } } }], parallelToolCalls: false });
    encode(request);
    expect(request.backendWarnings).toEqual(['parallel_tool_calls not sent: Gemini has no such setting, and may call several tools at once.']);
    const again = { ...request, parallelToolCalls: true, backendWarnings: ['from an earlier attempt'] };
    encode(again);
    expect(again.backendWarnings).toBeUndefined();
  });

  it('gives every step of calls Gemini did not sign its documented stand-in, earlier turns too', () => {
    const call = (id: string, city: string): Message => ({ role: 'assistant', content: [{ type: 'tool-call', id, name: 'get_weather', arguments: JSON.stringify({ city }) }] });
    const result = (id: string): Message => ({ role: 'tool', content: [{ type: 'tool-result', callId: id, content: [{ type: 'text', text: 'ok' }] }] });
    const body = encode(
      withMessages([
        { role: 'user', content: [{ type: 'text', text: 'Earlier question' }] },
        call('toolu_old', 'Rome'),
        result('toolu_old'),
        { role: 'user', content: [{ type: 'text', text: 'Now Paris, then Oslo' }] },
        call('toolu_a', 'Paris'),
        result('toolu_a'),
        call('toolu_b', 'Oslo'),
        result('toolu_b'),
      ]),
    );
    const signatures = body.contents.filter((content) => content.role === 'model').map((content) => content.parts[0]!.thoughtSignature);
    expect(signatures).toEqual([SKIP_SIGNATURE_VALIDATION, SKIP_SIGNATURE_VALIDATION, SKIP_SIGNATURE_VALIDATION]);
  });

  it('keeps a stand-in signature once its turn has passed, so the contents sent before are sent again as they were', () => {
    const before: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'Resume where the other model stopped' }] },
      { role: 'assistant', content: [{ type: 'tool-call', id: 'toolu_other', name: 'get_weather', arguments: '{"city":"Rome"}' }] },
      { role: 'tool', content: [{ type: 'tool-result', callId: 'toolu_other', content: [{ type: 'text', text: 'sunny' }] }] },
    ];
    const after: Message[] = [...before, { role: 'assistant', content: [{ type: 'text', text: 'Rome is sunny.' }] }, { role: 'user', content: [{ type: 'text', text: 'And tomorrow?' }] }];
    const first = encode(withMessages(before)).contents;
    const second = encode(withMessages(after)).contents;
    expect(first[1]!.parts[0]!.thoughtSignature).toBe(SKIP_SIGNATURE_VALIDATION);
    expect(second.slice(0, first.length)).toEqual(first);
  });

  it('names a result whose call id is unknown by the order of the last model turn’s calls', () => {
    const body = encode(
      withMessages([
        { role: 'user', content: [{ type: 'text', text: 'Two things' }] },
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', id: 'a', name: 'first_tool', arguments: '{}' },
            { type: 'tool-call', id: 'b', name: 'second_tool', arguments: '{}' },
          ],
        },
        {
          role: 'tool',
          content: [
            { type: 'tool-result', callId: 'renamed-1', content: [{ type: 'text', text: '1' }] },
            { type: 'tool-result', callId: 'renamed-2', content: [{ type: 'text', text: '2' }] },
          ],
        },
      ]),
    );
    expect(body.contents[2]!.parts.map((part) => part.functionResponse?.name)).toEqual(['first_tool', 'second_tool']);
  });

  it('refuses a tool result that answers no call, naming the part', () => {
    let thrown: unknown;
    try {
      encode(withMessages([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }, { role: 'tool', content: [{ type: 'tool-result', callId: 'ghost', content: [] }] }]));
    } catch (error) {
      thrown = error;
    }
    const error = expectRouterError(thrown, 400, 'invalid_request');
    expect(error.message).toContain('messages[1].content[0]');
    expect(error.param).toBe('messages[1].content[0]');
  });

  it('refuses tool-call arguments that are not JSON, naming the part', () => {
    let thrown: unknown;
    try {
      encode(withMessages([{ role: 'assistant', content: [{ type: 'tool-call', id: 'x', name: 'f', arguments: '{oops' }] }]));
    } catch (error) {
      thrown = error;
    }
    expect(expectRouterError(thrown, 400, 'invalid_request').message).toContain('messages[0].content[0].arguments');
  });

  it('sends tool results’ images after the response', () => {
    const body = encode(
      withMessages([
        { role: 'assistant', content: [{ type: 'tool-call', id: 'shot', name: 'screenshot', arguments: '{}' }] },
        { role: 'tool', content: [{ type: 'tool-result', callId: 'shot', content: [{ type: 'text', text: 'here' }, { type: 'image', url: 'data:image/jpeg;base64,/9j/' }] }] },
      ]),
    );
    expect(body.contents[1]).toEqual({
      role: 'user',
      parts: [{ functionResponse: { name: 'screenshot', response: { output: 'here' } } }, { inlineData: { mimeType: 'image/jpeg', data: '/9j/' } }],
    });
  });

  it('declares tools with sanitised parameters, leaving them out for a tool that takes none', () => {
    const body = encode(
      userRequest('hi', {
        tools: [
          { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false, $schema: 'x' } },
          { name: 'now', parameters: { type: 'object', properties: {} } },
        ],
      }),
    );
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
          { name: 'now' },
        ],
      },
    ]);
    expect(body.toolConfig).toBeUndefined();
  });

  it.each<[ToolChoice, unknown]>([
    ['auto', { mode: 'AUTO' }],
    ['none', { mode: 'NONE' }],
    ['required', { mode: 'ANY' }],
    [{ name: 'get_weather' }, { mode: 'ANY', allowedFunctionNames: ['get_weather'] }],
  ])('maps tool choice %o to functionCallingConfig %o', (choice, expected) => {
    const body = encode(userRequest('hi', { tools: [{ name: 'get_weather', parameters: { type: 'object', properties: { a: { type: 'string' } } } }], toolChoice: choice }));
    expect(body.toolConfig).toEqual({ functionCallingConfig: expected });
  });

  it('puts sampling, caps, stops, structured output and thinking in generationConfig', () => {
    const body = encode(
      userRequest('hi', {
        maxOutputTokens: 512,
        temperature: 0.2,
        topP: 0.9,
        topK: 40,
        stop: ['END'],
        reasoningEffort: 'low',
        outputSchema: { name: 'answer', schema: { type: 'object', properties: { ok: { type: 'boolean' } }, additionalProperties: false } },
      }),
    );
    expect(body.generationConfig).toEqual({
      maxOutputTokens: 512,
      temperature: 0.2,
      topP: 0.9,
      topK: 40,
      stopSequences: ['END'],
      responseMimeType: 'application/json',
      responseSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
    });
    expect(encode(userRequest('hi', { reasoningBudget: 3000, reasoningEffort: 'high' })).generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 3000, includeThoughts: true } });
    expect(encode(userRequest('hi')).generationConfig).toBeUndefined();
  });
});

describe('gemini tool-call ids', () => {
  it.each([
    [{}, /^call_[A-Za-z0-9]{16}$/],
    [{ thoughtSignature: SIGNATURE }, /^call_[A-Za-z0-9]{16}_[A-Za-z0-9_-]+$/],
    [{ upstreamId: 'fc-9', thoughtSignature: SIGNATURE }, /^call_[A-Za-z0-9]{16}_[A-Za-z0-9_-]+$/],
  ])('carry %o and read it back', (carried, shape) => {
    const id = toolCallId(carried);
    expect(id).toMatch(shape);
    expect(readToolCallId(id)).toEqual(carried);
    expect(toolCallId(carried)).not.toBe(id);
  });

  it.each(['toolu_01ABC', 'call_abc', 'call_AAAAAAAAAAAAAAAA_notbase64json', 'call_AAAAAAAAAAAAAAAA_bnVsbA', ''])('carry nothing when not made here: %s', (id) => {
    expect(readToolCallId(id)).toEqual({});
  });
});

describe('gemini method URLs', () => {
  it.each([
    ['https://generativelanguage.googleapis.com/v1beta', 'gemini-2.5-flash', false, 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent'],
    ['https://generativelanguage.googleapis.com/v1beta', 'gemini-2.5-flash', true, 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse'],
    ['https://generativelanguage.googleapis.com', 'models/gemini-3-pro-preview', false, 'https://generativelanguage.googleapis.com/v1beta/models/gemini-3-pro-preview:generateContent'],
    ['http://127.0.0.1:9/v1', 'gemini-pro', true, 'http://127.0.0.1:9/v1/models/gemini-pro:streamGenerateContent?alt=sse'],
    ['http://gateway.test/google/v1alpha', 'a b?c', false, 'http://gateway.test/google/v1alpha/models/a%20b%3Fc:generateContent'],
  ])('%s + %s (stream: %s) → %s', (base, model, stream, expected) => {
    expect(geminiUrl(base, model, stream)).toBe(expected);
  });
});
