import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeAnthropicStream } from '../../src/backends/anthropic/decode-stream.js';
import { anthropicForwardTap } from '../../src/backends/anthropic/forward-tap.js';
import type { SseFrame } from '../../src/backends/http/sse-decoder.js';
import { decodeChatStream } from '../../src/backends/openai-chat/decode-stream.js';
import { chatForwardTap } from '../../src/backends/openai-chat/forward-tap.js';
import { decodeResponsesStream } from '../../src/backends/openai-responses/decode-stream.js';
import { geminiForwardTap } from '../../src/backends/gemini/forward-tap.js';
import { responsesForwardTap } from '../../src/backends/openai-responses/forward-tap.js';
import type { CanonicalRequest } from '../../src/core/request.js';

/**
 * The same-format taps read frames without parsing most of them. Whatever the chunk (text that
 * looks like keys inside strings, escapes, any field order, usage or not), what they read must be
 * what a decoder reading JSON.parse's object finds: output characters, the finish, the usage.
 */

const tricky = fc.string({ unit: fc.constantFrom('a', 'é', '"', '\\', '{', '}', ':', ',', ' ', '"content":"x"', '"usage":{', '"finish_reason":"stop"', '\n'), maxLength: 10 });
const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
const request = {} as CanonicalRequest;

const chatChunk = fc.record({
  head: tricky,
  delta: fc.record({ role: maybe(fc.constant('assistant')), content: maybe(fc.option(tricky, { nil: null })), reasoning_content: maybe(tricky), refusal: maybe(fc.option(tricky, { nil: null })), tool_calls: maybe(fc.array(fc.record({ index: fc.nat(3), id: maybe(tricky), function: fc.record({ name: maybe(tricky), arguments: tricky }) }), { maxLength: 2 })) }),
  finish: fc.option(fc.constantFrom('stop', 'length', 'tool_calls'), { nil: null }),
  usage: fc.option(fc.record({ prompt_tokens: fc.nat(999), completion_tokens: fc.nat(999), total_tokens: fc.nat(1999) }), { nil: null }),
  noChoices: fc.boolean(),
  headFirst: fc.boolean(),
});

/** What a reader of the parsed chunk counts as output: every string in a choice's delta that is text, reasoning or tool arguments. */
function chatOutputChars(delta: Record<string, any>): number {
  const length = (value: unknown): number => (typeof value === 'string' ? JSON.stringify(value).length - 2 : 0);
  let chars = length(delta.content) + length(delta.reasoning_content) + length(delta.refusal);
  for (const call of delta.tool_calls ?? []) chars += length(call.function.arguments);
  return chars;
}

describe('same-format taps read what JSON.parse reads', () => {
  it('Chat chunks: output characters, finish and usage', () => {
    fc.assert(
      fc.property(chatChunk, ({ head, delta, finish, usage, noChoices, headFirst }) => {
        const choices = noChoices ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finish }];
        const headFields = { id: `chatcmpl-${head}`, object: 'chat.completion.chunk', model: head, system_fingerprint: head };
        const chunk = headFirst ? { ...headFields, choices, usage } : { choices, usage, ...headFields };
        const note = chatForwardTap.stream('b', request).read({ data: JSON.stringify(chunk) });
        if (note === 'error') throw new Error('a chunk without error read as an error');
        expect(note.outputChars).toBe(noChoices ? 0 : chatOutputChars(delta));
        expect(note.finish ?? false).toBe(!noChoices && finish !== null);
        expect(note.usage?.inputTokens).toBe(usage?.prompt_tokens);
        expect(note.usage?.outputTokens).toBe(usage?.completion_tokens);
      }),
      { numRuns: 500 },
    );
  });

  it('Anthropic content_block_delta: the text, thinking or JSON it adds', () => {
    const delta = fc.oneof(
      tricky.map((text) => ({ type: 'text_delta', text })),
      tricky.map((thinking) => ({ type: 'thinking_delta', thinking })),
      tricky.map((partial_json) => ({ type: 'input_json_delta', partial_json })),
      tricky.map((signature) => ({ type: 'signature_delta', signature })),
    );
    fc.assert(
      fc.property(delta, fc.nat(9), (item, index) => {
        const note = anthropicForwardTap.stream('b', request).read({ event: 'content_block_delta', data: JSON.stringify({ type: 'content_block_delta', index, delta: item }) });
        if (note === 'error') throw new Error('a delta read as an error');
        const text = 'text' in item ? item.text : 'thinking' in item ? item.thinking : 'partial_json' in item ? item.partial_json : undefined;
        expect(note.outputChars).toBe(text === undefined ? 0 : JSON.stringify(text).length - 2);
      }),
      { numRuns: 300 },
    );
  });
});

describe('the Gemini tap', () => {
  const part = fc.oneof(
    fc.record({ text: tricky, thought: maybe(fc.boolean()), thoughtSignature: maybe(tricky) }),
    fc.record({ functionCall: fc.record({ name: tricky.filter((name) => name !== ''), args: fc.dictionary(fc.oneof(fc.constantFrom('text', 'finishReason', 'error'), tricky), tricky, { maxKeys: 3 }) }) }),
  );
  const chunk = fc.record({
    parts: fc.array(part, { maxLength: 3 }),
    finishReason: maybe(fc.constantFrom('STOP', 'MAX_TOKENS', 'SAFETY')),
    usage: maybe(fc.record({ promptTokenCount: fc.nat(999), candidatesTokenCount: fc.nat(999), thoughtsTokenCount: maybe(fc.nat(99)) })),
    blocked: fc.boolean(),
    modelFirst: fc.boolean(),
  });

  it('reads the output characters of the parts, the end at a finishReason or a blocked prompt, and the usage there', () => {
    fc.assert(
      fc.property(chunk, ({ parts, finishReason, usage, blocked, modelFirst }) => {
        const body = {
          candidates: blocked ? undefined : [{ content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}), index: 0 }],
          ...(blocked ? { promptFeedback: { blockReason: 'SAFETY' } } : {}),
          ...(usage ? { usageMetadata: usage } : {}),
        };
        const chunkJson = modelFirst ? { modelVersion: 'm', responseId: 'r', ...body } : { ...body, modelVersion: 'm', responseId: 'r' };
        const note = geminiForwardTap.stream('b', request).read({ data: JSON.stringify(chunkJson) });
        if (note === 'error') throw new Error('a chunk without error read as an error');
        const text = blocked ? 0 : parts.reduce((sum, entry) => sum + ('text' in entry ? JSON.stringify(entry.text).length - 2 : 0), 0);
        expect(note.outputChars).toBe(text);
        const ends = blocked || finishReason !== undefined;
        expect(note.end ?? false).toBe(ends);
        expect(note.usage?.inputTokens).toBe(ends && usage ? usage.promptTokenCount : undefined);
        expect(note.usage?.outputTokens).toBe(ends && usage ? usage.candidatesTokenCount + (usage.thoughtsTokenCount ?? 0) : undefined);
      }),
      { numRuns: 400 },
    );
  });

  it("reads a chunk's own error, and only its own, as the upstream's error", () => {
    const tap = geminiForwardTap.stream('b', request);
    expect(tap.read({ data: JSON.stringify({ error: { code: 429, message: 'slow down', status: 'RESOURCE_EXHAUSTED' } }) })).toBe('error');
    expect(tap.read({ data: JSON.stringify({ candidates: [{ content: { parts: [{ functionCall: { name: 'f', args: { error: 'x' } } }] } }] }) })).toEqual({ outputChars: 0 });
    expect(tap.atEnd()).toBeInstanceOf(Error);
  });
});

describe('an event named only by its type', () => {
  /** JSON text of `value` with some of its keys and string values written with \u escapes, as JSON allows. */
  const escapedSome = (value: unknown, escape: boolean): string => {
    const text = JSON.stringify(value);
    return escape ? text.replaceAll('"type":', '"\\u0074ype":').replaceAll('"usage":', '"us\\u0061ge":').replaceAll('"response.completed"', '"response\\u002ecompleted"') : text;
  };

  it('Responses: response.completed ends the stream with its usage, however its keys are written', () => {
    fc.assert(
      fc.property(fc.nat(999), fc.nat(999), fc.boolean(), (input, output, escape) => {
        const tap = responsesForwardTap.stream('b', request);
        const usage = { input_tokens: input, output_tokens: output, total_tokens: input + output };
        const note = tap.read({ data: escapedSome({ type: 'response.completed', sequence_number: 9, response: { id: 'resp_1', object: 'response', status: 'completed', output: [], usage } }, escape) });
        if (note === 'error') throw new Error('a completed response read as an error');
        expect(note.end).toBe(true);
        expect(note.usage?.inputTokens).toBe(input);
        expect(note.usage?.outputTokens).toBe(output);
        expect(tap.atEnd()).toBeUndefined();
      }),
      { numRuns: 100 },
    );
  });

  it('Anthropic without event lines: message_delta carries usage, message_stop ends, however the type is written', () => {
    fc.assert(
      fc.property(fc.nat(999), fc.boolean(), (output, escape) => {
        const tap = anthropicForwardTap.stream('b', request);
        const delta = tap.read({ data: escapedSome({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: output } }, escape) });
        if (delta === 'error') throw new Error('message_delta read as an error');
        expect(delta.usage?.outputTokens).toBe(output);
        const stop = tap.read({ data: escapedSome({ type: 'message_stop' }, escape) });
        expect(stop).toMatchObject({ end: true });
        expect(tap.atEnd()).toBeUndefined();
      }),
      { numRuns: 100 },
    );
  });
});

describe('a frame that is no event fails the forwarded stream as it fails the translated one', () => {
  const WIRE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'wire');
  const conversation: CanonicalRequest = { model: 'm', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [] };
  async function* batch(frame: SseFrame): AsyncGenerator<SseFrame[]> {
    yield [frame];
  }
  /** Each upstream format: its tap, its translated decoder, its recorded frames, and whether every event must carry a string `type`. */
  const FORMATS = [
    { name: 'openai-chat', tap: chatForwardTap, decode: (frame: SseFrame) => decodeChatStream('b', batch(frame), conversation), typed: false },
    { name: 'anthropic', tap: anthropicForwardTap, decode: (frame: SseFrame) => decodeAnthropicStream('b', batch(frame)), typed: true },
    { name: 'openai-responses', tap: responsesForwardTap, decode: (frame: SseFrame) => decodeResponsesStream('b', batch(frame)), typed: true },
  ] as const;

  /** The recorded frames of a format, with their `event:` lines. */
  const recorded = (dir: string): SseFrame[] =>
    fs
      .readdirSync(path.join(WIRE, dir))
      .filter((file) => file.endsWith('.sse'))
      .flatMap((file) => fs.readFileSync(path.join(WIRE, dir, file), 'utf8').split('\n\n'))
      .map((block) => {
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        return data === undefined || data === '[DONE]' ? undefined : { ...(event !== undefined ? { event } : {}), data };
      })
      .filter((frame): frame is SseFrame => frame !== undefined);

  /** Pieces that break JSON, or its grammar, where they land. */
  const breaking = fc.constantFrom(',', ',}', '{', '}', ']', '"', ':', '\\', '\\x', 'tru', '01', '\t', ' ', '"type":5,', '"type":null,', '"type":"x",');
  /** A recorded frame, with a piece inserted, removed or replaced; without its type; or replaced by another JSON value. */
  const frameOf = (frames: SseFrame[]) =>
    fc.oneof(
      fc.tuple(fc.constantFrom(...frames), fc.nat(), fc.nat(3), fc.string({ unit: breaking, maxLength: 2 })).map(([frame, at, remove, insert]) => {
        const where = at % (frame.data.length + 1);
        return { ...frame, data: frame.data.slice(0, where) + insert + frame.data.slice(where + remove) };
      }),
      fc.constantFrom(...frames).map((frame) => ({ ...frame, data: frame.data.replace(/^\{"type":"[^"]*",?/, '{') })),
      fc.tuple(fc.constantFrom(...frames), fc.jsonValue({ maxDepth: 2 })).map(([frame, value]) => ({ ...frame, data: JSON.stringify(value) ?? 'null' })),
    );

  /** What the translated decoder fails this frame with, when it fails at it (not at the stream's end, which one frame always is). */
  async function translatedError(decode: (frame: SseFrame) => AsyncIterable<unknown>, frame: SseFrame): Promise<string | undefined> {
    try {
      for await (const _ of decode(frame));
    } catch (error) {
      return (error as Error).message;
    }
    return undefined;
  }

  for (const { name, tap, decode, typed } of FORMATS) {
    it(`${name}: a frame that is not a JSON object${typed ? ', or has no string type,' : ''} fails with the decoder's own error; a frame that fails, fails as the decoder fails it`, async () => {
      const frames = recorded(name);
      expect(frames.length).toBeGreaterThan(5);
      await fc.assert(
        fc.asyncProperty(frameOf(frames), async (frame) => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(frame.data);
          } catch {
            parsed = undefined;
          }
          const isObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
          const isEvent = isObject && (!typed || typeof (parsed as { type?: unknown }).type === 'string');
          let tapError: string | undefined;
          let note: unknown;
          try {
            note = tap.stream('b', conversation).read(frame);
          } catch (error) {
            tapError = (error as Error).message;
          }
          // No event: the tap fails the stream itself, or hands it to the decoder as the error it is (an error in another shape).
          if (!isEvent) expect(tapError !== undefined || note === 'error', frame.data).toBe(true);
          if (tapError !== undefined) expect(tapError, frame.data).toBe(await translatedError(decode, frame));
          if (note === 'error') expect(await translatedError(decode, frame), frame.data).toBeDefined();
        }),
        { numRuns: 1_500 },
      );
    });
  }
});
