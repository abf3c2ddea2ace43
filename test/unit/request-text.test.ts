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
    const forwarded = JSON.stringify(request.forwardBody!.body);
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
        const { system, tools, messages, forwardBody } = request;
        const body = forwardBody!.body;
        rewriteRequestText(request, (text) => text);
        expect(request.system).toBe(system);
        expect(request.tools).toBe(tools);
        expect(request.messages).toBe(messages);
        expect(request.forwardBody!.body).toBe(body);
      }),
    );
  });

  it("keeps a client's __proto__ member a member", () => {
    const body = JSON.parse(`{"model":"svc.intelligent-basic","messages":[{"role":"user","content":"${MARK}"}],"metadata":{"__proto__":"${MARK}"}}`);
    const request = chatFormat.decode(body, CONTEXT).request;
    rewriteRequestText(request, (text) => text.replaceAll(MARK, 'DONE'));
    const metadata = request.forwardBody!.body.metadata as Record<string, unknown>;
    expect(Object.hasOwn(metadata, '__proto__')).toBe(true);
    expect(metadata['__proto__']).toBe('DONE');
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
  });
});

/**
 * Files and data: a file is read as the text it holds however it is given (a plain-text document,
 * a text file in base64 or percent-encoded in a data URL, bytes labelled binary that read as
 * text), and written back the same way; binary (an image, a PDF) is not text. A `data:` string
 * outside a file's field is text like any other, and JSON the client defines (a tool call's input)
 * is text whatever its members are named.
 */
describe('files, data URLs and data members', () => {
  const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex').toString('base64');
  const PDF = b64(`%PDF-1.4\n1 0 obj << /Title (${MARK}) >> endobj`);
  const text = `key ${MARK} here`;
  /** Each body holds the mark in `read` places a model reads, and in binary files it must not be read in. */
  const CASES: Array<{ name: string; format: Name; body: Record<string, unknown>; read: number }> = [
    {
      name: 'chat: a data:-prefixed message, text files in base64, percent-encoded and bare, a text image; a PNG and a PDF',
      format: 'chat',
      read: 6,
      body: {
        model: 'svc.intelligent-basic',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: `data: ${text}` },
              { type: 'file', file: { filename: 'notes.txt', file_data: `data:text/plain;base64,${b64(text)}` } },
              { type: 'file', file: { filename: 'conf.json', file_data: `data:application/json,${encodeURIComponent(`{"k":"${text}"}`)}` } },
              { type: 'file', file: { filename: 'notes.txt', file_data: b64(text) } },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${b64(text)}` } },
              { type: 'file', file: { filename: 'paper.pdf', file_data: `data:application/pdf;base64,${PDF}` } },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
            ],
          },
          { role: 'user', content: `data:${text}` },
        ],
      },
    },
    {
      name: 'responses: text files in input_file, a text image; a PDF',
      format: 'responses',
      read: 3,
      body: {
        model: 'svc.intelligent-basic',
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_file', filename: 'notes.md', file_data: `data:text/markdown;charset=utf-8;base64,${b64(text)}` },
              { type: 'input_file', filename: 'run.sh', file_data: `data:application/x-sh,${encodeURIComponent(text)}` },
              { type: 'input_image', image_url: `data:image/png;base64,${b64(text)}` },
              { type: 'input_file', filename: 'paper.pdf', file_data: `data:application/pdf;base64,${PDF}` },
            ],
          },
        ],
      },
    },
    {
      name: 'messages: plain-text, base64 text and JSON documents, a tool input and a tool example with data, signature and type members; a PDF and a PNG',
      format: 'messages',
      read: 8,
      body: {
        model: 'svc.intelligent-basic',
        max_tokens: 100,
        tools: [{ name: 'save', description: 'Saves.', input_schema: { type: 'object', properties: { data: { type: 'string' } } }, input_examples: [{ data: text, signature: text }] }],
        messages: [
          {
            role: 'user',
            content: [
              { type: 'document', source: { type: 'text', media_type: 'text/plain', data: text } },
              { type: 'document', source: { type: 'base64', media_type: 'text/plain', data: b64(text) } },
              { type: 'document', source: { type: 'base64', media_type: 'application/json', data: b64(`{"k":"${text}"}`) } },
              { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
            ],
          },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'save', input: { data: text, signature: text, item: { type: 'thinking', thinking: text } } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'saved' }] },
        ],
      },
    },
  ];

  /** The body's text with every base64 run and percent-encoding read out, as an upstream would decode it. */
  const decodedText = (value: unknown): string[] => {
    const json = JSON.stringify(value);
    const runs = [...json.matchAll(/[A-Za-z0-9+/]{12,}={0,2}/g)].map(([run]) => Buffer.from(run, 'base64').toString('utf8'));
    const escapes = [...json.matchAll(/(?:%[0-9A-F]{2}|[\w.~-])+/gi)].map(([run]) => Buffer.from(run.replace(/%([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8'));
    return [json, ...runs, ...escapes];
  };

  it.each(CASES)('reads $name', ({ format, body, read }) => {
    const request = FORMATS[format].decode(structuredClone(body), CONTEXT).request;
    const seen: string[] = [];
    forEachRequestText(request, (piece) => {
      if (piece.includes(MARK)) seen.push(piece);
    });
    expect(seen).toHaveLength(read);
    // The canonical request is read the same way (a Messages body not kept for forwarding is read so).
    const canonical: string[] = [];
    forEachRequestText({ ...request, forwardBody: undefined }, (piece) => {
      if (piece.includes(MARK)) canonical.push(piece);
    });
    expect(canonical.length).toBeGreaterThanOrEqual(format === 'messages' ? 4 : read);
  });

  it.each(CASES)('rewrites $name in both forms, each file written back as it came, binary left alone', ({ body, format }) => {
    const original = structuredClone(body);
    const request = FORMATS[format].decode(structuredClone(body), CONTEXT).request;
    rewriteRequestText(request, (piece) => piece.replaceAll(MARK, 'DONE'));
    const forwarded = request.forwardBody!.body;
    const canonical = { system: request.system, messages: request.messages };
    for (const form of [forwarded, canonical]) {
      const readable = decodedText(form);
      expect(readable.join('\n')).toContain('DONE');
      // What still holds the mark is binary: a PDF's bytes.
      expect(readable.filter((piece) => piece.includes(MARK)).map((piece) => piece.slice(0, 5))).toEqual(['%PDF-']);
    }
    // Each file is still of its kind and encoding: a data URL stays one, with its own header.
    const urls = JSON.stringify(forwarded).match(/data:[a-z/+.-]+[^,"]*,/g) ?? [];
    expect(urls).toEqual(JSON.stringify(original).match(/data:[a-z/+.-]+[^,"]*,/g) ?? []);
    if (JSON.stringify(original).includes(PNG)) expect(JSON.stringify(forwarded)).toContain(PNG);
  });

  it('returns the same objects when nothing changes, binary files and all', () => {
    for (const { format, body } of CASES) {
      const request = FORMATS[format].decode(structuredClone(body), CONTEXT).request;
      const { messages, forwardBody } = request;
      const forwarded = forwardBody!.body;
      rewriteRequestText(request, (piece) => piece);
      expect(request.messages).toBe(messages);
      expect(request.forwardBody!.body).toBe(forwarded);
    }
  });

  it("reads a document's content blocks, and a Gemini body's inline text data, and not its images", () => {
    const request = decode('messages');
    const seen: string[] = [];
    const visit = (piece: string) => void (piece.includes(MARK) && seen.push(piece));
    forEachRequestText({ ...request, forwardBody: { format: 'messages', body: { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'content', content: [{ type: 'text', text }] } }] }] } } }, visit);
    expect(seen).toEqual([text]);
    seen.length = 0;
    const gemini = { contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'text/csv', data: b64(text) } }, { inlineData: { mimeType: 'image/png', data: PNG } }] }] };
    forEachRequestText({ ...request, forwardBody: { format: 'messages', body: gemini } }, visit);
    expect(seen).toEqual([text]);
  });
});
