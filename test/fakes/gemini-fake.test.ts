import { afterEach, describe, expect, it } from 'vitest';
import { parseSse } from '../helpers/sse-frames.js';
import { startGeminiUpstream, type GeminiTurn, type GeminiUpstream } from './gemini-upstream.js';
import type { Script } from './scripted-turn.js';

const KEY = 'gemini-fake-key-0123';
const started: GeminiUpstream[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((fake) => fake.close()));
});

async function fake(script: Script, options: { callIds?: boolean } = {}) {
  const upstream = await startGeminiUpstream(script, { apiKey: KEY, ...options });
  started.push(upstream);
  const post = (method: string, body: unknown, headers: Record<string, string> = { 'x-goog-api-key': KEY }) =>
    fetch(`${upstream.url}/models/gemini-fake:${method}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { upstream, post };
}

const ASK = { contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }] };

describe('Gemini fake', () => {
  it('answers generateContent with parts, a signature on the last part, finishReason and usage', async () => {
    const { upstream, post } = await fake([{ text: 'Sunny.', usage: { input: 12, output: 7, cached: 4 }, thoughtsTokens: 3 } as GeminiTurn]);
    const response = await post('generateContent', ASK);
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    expect(body.candidates[0]).toEqual({ content: { role: 'model', parts: [{ text: 'Sunny.', thoughtSignature: upstream.signatures[0] }] }, finishReason: 'STOP', index: 0 });
    expect(body.usageMetadata).toMatchObject({ promptTokenCount: 12, candidatesTokenCount: 4, thoughtsTokenCount: 3, cachedContentTokenCount: 4, totalTokenCount: 19 });
    expect(upstream.requests[0]!.body).toEqual(ASK);
  });

  it('streams with alt=sse: CRLF-framed chunks, no [DONE], the last with the finishReason', async () => {
    const { post } = await fake([{ toolCalls: [{ name: 'a', arguments: { x: 1 } }, { name: 'b', arguments: {} }] }]);
    const response = await post('streamGenerateContent?alt=sse', ASK);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const text = await response.text();
    expect(text).toContain('\r\n\r\n');
    expect(text).not.toContain('[DONE]');
    const chunks = parseSse(text.replace(/\r\n/g, '\n')).map((frame) => JSON.parse(frame.data));
    const parts = chunks.flatMap((chunk) => chunk.candidates[0].content?.parts ?? []);
    expect(parts.filter((part: any) => part.functionCall).map((part: any) => Boolean(part.thoughtSignature))).toEqual([true, false]);
    expect(chunks.at(-1).candidates[0].finishReason).toBe('STOP');
    expect(chunks.slice(0, -1).every((chunk) => chunk.candidates[0].finishReason === undefined)).toBe(true);
  });

  it.each([
    ['a missing key', {}, 403, 'PERMISSION_DENIED'],
    ['a wrong key', { 'x-goog-api-key': 'nope' }, 400, 'INVALID_ARGUMENT'],
  ])('refuses %s the way Gemini does', async (_name, headers, status, name) => {
    const { post } = await fake([{ text: 'x' }]);
    const response = await post('generateContent', ASK, headers);
    expect(response.status).toBe(status);
    expect(((await response.json()) as any).error).toMatchObject({ code: status, status: name });
  });

  it.each([
    ['an unknown top-level field', { ...ASK, messages: [] }, 'Unknown name "messages"'],
    ['a bad role', { contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }, 'valid role'],
    ['an empty parts list', { contents: [{ role: 'user', parts: [] }] }, 'must not be empty'],
    ['a part with two data fields', { contents: [{ role: 'user', parts: [{ text: 'x', inlineData: { mimeType: 'image/png', data: '' } }] }] }, "oneof field 'data'"],
    [
      'additionalProperties in a tool schema',
      { ...ASK, tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false } }] }] },
      'Unknown name "additionalProperties"',
    ],
    ['$ref in a tool schema', { ...ASK, tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'object', properties: { a: { $ref: '#/$defs/A' } } } }] }] }, 'Unknown name "$ref"'],
    ['a non-string enum', { ...ASK, generationConfig: { responseSchema: { type: 'integer', enum: [1, 2] } } }, 'enum values must be strings'],
    ['an unknown generationConfig field', { ...ASK, generationConfig: { max_tokens: 5 } }, 'Unknown name "max_tokens"'],
    [
      'a current-turn call replayed without its signature',
      { contents: [ASK.contents[0], { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] }, { role: 'user', parts: [{ functionResponse: { name: 'f', response: { output: 'x' } } }] }] },
      'missing a thought_signature',
    ],
    [
      'a signature it never issued',
      { contents: [ASK.contents[0], { role: 'model', parts: [{ functionCall: { name: 'f', args: {} }, thoughtSignature: 'Zm9yZ2Vk' }] }, { role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }] }] },
      'Corrupted thought signature',
    ],
  ])('refuses %s with a 400 in Gemini’s words', async (_name, body, said) => {
    const { upstream, post } = await fake([{ text: 'x' }]);
    const response = await post('generateContent', body);
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error.message).toContain(said);
    expect(upstream.requests).toHaveLength(1);
  });

  it('accepts an earlier turn’s unsigned call and Google’s documented stand-in', async () => {
    const { post } = await fake([{ text: 'x' }]);
    const call = (signature?: string) => ({ role: 'model', parts: [{ functionCall: { name: 'f', args: {} }, ...(signature ? { thoughtSignature: signature } : {}) }] });
    const result = { role: 'user', parts: [{ functionResponse: { name: 'f', response: { output: 'ok' } } }] };
    const earlier = await post('generateContent', { contents: [ASK.contents[0], call(), result, { role: 'user', parts: [{ text: 'again' }] }] });
    expect(earlier.status).toBe(200);
    const standIn = await post('generateContent', { contents: [ASK.contents[0], call('skip_thought_signature_validator'), result] });
    expect(standIn.status).toBe(200);
  });

  it('gives calls Gemini’s own ids when asked to', async () => {
    const { post } = await fake([{ toolCalls: [{ id: 'fc-7', name: 'f', arguments: {} }] }], { callIds: true });
    const body = (await (await post('generateContent', ASK)).json()) as any;
    expect(body.candidates[0].content.parts[0].functionCall).toEqual({ name: 'f', args: {}, id: 'fc-7' });
  });
});
