import { describe, expect, it } from 'vitest';
import { thinkingBudget } from '../../src/backends/anthropic/thinking-budget.js';
import type { CanonicalRequest, Message, ReasoningPart } from '../../src/core/request.js';

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const call: Message['content'][number] = { type: 'tool-call', id: 'toolu_1', name: 'get_weather', arguments: '{}' };
const result: Message = { role: 'tool', content: [{ type: 'tool-result', callId: 'toolu_1', content: [{ type: 'text', text: '12°C' }] }] };
const assistant = (...content: Message['content']): Message => ({ role: 'assistant', content });
const reasoning = (fields: Omit<ReasoningPart, 'type' | 'text'>): ReasoningPart => ({ type: 'reasoning', text: 'Let me think.', ...fields });

/** A tool-use round trip ending on the tool result, whose assistant turn holds `parts` before the call. */
const toolTurn = (...parts: Message['content']): Message[] => [user('Weather?'), assistant(...parts, call), result];

type Row = [string, Partial<CanonicalRequest>, number, number | undefined];

const request = (fields: Partial<CanonicalRequest>): CanonicalRequest => ({ model: 'claude-sonnet-4-5', system: [], messages: [user('hi')], tools: [], ...fields });

describe('thinkingBudget', () => {
  it.each<Row>([
    // asked for or not
    ['no budget and no effort: thinking off', {}, 32_000, undefined],
    ['effort minimal', { reasoningEffort: 'minimal' }, 32_000, 1024],
    ['effort low', { reasoningEffort: 'low' }, 32_000, 2048],
    ['effort medium', { reasoningEffort: 'medium' }, 32_000, 8192],
    ['effort high', { reasoningEffort: 'high' }, 32_000, 16_384],
    ['an explicit budget', { reasoningBudget: 5000 }, 32_000, 5000],
    ['an explicit budget over the effort', { reasoningBudget: 3000, reasoningEffort: 'high' }, 32_000, 3000],
    ['an explicit budget of exactly the minimum', { reasoningBudget: 1024 }, 32_000, 1024],
    ['an explicit budget under the minimum: thinking off', { reasoningBudget: 1000 }, 32_000, undefined],
    // the output cap
    ['a budget capped one under maxTokens', { reasoningBudget: 10_000 }, 4096, 4095],
    ['effort high capped one under maxTokens', { reasoningEffort: 'high' }, 8193, 8192],
    ['a cap that leaves exactly the minimum', { reasoningEffort: 'high' }, 1025, 1024],
    ['a cap that leaves under the minimum: thinking off', { reasoningEffort: 'high' }, 1024, undefined],
    ['a tiny cap: thinking off', { reasoningBudget: 4096 }, 100, undefined],
    // tool choice
    ["tool choice 'auto'", { reasoningEffort: 'low', toolChoice: 'auto' }, 32_000, 2048],
    ["tool choice 'none'", { reasoningEffort: 'low', toolChoice: 'none' }, 32_000, 2048],
    ["tool choice 'required': thinking off", { reasoningEffort: 'low', toolChoice: 'required' }, 32_000, undefined],
    ['a forced tool: thinking off', { reasoningBudget: 4096, toolChoice: { name: 'get_weather' } }, 32_000, undefined],
    // the last assistant turn
    ['no assistant turn yet', { reasoningEffort: 'low', messages: [user('a'), user('b')] }, 32_000, 2048],
    ['a last assistant turn of text only', { reasoningEffort: 'low', messages: [user('a'), assistant({ type: 'text', text: 'b' }), user('c')] }, 32_000, 2048],
    ['a tool-use turn with no reasoning: thinking off', { reasoningEffort: 'low', messages: toolTurn() }, 32_000, undefined],
    ['a tool-use turn with Anthropic signed thinking', { reasoningEffort: 'low', messages: toolTurn(reasoning({ providerMetadata: { anthropic: { signature: 'sig' } } })) }, 32_000, 2048],
    ['a tool-use turn with Anthropic redacted thinking', { reasoningEffort: 'low', messages: toolTurn(reasoning({ providerMetadata: { anthropic: { redactedData: 'EmwK' } } })) }, 32_000, 2048],
    ['a tool-use turn with signed thinking of no stated origin', { reasoningEffort: 'low', messages: toolTurn(reasoning({ providerMetadata: { anthropic: { signature: 'sig' } } })) }, 32_000, 2048],
    ['a tool-use turn with OpenAI encrypted reasoning only: thinking off', { reasoningEffort: 'low', messages: toolTurn(reasoning({ providerMetadata: { openai: { encryptedContent: 'gAAAA' } } })) }, 32_000, undefined],
    ['a tool-use turn with OpenAI-signed reasoning only: thinking off', { reasoningEffort: 'low', messages: toolTurn(reasoning({ providerMetadata: { openai: { signature: 'sig' } } })) }, 32_000, undefined],
    ['a tool-use turn with unsigned reasoning text only: thinking off', { reasoningEffort: 'low', messages: toolTurn(reasoning({})) }, 32_000, undefined],
    [
      'a tool-use turn with OpenAI reasoning and Anthropic signed thinking',
      { reasoningEffort: 'low', messages: toolTurn(reasoning({ providerMetadata: { openai: { encryptedContent: 'gAAAA' } } }), reasoning({ providerMetadata: { anthropic: { signature: 'sig' } } })) },
      32_000,
      2048,
    ],
    [
      'an unsigned tool-use turn the conversation has moved past: thinking stays off, so the setting never changes under the cache',
      { reasoningEffort: 'low', messages: [...toolTurn(), assistant({ type: 'text', text: 'It is 12°C.' }), user('Thanks')] },
      32_000,
      undefined,
    ],
    [
      'a signed tool-use turn followed by an unsigned one: thinking off',
      { reasoningEffort: 'low', messages: [...toolTurn(reasoning({ providerMetadata: { anthropic: { signature: 'sig' } } })), assistant(call), result] },
      32_000,
      undefined,
    ],
    ['an unsigned tool-use turn but no thinking asked for', { messages: toolTurn() }, 32_000, undefined],
  ])('%s', (_label, fields, maxTokens, budget) => {
    expect(thinkingBudget(request(fields), maxTokens)).toBe(budget);
  });
});
