import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../src/core/request.js';
import type { DecodeContext } from '../../../src/formats/client-format.js';
import { decodeGeminiRequest } from '../../../src/formats/gemini/decode-request.js';
import { geminiCounter } from '../../../src/formats/gemini/count-tokens.js';
import { expectInvalid, thrownBy } from './support.js';

const SECRET = 'unit-test-secret-0123456789abcdef';
const context = (method = 'generateContent', model = 'svc.intelligent-pro', query = ''): DecodeContext => ({ secret: SECRET, params: { model, method }, query: new URLSearchParams(query) });
const decode = (body: unknown, method?: string, query?: string) => decodeGeminiRequest(body, context(method, undefined, query));
const user = (text: string) => ({ role: 'user', parts: [{ text }] });
const named = (request: CanonicalRequest) => (request.sameFormatOnly ?? []).map((entry) => `${entry.refuse ? 'refuse' : 'warn'} ${entry.param}`);

/** Gemini CLI 0.61.0's two requests of a shell-tool round trip, as it sent them. */
const captured = readFileSync(new URL('../../fixtures/agent-captures/gemini-cli-0.61.0.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as { path: string; body: Record<string, any> });

describe("Gemini CLI's requests", () => {
  const [first, second] = captured.map((entry) => {
    const [, model, method, query] = /^\/v1beta\/models\/([^:]+):(\w+)\?(.*)$/.exec(entry.path)!;
    return { entry, decoded: decodeGeminiRequest(entry.body, context(method, model, query)) };
  });

  it('decode with the model and the method from the path, streamed as server-sent events', () => {
    expect(first!.decoded).toMatchObject({ stream: true, options: { includeThoughts: true, jsonArray: false } });
    expect(first!.decoded.streamMediaType).toBeUndefined();
    expect(first!.decoded.request.model).toBe('gemini-2.5-flash');
  });

  it('keep the system instruction, the 16 functions with their JSON schemas, sampling and thinking', () => {
    const { request } = first!.decoded;
    const body = first!.entry.body;
    expect(request.system).toEqual([{ type: 'text', text: body.systemInstruction.parts[0].text }]);
    expect(request.tools).toHaveLength(16);
    expect(request.tools[0]).toEqual({ name: 'update_topic', description: body.tools[0].functionDeclarations[0].description, parameters: body.tools[0].functionDeclarations[0].parametersJsonSchema });
    expect(request).toMatchObject({ temperature: 1, topP: 0.95, topK: 64, reasoningBudget: 8192, reasoningDisplay: 'summarized' });
    expect(request.messages).toEqual([{ role: 'user', content: body.contents[0].parts.map((part: { text: string }) => ({ type: 'text', text: part.text })) }]);
    expect(request.sameFormatOnly).toBeUndefined();
    expect(request.forwardBody).toEqual({ format: 'gemini', body });
  });

  it('replay the call with its id and signature, and answer it with the output', () => {
    const { request } = second!.decoded;
    expect(request.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            id: 'run_shell_command_1796672613492_0',
            name: 'run_shell_command',
            arguments: JSON.stringify({ command: 'echo hello-from-tool > proof.txt && cat proof.txt', description: 'write proof' }),
            providerMetadata: { gemini: { thoughtSignature: 'skip_thought_signature_validator' } },
          },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', callId: 'run_shell_command_1796672613492_0', content: [{ type: 'text', text: second!.entry.body.contents[2].parts[0].functionResponse.response.output }] }] },
    ]);
  });
});

describe('the Gemini request decoder', () => {
  it('reads every kind of part: text, thoughts, inline and referenced media, Files API files', () => {
    const { request } = decode({
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'Look:' },
            { inlineData: { mimeType: 'image/png', data: 'iVBOR' } },
            { inlineData: { mimeType: 'application/pdf', data: 'JVBER', displayName: 'a.pdf' } },
            { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/cat.jpg' } },
            { fileData: { mimeType: 'application/pdf', fileUri: 'https://example.com/doc.pdf' } },
            { fileData: { mimeType: 'application/pdf', fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/abc123' } },
          ],
        },
        { role: 'model', parts: [{ text: 'Thinking…', thought: true, thoughtSignature: 'c2ln' }, { text: 'A cat.', thoughtSignature: 'c2lnMg==' }] },
      ],
    });
    expect(request.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look:' },
          { type: 'image', url: 'data:image/png;base64,iVBOR', mediaType: 'image/png' },
          { type: 'file', source: { kind: 'base64', data: 'JVBER' }, mediaType: 'application/pdf', filename: 'a.pdf' },
          { type: 'image', url: 'https://example.com/cat.jpg', mediaType: 'image/jpeg' },
          { type: 'file', source: { kind: 'url', url: 'https://example.com/doc.pdf' }, mediaType: 'application/pdf' },
          { type: 'file', source: { kind: 'file-id', id: 'https://generativelanguage.googleapis.com/v1beta/files/abc123', provider: 'gemini' }, mediaType: 'application/pdf' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Thinking…', providerMetadata: { gemini: { thoughtSignature: 'c2ln' } } },
          { type: 'text', text: 'A cat.', providerMetadata: { gemini: { thoughtSignature: 'c2lnMg==' } } },
        ],
      },
    ]);
  });

  it('gives calls without ids ids of their place, the same on every turn, and matches responses to them by name', () => {
    const body = {
      contents: [
        user('Weather in Paris and Rome?'),
        { role: 'model', parts: [{ functionCall: { name: 'weather', args: { city: 'Paris' } } }, { functionCall: { name: 'weather', args: { city: 'Rome' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'weather', response: { output: 'sunny' } } }, { functionResponse: { name: 'weather', response: { error: 'no data' } } }, { text: 'And?' }] },
      ],
    };
    const { request } = decode(body);
    expect(request.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', id: 'call_weather_1_0', name: 'weather', arguments: '{"city":"Paris"}' },
          { type: 'tool-call', id: 'call_weather_1_1', name: 'weather', arguments: '{"city":"Rome"}' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', callId: 'call_weather_1_0', content: [{ type: 'text', text: 'sunny' }] },
          { type: 'tool-result', callId: 'call_weather_1_1', content: [{ type: 'text', text: 'no data' }], isError: true },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'And?' }] },
    ]);
    expect(decode(body).request.messages).toEqual(request.messages);
  });

  it("writes a response that is neither output nor error as its JSON (the AI SDK's {name, content}), with its images", () => {
    const { request } = decode({
      contents: [
        user('Go'),
        { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'shot', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'shot', response: { name: 'shot', content: 'done' }, parts: [{ inlineData: { mimeType: 'image/png', data: 'iVBOR' } }] } }] },
      ],
    });
    expect(request.messages[2]).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', callId: 'c1', content: [{ type: 'text', text: '{"name":"shot","content":"done"}' }, { type: 'image', url: 'data:image/png;base64,iVBOR', mediaType: 'image/png' }] }],
    });
  });

  it('refuses what has no meaning, naming the field', () => {
    expectInvalid(() => decode({}), { param: 'contents', message: 'contents: this field is required.' });
    expectInvalid(() => decode({ contents: [] }), { param: 'contents', message: 'contents: at least one Content is required.' });
    expectInvalid(() => decode({ contents: [{ role: 'system', parts: [{ text: 'x' }] }] }), { param: 'contents[0].role', message: "contents[0].role: expected 'user' or 'model', got 'system'." });
    expectInvalid(() => decode({ contents: [{ role: 'user', parts: [] }] }), { param: 'contents[0].parts', message: 'contents[0].parts: a Content needs at least one part.' });
    expectInvalid(() => decode({ contents: [{ role: 'user', parts: [{}] }] }), { param: 'contents[0].parts[0]', message: 'contents[0].parts[0]: a part needs one of text, inlineData, fileData, functionCall or functionResponse.' });
    expectInvalid(() => decode({ contents: [{ role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }] }] }), {
      param: 'contents[0].parts[0].functionResponse.id',
      message: "contents[0].parts[0].functionResponse: this response to 'f' answers no functionCall of 'f' in the conversation; give it the call's id.",
    });
    expectInvalid(() => decode({ contents: [user('x')], toolConfig: { functionCallingConfig: { mode: 'SOMETIMES' } } }), {
      param: 'toolConfig.functionCallingConfig.mode',
      message: "toolConfig.functionCallingConfig.mode: expected one of AUTO, ANY, NONE or VALIDATED, got 'SOMETIMES'.",
    });
    expectInvalid(() => decode({ contents: [user('x')], generationConfig: { temperature: 3 } }), { param: 'generationConfig.temperature', message: 'generationConfig.temperature: must be at most 2.' });
  });

  it('answers a method it does not serve with a 404 naming those it does', () => {
    const error = thrownBy(() => decode({ contents: [user('x')] }, 'embedContent'));
    expect(error).toMatchObject({ status: 404, kind: 'not_found', message: "The method 'embedContent' is not served here; this router serves generateContent, streamGenerateContent and countTokens on models/svc.intelligent-pro." });
  });

  it('streams as one JSON array without alt=sse, as Google does', () => {
    expect(decode({ contents: [user('x')] }, 'streamGenerateContent', '')).toMatchObject({ stream: true, options: { jsonArray: true }, streamMediaType: 'application/json' });
    expect(decode({ contents: [user('x')] }, 'streamGenerateContent', 'alt=sse')).toMatchObject({ stream: true, options: { jsonArray: false } });
    expect(decode({ contents: [user('x')] }, 'generateContent', '')).toMatchObject({ stream: false, options: { jsonArray: false } });
  });
});

describe('tools and tool config', () => {
  it("turns Gemini's Schema into JSON Schema, and takes parametersJsonSchema as it is", () => {
    const { request } = decode({
      contents: [user('x')],
      tools: [
        {
          functionDeclarations: [
            { name: 'a', description: 'A', parameters: { type: 'OBJECT', properties: { n: { type: 'INTEGER', nullable: true, example: 3 }, tags: { type: 'ARRAY', items: { type: 'STRING', enum: ['x'] }, maxItems: '4' } }, required: ['n'], propertyOrdering: ['n', 'tags'] } },
            { name: 'b', parametersJsonSchema: { type: 'object', properties: { s: { type: 'string' } }, additionalProperties: false } },
            { name: 'c' },
          ],
        },
      ],
    });
    expect(request.tools).toEqual([
      { name: 'a', description: 'A', parameters: { type: 'object', properties: { n: { type: ['integer', 'null'], examples: [3] }, tags: { type: 'array', items: { type: 'string', enum: ['x'] }, maxItems: 4 } }, required: ['n'] } },
      { name: 'b', parameters: { type: 'object', properties: { s: { type: 'string' } }, additionalProperties: false } },
      { name: 'c', parameters: { type: 'object', properties: {} } },
    ]);
  });

  it('lets a nullable value be null, whatever the rest of its schema says', () => {
    const { request } = decode({
      contents: [user('x')],
      tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'OBJECT', properties: { a: { anyOf: [{ type: 'STRING' }, { type: 'INTEGER' }], nullable: true }, b: { nullable: true, description: 'anything' } } } }] }],
    });
    expect(request.tools[0]!.parameters).toEqual({ type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] }, b: { description: 'anything' } } });
  });

  it('offers Google Search as web search, and keeps the built-in tools for a Gemini upstream, named elsewhere', () => {
    const decoded = decode({ contents: [user('x')], tools: [{ googleSearch: {} }, { codeExecution: {} }, { urlContext: {} }] });
    expect(decoded.request.webSearch).toEqual({ tool: 'googleSearch', param: 'tools[0].googleSearch' });
    expect(decoded.droppedTools).toEqual(['codeExecution', 'urlContext']);
    expect(named(decoded.request)).toEqual(['warn tools[1].codeExecution', 'warn tools[2].urlContext']);
  });

  it.each([
    ['AUTO', undefined, 'auto', []],
    ['NONE', undefined, 'none', []],
    ['ANY', undefined, 'required', []],
    ['ANY', ['f'], { name: 'f' }, []],
    ['ANY', ['f', 'g'], 'required', ['warn toolConfig.functionCallingConfig.allowedFunctionNames']],
    ['VALIDATED', undefined, 'auto', ['warn toolConfig.functionCallingConfig.mode']],
  ] as const)('functionCallingConfig %s %j → %j', (mode, allowed, choice, warnings) => {
    const { request } = decode({
      contents: [user('x')],
      tools: [{ functionDeclarations: [{ name: 'f' }, { name: 'g' }] }],
      toolConfig: { functionCallingConfig: { mode, ...(allowed ? { allowedFunctionNames: allowed } : {}) } },
    });
    expect(request.toolChoice).toEqual(choice);
    expect(named(request)).toEqual(warnings);
  });
});

describe('generationConfig', () => {
  it('reads sampling, the cap, stops, seed and penalties into their canonical places', () => {
    const { request } = decode({
      contents: [user('x')],
      generationConfig: { temperature: 0.2, topP: 0.9, topK: 40, maxOutputTokens: 512, stopSequences: ['END'], seed: 7, presencePenalty: 0.5, frequencyPenalty: -0.5, candidateCount: 1 },
    });
    expect(request).toMatchObject({ temperature: 0.2, topP: 0.9, topK: 40, maxOutputTokens: 512, stop: ['END'], seed: 7, presencePenalty: 0.5, frequencyPenalty: -0.5 });
    expect(request.sameFormatOnly).toBeUndefined();
  });

  it.each([
    [{ responseMimeType: 'application/json', responseSchema: { type: 'OBJECT', properties: { a: { type: 'STRING' } } } }, { outputSchema: { name: 'response', schema: { type: 'object', properties: { a: { type: 'string' } } } } }],
    [{ responseMimeType: 'application/json', responseJsonSchema: { type: 'object', required: ['a'] } }, { outputSchema: { name: 'response', schema: { type: 'object', required: ['a'] } } }],
    [{ responseMimeType: 'application/json' }, { jsonObject: true }],
    [{ thinkingConfig: { thinkingBudget: 0 } }, { reasoningEffort: 'none', reasoningDisplay: 'omitted' }],
    [{ thinkingConfig: { thinkingBudget: -1, includeThoughts: true } }, { reasoningEffort: 'medium', reasoningDisplay: 'summarized' }],
    // Thinking on by a budget is on at the middle effort for an upstream that takes efforts, not budgets.
    [{ thinkingConfig: { thinkingBudget: 1024 } }, { reasoningBudget: 1024, reasoningEffort: 'medium' }],
    [{ thinkingConfig: { thinkingBudget: 8192, thinkingLevel: 'HIGH' } }, { reasoningBudget: 8192, reasoningEffort: 'high' }],
    [{ thinkingConfig: { thinkingLevel: 'low' } }, { reasoningEffort: 'low' }],
    [{ thinkingConfig: { thinkingLevel: 'HIGH', includeThoughts: true } }, { reasoningEffort: 'high', reasoningDisplay: 'summarized' }],
  ])('%j', (config, expected) => {
    expect(decode({ contents: [user('x')], generationConfig: config }).request).toMatchObject(expected);
  });

  it('names every setting with no counterpart off Gemini, and refuses a cached content there', () => {
    const { request } = decode({
      contents: [user('x')],
      generationConfig: { candidateCount: 2, responseModalities: ['TEXT', 'IMAGE'], responseLogprobs: true, mediaResolution: 'MEDIA_RESOLUTION_LOW' },
      safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
      cachedContent: 'cachedContents/abc',
      labels: { team: 'a' },
    });
    expect(named(request)).toEqual([
      'warn generationConfig.candidateCount',
      'warn generationConfig.responseModalities',
      'warn generationConfig.responseLogprobs',
      'warn generationConfig.mediaResolution',
      'warn safetySettings',
      'refuse cachedContent',
      'warn labels',
    ]);
    expect(request.forwardBody?.format).toBe('gemini');
  });
});

describe('countTokens', () => {
  it('counts contents, or a whole generateContentRequest with its system instruction and tools', () => {
    const counted = geminiCounter.decode({ contents: [user('hello')] }, context('countTokens'));
    expect(counted).toMatchObject({ model: 'svc.intelligent-pro', messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }] });
    const whole = geminiCounter.decode({ generateContentRequest: { model: 'models/svc.intelligent-pro', contents: [user('hi')], systemInstruction: { parts: [{ text: 'Be brief.' }] }, tools: [{ functionDeclarations: [{ name: 'f' }] }] } }, context('countTokens'));
    expect(whole).toMatchObject({ system: [{ type: 'text', text: 'Be brief.' }], tools: [{ name: 'f' }] });
    expect(geminiCounter.reply(42, counted)).toEqual({ totalTokens: 42 });
  });
});

/**
 * Nothing silently lost: every field the Google GenAI SDK's types give a request (GenerationConfig,
 * ThinkingConfig, Tool, FunctionDeclaration, ToolConfig, FunctionCallingConfig, Part), set to any
 * plain value, is decoded (the canonical request changes), kept and named for a Gemini upstream
 * (sameFormatOnly names it), or refused with a 400 naming it. A field the SDK adds later fails here
 * until the decoder says what becomes of it.
 */
describe('every field of the SDK types', () => {
  const sdkTypes = readFileSync(new URL('../../../node_modules/@google/genai/dist/genai.d.ts', import.meta.url), 'utf8');
  const fieldsOf = (name: string): string[] => {
    const body = new RegExp(`export declare (?:interface|class) ${name} \\{([\\s\\S]*?)\\n\\}`).exec(sdkTypes)![1]!;
    return [...body.matchAll(/^ {4}(\w+)\??:/gm)].map((match) => match[1]!);
  };
  const VALUES: unknown[] = [true, 1, 'x', {}, ['x'], { a: 1 }];
  /** Values that ask for what every upstream does anyway: one candidate. */
  const DEFAULTS: Record<string, unknown> = { candidateCount: 1 };
  const strip = (request: CanonicalRequest) => {
    const { forwardBody: _f, sameFormatOnly: _s, ...rest } = request;
    return JSON.stringify(rest);
  };

  const places: Array<[string, (field: string, value: unknown) => Record<string, unknown>]> = [
    ['GenerationConfig', (field, value) => ({ contents: [user('x')], generationConfig: { [field]: value } })],
    ['ThinkingConfig', (field, value) => ({ contents: [user('x')], generationConfig: { thinkingConfig: { [field]: value } } })],
    ['Tool', (field, value) => ({ contents: [user('x')], tools: [{ [field]: value }] })],
    ['FunctionDeclaration', (field, value) => ({ contents: [user('x')], tools: [{ functionDeclarations: [{ name: 'f', [field]: value }] }] })],
    ['ToolConfig', (field, value) => ({ contents: [user('x')], tools: [{ functionDeclarations: [{ name: 'f' }] }], toolConfig: { [field]: value } })],
    ['FunctionCallingConfig', (field, value) => ({ contents: [user('x')], tools: [{ functionDeclarations: [{ name: 'f' }] }], toolConfig: { functionCallingConfig: { [field]: value } } })],
    ['Part', (field, value) => ({ contents: [user('x'), { role: 'model', parts: [{ text: 'y', [field]: value }] }] })],
  ];

  it.each(places)('%s', (type, place) => {
    const unseen: string[] = [];
    for (const field of fieldsOf(type)) {
      const baseline = strip(decode(place('__none__', undefined)).request);
      for (const value of VALUES) {
        let seen: boolean;
        try {
          const { request } = decode(place(field, value));
          seen = strip(request) !== baseline || (request.sameFormatOnly ?? []).some((entry) => entry.param.includes(field));
        } catch (error) {
          seen = (thrownBy(() => {
            throw error;
          }).param ?? '').includes(field);
        }
        if (!seen && DEFAULTS[field] !== value) unseen.push(`${field}=${JSON.stringify(value)}`);
      }
    }
    expect(unseen.join(" ")).toBe("");
  });
});
