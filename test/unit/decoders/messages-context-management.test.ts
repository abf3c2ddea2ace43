import { describe, expect, it } from 'vitest';
import { CLEARED_TOOL_INPUT, CLEARED_TOOL_RESULT } from '../../../src/core/context-edits.js';
import { estimateRequestTokens } from '../../../src/core/estimate-tokens.js';
import type { Message } from '../../../src/core/request.js';
import { translatableOrRefuse } from '../../../src/core/same-format-only.js';
import { decodeMessagesRequest } from '../../../src/formats/messages/decode-request.js';
import { atLeast, expected, expectInvalid, required, thrownBy, type InvalidCase } from './support.js';

/**
 * Anthropic's context editing, applied by the router to the canonical request
 * (src/formats/messages/context-management.ts, src/core/context-edits.ts).
 */

const THINKING = { type: 'enabled', budget_tokens: 2048 };
const BIG = 'x'.repeat(4000); // 1,000 estimated tokens

/** A conversation of `n` tool uses (Bash and Memory alternating), each with its result, then a user question. */
function conversation(n: number, { thinking = false, resultText = (i: number) => `${BIG}${i}` } = {}): unknown[] {
  const messages: unknown[] = [{ role: 'user', content: 'start' }];
  for (let i = 0; i < n; i++) {
    const name = i % 2 ? 'Memory' : 'Bash';
    messages.push({
      role: 'assistant',
      content: [...(thinking ? [{ type: 'thinking', thinking: `thought ${i}`, signature: `sig${i}` }] : []), { type: 'tool_use', id: `toolu_${i}`, name, input: { command: `cmd ${i}` } }],
    });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: resultText(i) }] });
  }
  messages.push({ role: 'user', content: 'and now?' });
  return messages;
}

const decode = (messages: unknown[], fields: Record<string, unknown>) => decodeMessagesRequest({ model: 'claude-x', max_tokens: 100, messages, ...fields });
const edits = (...list: unknown[]) => ({ context_management: { edits: list } });

/** Each tool result's text, by call id, and each call's arguments. */
function toolState(messages: Message[]) {
  const results: Record<string, string> = {};
  const inputs: Record<string, string> = {};
  for (const message of messages) {
    for (const part of message.content) {
      if (part.type === 'tool-result') results[part.callId] = part.content.map((inner) => (inner.type === 'text' ? inner.text : '[image]')).join('');
      if (part.type === 'tool-call') inputs[part.id] = part.arguments;
    }
  }
  return { results, inputs };
}

describe('clear_tool_uses_20250919', () => {
  it('clears nothing below the trigger, and says so with an empty applied_edits', () => {
    const { request, options } = decode(conversation(5), edits({ type: 'clear_tool_uses_20250919' }));
    expect(Object.values(toolState(request.messages).results).every((text) => text !== CLEARED_TOOL_RESULT)).toBe(true);
    expect(options.contextManagement).toEqual([]);
  });

  it('past the input-token trigger clears the oldest results with the placeholder, keeping the last N, and counts what it freed', () => {
    const messages = conversation(6);
    const before = estimateRequestTokens(decode(messages, {}).request);
    const { request, options } = decode(messages, edits({ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 5000 }, keep: { type: 'tool_uses', value: 2 } }));
    const { results, inputs } = toolState(request.messages);
    expect(Object.entries(results).filter(([, text]) => text === CLEARED_TOOL_RESULT).map(([id]) => id)).toEqual(['toolu_0', 'toolu_1', 'toolu_2', 'toolu_3']);
    expect(results.toolu_5).toBe(`${BIG}5`);
    // Inputs stay unless asked.
    expect(inputs.toolu_0).toBe('{"command":"cmd 0"}');
    const after = estimateRequestTokens(request);
    expect(options.contextManagement).toEqual([{ type: 'clear-tool-uses', clearedToolUses: 4, clearedInputTokens: before - after }]);
    expect(before - after).toBeGreaterThan(3900);
  });

  it('triggers on the number of tool uses, never clears excluded tools, and clears inputs for all or for named tools', () => {
    const all = decode(conversation(6), edits({ type: 'clear_tool_uses_20250919', trigger: { type: 'tool_uses', value: 5 }, keep: { type: 'tool_uses', value: 1 }, exclude_tools: ['Memory'], clear_tool_inputs: true }));
    const state = toolState(all.request.messages);
    expect(Object.entries(state.results).filter(([, text]) => text === CLEARED_TOOL_RESULT).map(([id]) => id)).toEqual(['toolu_0', 'toolu_2', 'toolu_4']);
    expect(state.inputs).toMatchObject({ toolu_0: CLEARED_TOOL_INPUT, toolu_1: '{"command":"cmd 1"}', toolu_4: CLEARED_TOOL_INPUT, toolu_5: '{"command":"cmd 5"}' });
    expect(all.options.contextManagement).toMatchObject([{ type: 'clear-tool-uses', clearedToolUses: 3 }]);

    const named = decode(conversation(6), edits({ type: 'clear_tool_uses_20250919', trigger: { type: 'tool_uses', value: 5 }, keep: { type: 'tool_uses', value: 0 }, clear_tool_inputs: ['Memory'] }));
    expect(toolState(named.request.messages).inputs).toMatchObject({ toolu_0: '{"command":"cmd 0"}', toolu_1: CLEARED_TOOL_INPUT, toolu_5: CLEARED_TOOL_INPUT });

    const under = decode(conversation(5), edits({ type: 'clear_tool_uses_20250919', trigger: { type: 'tool_uses', value: 5 }, keep: { type: 'tool_uses', value: 0 } }));
    expect(under.options.contextManagement).toEqual([]);
  });

  it('clears nothing when it cannot free clear_at_least tokens, and all it may when it can', () => {
    const small = conversation(6, { resultText: (i) => `small result ${i}` });
    const edit = (value: number) => edits({ type: 'clear_tool_uses_20250919', trigger: { type: 'tool_uses', value: 1 }, keep: { type: 'tool_uses', value: 1 }, clear_at_least: { type: 'input_tokens', value } });
    const refused = decode(small, edit(50));
    expect(Object.values(toolState(refused.request.messages).results)).not.toContain(CLEARED_TOOL_RESULT);
    expect(refused.options.contextManagement).toEqual([]);
    const cleared = decode(conversation(6), edit(4000));
    expect(cleared.options.contextManagement).toMatchObject([{ clearedToolUses: 5 }]);
  });
});

describe('clear_thinking_20251015', () => {
  const reasoningTurns = (messages: Message[]) =>
    messages.filter((message) => message.role === 'assistant').map((message) => message.content.some((part) => part.type === 'reasoning'));

  it("keeps the last N thinking turns, a tool loop counting as one turn; 'all' keeps every one", () => {
    // Two user turns: the first with 3 tool uses and an answer, the second with 2.
    const first = conversation(3, { thinking: true });
    const messages = [...first.slice(0, -1), { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] }, ...first.slice(-1), ...conversation(2, { thinking: true }).slice(1)];
    const one = decode(messages, { thinking: THINKING, ...edits({ type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 1 } }) });
    expect(reasoningTurns(one.request.messages)).toEqual([false, false, false, false, true, true]);
    expect(one.options.contextManagement).toMatchObject([{ type: 'clear-thinking', clearedThinkingTurns: 1 }]);
    expect((one.options.contextManagement![0] as { clearedInputTokens: number }).clearedInputTokens).toBeGreaterThan(0);

    const byDefault = decode(messages, { thinking: THINKING, ...edits({ type: 'clear_thinking_20251015' }) });
    expect(reasoningTurns(byDefault.request.messages)).toEqual([false, false, false, false, true, true]);

    for (const keep of ['all', { type: 'all' }, { type: 'thinking_turns', value: 2 }]) {
      const kept = decode(messages, { thinking: THINKING, ...edits({ type: 'clear_thinking_20251015', keep }) });
      expect(reasoningTurns(kept.request.messages)).toEqual([true, true, true, false, true, true]);
      expect(kept.options.contextManagement).toEqual([]);
    }
  });

  it('runs before clear_tool_uses when both are given, in the listed order', () => {
    const { options } = decode(conversation(6, { thinking: true }), {
      thinking: { type: 'adaptive' },
      ...edits({ type: 'clear_thinking_20251015', keep: 'all' }, { type: 'clear_tool_uses_20250919', trigger: { type: 'tool_uses', value: 1 } }),
    });
    expect(options.contextManagement).toMatchObject([{ type: 'clear-tool-uses', clearedToolUses: 3 }]);
  });
});

describe('context_management: what is refused with a 400, as Anthropic refuses it', () => {
  const edit = (fields: Record<string, unknown>) => ({ thinking: THINKING, ...edits({ type: 'clear_tool_uses_20250919', ...fields }) });
  it.each<[string, Record<string, unknown>, InvalidCase]>([
    ['edits not a list', { context_management: { edits: {} } }, expected('context_management.edits', 'an array')],
    ['an edit without a type', edits({}), required('context_management.edits.0.type')],
    ['a trigger of an unknown unit', edit({ trigger: { type: 'messages', value: 3 } }), { param: 'context_management.edits.0.trigger.type', message: "context_management.edits.0.trigger.type: expected 'input_tokens' or 'tool_uses'." }],
    ['a trigger without a value', edit({ trigger: { type: 'input_tokens' } }), required('context_management.edits.0.trigger.value')],
    ['a negative keep', edit({ keep: { type: 'tool_uses', value: -1 } }), atLeast('context_management.edits.0.keep.value', 0)],
    ['a fractional clear_at_least', edit({ clear_at_least: { type: 'input_tokens', value: 1.5 } }), expected('context_management.edits.0.clear_at_least.value', 'an integer')],
    ['exclude_tools not names', edit({ exclude_tools: 'Bash' }), expected('context_management.edits.0.exclude_tools', 'an array of tool names')],
    ['clear_tool_inputs neither', edit({ clear_tool_inputs: 'yes' }), expected('context_management.edits.0.clear_tool_inputs', 'a boolean or an array of tool names')],
    ['thinking turns of 0', { thinking: THINKING, ...edits({ type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 0 } }) }, atLeast('context_management.edits.0.keep.value', 1)],
    [
      'clear_thinking without thinking',
      edits({ type: 'clear_thinking_20251015' }),
      { param: 'context_management.edits.0.type', message: "context_management.edits.0: the 'clear_thinking_20251015' strategy requires thinking to be enabled." },
    ],
    [
      'clear_thinking listed after clear_tool_uses',
      { thinking: THINKING, ...edits({ type: 'clear_tool_uses_20250919' }, { type: 'clear_thinking_20251015' }) },
      { param: 'context_management.edits.1.type', message: "context_management.edits.1.type: 'clear_thinking_20251015' must be listed before 'clear_tool_uses_20250919' in context_management.edits." },
    ],
    [
      'a strategy listed twice',
      edits({ type: 'clear_tool_uses_20250919' }, { type: 'clear_tool_uses_20250919', keep: { type: 'tool_uses', value: 1 } }),
      { param: 'context_management.edits.1.type', message: "context_management.edits.1.type: 'clear_tool_uses_20250919' is listed twice; give each strategy once." },
    ],
  ])('%s', (_name, fields, invalid) => {
    expectInvalid(() => decode(conversation(1), fields), invalid);
  });

  it('a field of a known edit the router does not read is passed to an Anthropic upstream, and refused elsewhere', () => {
    const { request } = decode(conversation(1), edits({ type: 'clear_tool_uses_20250919', future_knob: 1 }));
    expect(request.forwardBody?.body.context_management).toEqual({ edits: [{ type: 'clear_tool_uses_20250919', future_knob: 1 }] });
    expect(thrownBy(() => translatableOrRefuse(request)).param).toBe('context_management.edits.0.future_knob');
  });

  it('names edit types it does not apply in one short warning, however many the body holds', () => {
    const many = Array.from({ length: 5000 }, (_, index) => ({ type: `future_${index % 7}_${'x'.repeat(200)}` }));
    const { request } = decode(conversation(1), { context_management: { edits: [{ type: 'compact_20260112' }, ...many] } });
    const warnings = translatableOrRefuse(request);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.length).toBeLessThan(400);
    expect(warnings[0]).toMatch(/^context_management\.edits: compact_20260112, future_0_x+…, future_1_x+… and 5 more not applied/);
  });

  it("leaves the client's body as it came, for an Anthropic upstream to edit itself", () => {
    const messages = conversation(6);
    const { request } = decode(messages, edits({ type: 'clear_tool_uses_20250919', trigger: { type: 'tool_uses', value: 1 } }));
    expect(request.forwardBody?.body.messages).toEqual(messages);
    expect(Object.values(toolState(request.messages).results)).toContain(CLEARED_TOOL_RESULT);
  });
});
