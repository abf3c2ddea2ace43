import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeChatRequest } from '../../../src/backends/openai-chat/encode-request.js';
import type { CanonicalRequest, Message } from '../../../src/core/request.js';

/**
 * System text mid-conversation on an openai-chat upstream: before the first answer it joins the
 * system message; after it, it stays in place as a user-side note, so earlier messages never
 * change and no system message follows the first (chat templates of Qwen, Llama and Mistral refuse one).
 */

const system = (text: string): Message => ({ role: 'system', content: [{ type: 'text', text }] });
const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const call = (id: string): Message => ({ role: 'assistant', content: [{ type: 'tool-call', id, name: 'Bash', arguments: '{"command":"ls"}' }] });
const result = (id: string): Message => ({ role: 'tool', content: [{ type: 'tool-result', callId: id, content: [{ type: 'text', text: 'a.ts' }] }] });
const answer = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });
const note = (text: string) => ({ type: 'text', text: `<system-reminder>\n${text}\n</system-reminder>` });
const encode = (messages: Message[], options?: { cacheControl?: boolean }) =>
  encodeChatRequest({ model: 'svc.intelligent-basic', system: [{ type: 'text', text: 'You are Claude Code.' }], messages, tools: [] }, 'qwen3-coder', false, options).messages;

describe('system text mid-conversation on an openai-chat upstream', () => {
  it('joins the environment sent before the first answer to the system message, and carries a hook’s output after a tool result as a user note', () => {
    expect(encode([user('run ls'), system('# Environment'), call('toolu_1'), result('toolu_1'), system('Hook: lint passed')])).toEqual([
      { role: 'system', content: 'You are Claude Code.\n\n# Environment' },
      { role: 'user', content: 'run ls' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'Bash', arguments: '{"command":"ls"}' } }] },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'a.ts' },
      { role: 'user', content: '<system-reminder>\nHook: lint passed\n</system-reminder>' },
    ]);
  });

  it('puts a note into the user message that follows it, or the one before it, never beside it', () => {
    expect(encode([user('a'), answer('b'), system('Before'), user('c')]).slice(-1)).toEqual([{ role: 'user', content: [note('Before'), { type: 'text', text: 'c' }] }]);
    expect(encode([user('a'), answer('b'), user('c'), system('After')]).slice(-1)).toEqual([{ role: 'user', content: [{ type: 'text', text: 'c' }, note('After')] }]);
  });

  it('keeps a note that arrives between calls and their results until after the results, which must follow their calls', () => {
    const roles = encode([user('a'), call('t1'), system('Between'), result('t1'), answer('done')]).map((message) => message.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'user', 'assistant']);
  });

  it('never sends a system message but the first, and sends every tool message after its call, whatever the conversation', () => {
    const step = fc.constantFrom<'user' | 'system' | 'answer' | 'call'>('user', 'system', 'answer', 'call');
    fc.assert(
      fc.property(fc.array(step, { maxLength: 12 }), fc.boolean(), (steps, cacheControl) => {
        const messages: Message[] = [user('start')];
        steps.forEach((kind, index) => {
          if (kind === 'user') messages.push(user(`u${index}`));
          else if (kind === 'system') messages.push(system(`s${index}`));
          else if (kind === 'answer') messages.push(answer(`a${index}`));
          else messages.push(call(`c${index}`), result(`c${index}`));
        });
        const encoded = encode(messages, { cacheControl });
        encoded.forEach((message, index) => {
          if (index > 0) expect(message.role).not.toBe('system');
          if (message.role === 'tool') expect(['assistant', 'tool']).toContain(encoded[index - 1]!.role);
        });
        // Every note is there, once.
        const text = JSON.stringify(encoded);
        steps.forEach((kind, index) => kind === 'system' && expect(text.split(`s${index}`).length - 1).toBe(1));
      }),
      { numRuns: 300 },
    );
  });
});

describe('an openai-chat backend that takes cache_control (backends add --cache-control)', () => {
  const marked = (text: string, ttl?: '1h') => ({ type: 'text' as const, text, providerMetadata: { anthropic: { cacheControl: { type: 'ephemeral', ...(ttl ? { ttl } : {}) } } } });
  /** Claude Code's shape: breakpoints on two of three system blocks and on the newest block. */
  const claudeCode: CanonicalRequest = {
    model: 'svc.intelligent-basic',
    system: [{ type: 'text', text: 'billing header' }, marked('You are Claude Code.', '1h'), marked('Rules.', '1h')],
    messages: [user('run ls'), system('# Environment'), call('toolu_1'), { role: 'tool', content: [{ type: 'tool-result', callId: 'toolu_1', content: [{ type: 'text', text: 'a.ts' }], providerMetadata: { anthropic: { cacheControl: { type: 'ephemeral' } } } }] }],
    tools: [],
  };

  it('keeps a Messages client’s breakpoints, TTLs and all, on the parts they marked, every content a list of parts', () => {
    expect(encodeChatRequest(structuredClone(claudeCode), 'anthropic/claude-sonnet-4.5', false, { cacheControl: true }).messages).toEqual([
      {
        role: 'system',
        content: [
          { type: 'text', text: 'billing header' },
          { type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral', ttl: '1h' } },
          { type: 'text', text: 'Rules.', cache_control: { type: 'ephemeral', ttl: '1h' } },
          { type: 'text', text: '# Environment' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'run ls' }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'Bash', arguments: '{"command":"ls"}' } }] },
      { role: 'tool', tool_call_id: 'toolu_1', content: [{ type: 'text', text: 'a.ts', cache_control: { type: 'ephemeral' } }] },
    ]);
  });

  it('moves a breakpoint on system text that joins the system message to the message before it, so it still marks all the client’s did', () => {
    // Claude Code's first request: its newest block, the environment after the first user message, carries the breakpoint.
    const first: CanonicalRequest = { ...structuredClone(claudeCode), messages: [user('run ls'), { role: 'system', content: [marked('# Environment')] }] };
    const messages = encodeChatRequest(first, 'anthropic/claude-sonnet-4.5', false, { cacheControl: true }).messages;
    expect(messages[0]!.content).toContainEqual({ type: 'text', text: '# Environment' });
    expect(messages[1]).toEqual({ role: 'user', content: [{ type: 'text', text: 'run ls', cache_control: { type: 'ephemeral' } }] });
    expect(JSON.stringify(messages).split('cache_control').length - 1).toBe(3);
  });

  it('sends no cache_control to a backend that did not declare it, and plain strings where they do', () => {
    const messages = encodeChatRequest(structuredClone(claudeCode), 'anthropic/claude-sonnet-4.5', false).messages;
    expect(JSON.stringify(messages)).not.toContain('cache_control');
    expect(messages[0]).toEqual({ role: 'system', content: 'billing header\n\nYou are Claude Code.\n\nRules.\n\n# Environment' });
  });

  it('places breakpoints for a client that set none: the end of the system message and of the last two runs of user-side messages', () => {
    const plain: CanonicalRequest = { model: 'svc.intelligent-basic', system: [{ type: 'text', text: 'Be brief.' }], messages: [user('run ls'), call('t1'), result('t1'), answer('done'), user('thanks')], tools: [] };
    const messages = encodeChatRequest(plain, 'anthropic/claude-sonnet-4.5', false, { cacheControl: true }).messages;
    const markers = messages.flatMap((message, index) => (Array.isArray(message.content) ? message.content.flatMap((part, at) => ('cache_control' in part ? [`${index}.${at}`] : [])) : []));
    expect(markers).toEqual(['0.0', '3.0', '5.0']);
    expect(messages[5]).toEqual({ role: 'user', content: [{ type: 'text', text: 'thanks', cache_control: { type: 'ephemeral' } }] });
  });

  it('places them in a Chat client’s own body too, forwarded: a marked string becomes the one text part it stands for', () => {
    const body = {
      model: 'svc.intelligent-basic',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'run ls' },
        { role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'Bash', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 't1', content: 'a.ts' },
        { role: 'user', content: '' },
      ],
    };
    const forwarded = (request: Record<string, unknown>, cacheControl: boolean) =>
      encodeChatRequest({ model: 'svc.intelligent-basic', system: [], messages: [], tools: [], forwardBody: { format: 'chat', body: request } }, 'anthropic/claude-sonnet-4.5', false, { cacheControl }).messages;
    expect(forwarded(body, true)).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }] },
      { role: 'user', content: [{ type: 'text', text: 'run ls', cache_control: { type: 'ephemeral' } }] },
      body.messages[2],
      body.messages[3],
      // Anthropic refuses a breakpoint on an empty text block: the run's end goes unmarked.
      body.messages[4],
    ]);
    expect(forwarded(body, false)).toEqual(body.messages);
    const own = structuredClone(body);
    own.messages[1] = { role: 'user', content: [{ type: 'text', text: 'run ls', cache_control: { type: 'ephemeral', ttl: '1h' } }] } as never;
    expect(forwarded(own, true)).toEqual(own.messages);
  });
});
