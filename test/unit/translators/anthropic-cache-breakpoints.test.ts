import { describe, expect, it } from 'vitest';
import { encodeAnthropicRequest } from '../../../src/backends/anthropic/encode-request.js';
import type { CanonicalRequest, Message } from '../../../src/core/request.js';
import { anthropicCache, anthropicPrompt } from '../../fakes/anthropic-prompt-cache.js';
import { PromptCache } from '../../fakes/prompt-cache.js';

/** Where the router puts Anthropic's cache breakpoints for a client that set none (Chat, Responses). */

const EPHEMERAL = { type: 'ephemeral' };
const SYSTEM = 'You are a coding agent. Follow the rules. '.repeat(200);

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
/** An answer of `count` parallel calls, and their results. */
const toolStep = (step: number, count: number): Message[] => [
  { role: 'assistant', content: Array.from({ length: count }, (_, index) => ({ type: 'tool-call' as const, id: `call_${step}_${index}`, name: 'run_shell', arguments: `{"cmd":"ls ${index}"}` })) },
  ...Array.from({ length: count }, (_, index): Message => ({ role: 'tool', content: [{ type: 'tool-result', callId: `call_${step}_${index}`, content: [{ type: 'text', text: `out ${index}` }] }] })),
];
const request = (messages: Message[], extra: Partial<CanonicalRequest> = {}): CanonicalRequest => ({
  model: 'svc.intelligent-basic',
  system: [{ type: 'text', text: SYSTEM }],
  messages,
  tools: [
    { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
    { name: 'run_shell', parameters: { type: 'object', properties: { cmd: { type: 'string' } } } },
  ],
  ...extra,
});
const encode = (canonical: CanonicalRequest) => encodeAnthropicRequest(canonical, 'claude-sonnet-4-5', false);

/** Every breakpoint of a body, by where it sits. */
function breakpoints(body: ReturnType<typeof encode>): string[] {
  const marked: string[] = [];
  body.tools?.forEach((tool, index) => (tool as { cache_control?: unknown }).cache_control && marked.push(`tools[${index}]`));
  body.system?.forEach((block, index) => block.cache_control && marked.push(`system[${index}]`));
  body.messages.forEach((message, m) => message.content.forEach((block, b) => block.cache_control && marked.push(`messages[${m}].content[${b}]`)));
  return marked;
}

describe('cache breakpoints the router places on an anthropic upstream', () => {
  it('marks the last tool, the last system block and the last block of the last two user turns: four, Anthropic’s limit', () => {
    const body = encode(request([user('List the files'), ...toolStep(1, 2), { role: 'assistant', content: [{ type: 'text', text: 'Both listed.' }] }, user('Now read a.ts')]));
    expect(breakpoints(body)).toEqual(['tools[1]', 'system[0]', 'messages[2].content[1]', 'messages[4].content[0]']);
    expect(body.tools![1]).toMatchObject({ cache_control: EPHEMERAL });
    expect(body.messages[2]!.content[1]).toEqual({ type: 'tool_result', tool_use_id: 'call_1_1', content: [{ type: 'text', text: 'out 1' }], cache_control: EPHEMERAL });
  });

  it('marks fewer where there is less: no tools, no system, one user turn', () => {
    expect(breakpoints(encode(request([user('hi')], { tools: [], system: [] })))).toEqual(['messages[0].content[0]']);
  });

  it('leaves a request that carries a breakpoint of the client’s own as it is', () => {
    const marked: Message = { role: 'user', content: [{ type: 'text', text: 'cached here', providerMetadata: { anthropic: { cacheControl: { type: 'ephemeral', ttl: '1h' } } } }] };
    const body = encode(request([marked, ...toolStep(1, 1), user('go on')]));
    expect(breakpoints(body)).toEqual(['messages[0].content[0]']);
    expect(body.messages[0]!.content[0]).toMatchObject({ cache_control: { type: 'ephemeral', ttl: '1h' } });
  });

  it('puts the next turn’s second breakpoint on the block where this turn wrote, so the read reaches back past any number of new blocks', () => {
    // Twelve parallel calls and their results add 24 blocks between the turns, beyond the 20 a breakpoint looks back.
    const first = [user('Check every package'), ...toolStep(1, 1)];
    const second = [...first, ...toolStep(2, 12)];
    const store = new PromptCache();
    const ask = (messages: Message[]) => anthropicCache(store, PromptCache.scope('anthropic', 'key', 'claude-sonnet-4-5'), 'claude-sonnet-4-5', anthropicPrompt(encode(request(messages)) as Record<string, any>));
    const before = ask(first);
    const after = ask(second);
    expect(breakpoints(encode(request(first))).at(-1)).toBe('messages[2].content[0]');
    expect(breakpoints(encode(request(second)))).toContain('messages[2].content[0]');
    expect(before.cacheWriteTokens).toBe(before.inputTokens);
    expect(after.cachedTokens).toBe(before.inputTokens);
  });

  it('keeps the breakpoints off thinking blocks, which cannot carry one', () => {
    const body = encode(
      request([user('hi'), { role: 'assistant', content: [{ type: 'reasoning', text: 'Let me see.', providerMetadata: { anthropic: { signature: 'sig' } } }, { type: 'text', text: 'Hello.' }] }], { reasoningEffort: 'low' }),
    );
    expect(breakpoints(body)).toEqual(['tools[1]', 'system[0]', 'messages[0].content[0]']);
  });
});
