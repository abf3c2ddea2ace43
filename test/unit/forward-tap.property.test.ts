import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anthropicForwardTap } from '../../src/backends/anthropic/forward-tap.js';
import { chatForwardTap } from '../../src/backends/openai-chat/forward-tap.js';
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
