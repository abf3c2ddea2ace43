import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readChatChunk, type ChatChunk } from '../../src/backends/openai-chat/api.js';
import { readCommonChatChunk } from '../../src/backends/openai-chat/common-chunks.js';

/**
 * A frame read from its template must be what JSON.parse (and the full reader) gives, on every
 * field the decoder reads — or not be read from the template at all. Checked over generated frames
 * of the common shapes, over the same frames with one character inserted, removed or replaced, and
 * over every frame recorded in test/fixtures/wire.
 *
 * (Anthropic's delta events are small enough that JSON.parse read them as fast as a template did,
 * so they have none.)
 */

const WIRE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'wire');

/** What decode-stream.ts reads of a Chat chunk. */
function chatView(chunk: ChatChunk) {
  const choice = chunk.choices?.[0];
  const delta = choice?.delta;
  return {
    id: chunk.id,
    error: chunk.error,
    usage: chunk.usage,
    choices: chunk.choices === undefined || chunk.choices === null ? chunk.choices : chunk.choices.length,
    finish_reason: choice?.finish_reason,
    delta:
      delta &&
      ({
        content: delta.content,
        refusal: delta.refusal,
        reasoning_content: delta.reasoning_content,
        reasoning: delta.reasoning,
        tool_calls: delta.tool_calls?.map((call) => ({ index: call.index, id: call.id, name: call.function?.name, arguments: call.function?.arguments })),
      } as const),
  };
}

/** Either JSON.parse: the full reader's answer (or its refusal), as the decoder would get it. */
function fullChat(data: string): { ok: true; view: ReturnType<typeof chatView> } | { ok: false } {
  try {
    return { ok: true, view: chatView(readChatChunk('b', JSON.parse(data))) };
  } catch {
    return { ok: false };
  }
}

function expectChatAgrees(data: string): boolean {
  const fast = readCommonChatChunk(data);
  if (fast === undefined) return false;
  const full = fullChat(data);
  expect(full.ok, data).toBe(true);
  if (full.ok) expect(chatView(fast), data).toEqual(full.view);
  return true;
}

// Any text at all: quotes, backslashes, control characters, lone surrogates.
const anyText = fc.string({ unit: 'binary', maxLength: 40 });
// Including the keys the decoder reads: JSON.parse keeps the last of a duplicate, which a template must not misread.
const plainKey = fc.oneof(fc.stringMatching(/^[a-z_]{1,12}$/), fc.constantFrom('id', 'usage', 'choices', 'error', 'object'));
const extraValue = fc.oneof(anyText, fc.constant(null), fc.nat({ max: 1e9 }), fc.boolean());

const chatDelta = fc.oneof(
  anyText.map((content) => ({ content })),
  fc.record({ index: fc.nat({ max: 20 }), text: anyText }).map(({ index, text }) => ({ tool_calls: [{ index, function: { arguments: text } }] })),
  // Shapes the template does not cover, which must fall back.
  fc.record({ role: fc.constant('assistant'), content: anyText }),
  anyText.map((refusal) => ({ refusal })),
  fc.constant({}),
);

const chatFrame = fc
  .record({
    id: anyText,
    model: anyText,
    created: fc.nat({ max: 2e9 }),
    before: fc.dictionary(plainKey, extraValue, { maxKeys: 3 }),
    delta: chatDelta,
    finish: fc.oneof(fc.constant(null), fc.constant('stop')),
    usage: fc.oneof(fc.constant(undefined), fc.constant(null), fc.constant({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 })),
    after: fc.dictionary(plainKey, extraValue, { maxKeys: 2 }),
  })
  .map(({ id, model, created, before, delta, finish, usage, after }) =>
    JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      ...before,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(usage !== undefined ? { usage } : {}),
      ...after,
    }),
  );

/** One character inserted, removed or replaced, anywhere. */
const mutated = (frames: fc.Arbitrary<string>) =>
  fc.tuple(frames, fc.nat(), fc.constantFrom('insert', 'remove', 'replace'), fc.constantFrom('"', '\\', '}', ']', ',', ' ', '0', 'a', '\n', '\u0001', 'é')).map(([text, at, edit, char]) => {
    const i = at % (text.length + 1);
    if (edit === 'insert') return text.slice(0, i) + char + text.slice(i);
    if (edit === 'remove') return text.slice(0, i) + text.slice(i + 1);
    return text.slice(0, i) + char + text.slice(i + 1);
  });

describe('Chat chunk templates', () => {
  it('read a common delta chunk exactly as the full reader does, or leave it to it', () => {
    fc.assert(fc.property(chatFrame, (data) => void expectChatAgrees(data)), { numRuns: 3000 });
  });

  it('still agree, or step aside, when one character of a chunk is changed', () => {
    fc.assert(fc.property(mutated(chatFrame), (data) => void expectChatAgrees(data)), { numRuns: 5000 });
  });

  it('read the usual content and tool-argument chunks from their template', () => {
    fc.assert(
      fc.property(anyText, fc.nat({ max: 9 }), (text, index) => {
        const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', service_tier: 'default', system_fingerprint: 'fp_1' };
        const content = JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }], usage: null });
        const args = JSON.stringify({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: text } }] }, logprobs: null, finish_reason: null }], obfuscation: 'x' });
        expect(expectChatAgrees(content)).toBe(true);
        expect(expectChatAgrees(args)).toBe(true);
      }),
    );
  });
});

describe('recorded frames', () => {
  const frames = (dir: string) =>
    fs
      .readdirSync(path.join(WIRE, dir))
      .filter((file) => file.endsWith('.sse'))
      .flatMap((file) => fs.readFileSync(path.join(WIRE, dir, file), 'utf8').split('\n'))
      .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
      .map((line) => line.slice('data: '.length));

  it('Chat: every recorded chunk agrees, and the recorded text deltas come from the template', () => {
    const recorded = frames('openai-chat');
    expect(recorded.length).toBeGreaterThan(10);
    const read = recorded.filter(expectChatAgrees);
    expect(read.length).toBeGreaterThan(0);
  });
});
