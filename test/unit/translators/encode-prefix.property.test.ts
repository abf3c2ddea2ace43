import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeAnthropicRequest } from '../../../src/backends/anthropic/encode-request.js';
import { encodeGeminiRequest } from '../../../src/backends/gemini/encode-request.js';
import { encodeChatRequest } from '../../../src/backends/openai-chat/encode-request.js';
import { encodeResponsesRequest } from '../../../src/backends/openai-responses/encode-request.js';
import type { ProviderMetadata } from '../../../src/core/provider-metadata.js';
import type { CanonicalRequest, Message, Part } from '../../../src/core/request.js';
import { anthropicPrompt } from '../../fakes/anthropic-prompt-cache.js';
import type { PromptPart } from '../../fakes/prompt-cache.js';
import { geminiParts, openAIChatParts, openAIResponsesParts } from '../../fakes/prompt-parts.js';

/**
 * Every translating encoder is a function of the conversation that never rewrites what came
 * before: for a conversation and the same conversation one turn on (the answer, then what the
 * client adds: tool results, system notes, user input), the second upstream prompt, split into
 * parts as the provider's prefix cache sees it, starts with every part of the first. The fuller
 * check, through real clients and the router, is test/integration/prompt-prefix.property.test.ts.
 */

const ENCODERS: Record<string, (request: CanonicalRequest) => PromptPart[]> = {
  'openai-chat': (request) => openAIChatParts(encodeChatRequest(request, 'gpt-4.1', false)),
  'openai-chat with cache_control': (request) => openAIChatParts(encodeChatRequest(request, 'gpt-4.1', false, { cacheControl: true })),
  'openai-responses': (request) => openAIResponsesParts(encodeResponsesRequest(request, 'gpt-5', false)),
  anthropic: (request) => anthropicPrompt(encodeAnthropicRequest(request, 'claude-sonnet-4-5', false) as Record<string, any>).parts,
  gemini: (request) => geminiParts(encodeGeminiRequest(request, 'gemini-2.5-flash', false)),
};

const text = fc.constantFrom('alpha', 'beta', 'é 😀', '"quoted"', 'two\nlines');
const marked = <P extends Part>(part: P, mark: boolean): P => (mark ? { ...part, providerMetadata: { ...part.providerMetadata, anthropic: { ...part.providerMetadata?.anthropic, cacheControl: { type: 'ephemeral' } } } } : part);
const image = (url = 'data:image/png;base64,iVBORw0KGgo=') => ({ type: 'image' as const, url, mediaType: 'image/png' });

/** Reasoning as each upstream signs it, or unsigned. */
const SIGNED_BY: Record<string, ProviderMetadata | undefined> = { anthropic: { anthropic: { signature: 'sig-a' } }, openai: { openai: { encryptedContent: 'enc-o' } }, gemini: { gemini: { thoughtSignature: 'c2lnLWc=' } }, none: undefined };
const reasoning: fc.Arbitrary<Part> = fc.record({ text, sign: fc.constantFrom('anthropic', 'openai', 'gemini', 'none') }).map(({ text: said, sign }): Part => {
  const metadata = SIGNED_BY[sign];
  return { type: 'reasoning', text: said, ...(metadata ? { providerMetadata: metadata } : {}) };
});

const SIGNED = Buffer.from(JSON.stringify({ s: 'c2lnLWM=' })).toString('base64url');

/** One answer and what the client sends after it. */
const turn = fc.record({
  reasoning: fc.option(reasoning, { nil: undefined }),
  text: fc.option(text, { nil: undefined }),
  calls: fc.array(fc.record({ gemini: fc.boolean(), args: fc.constantFrom('{"cmd":"ls"}', '{}', '{"a":[1,2]}') }), { maxLength: 3 }),
  resultImages: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  noteBefore: fc.option(text, { nil: undefined }),
  noteAfter: fc.option(text, { nil: undefined }),
  user: fc.option(fc.record({ text, image: fc.boolean(), mark: fc.boolean() }), { nil: undefined }),
});

type Turn = typeof turn extends fc.Arbitrary<infer T> ? T : never;

/** The messages of a conversation that grew turn by turn: each turn's answer, then its follow-up. */
function conversation(first: Message[], turns: Array<Turn>, count: number): Message[] {
  const messages = [...first];
  turns.slice(0, count).forEach((step, index) => {
    const calls = step.calls.map((call, position) => ({
      type: 'tool-call' as const,
      // A Gemini call's id carries its signature, in the shape the router gives it to clients; others are plain.
      id: call.gemini ? `call_${`${index}${position}`.padStart(16, '0')}_${SIGNED}` : `call_${index}_${position}`,
      name: 'run_shell',
      arguments: call.args,
    }));
    // An answer says something or calls a tool (one of thoughts alone, cut short, is not modelled here).
    const said = step.text ?? (calls.length ? undefined : 'Done.');
    messages.push({ role: 'assistant', content: [...(step.reasoning ? [step.reasoning] : []), ...(said ? [{ type: 'text' as const, text: said }] : []), ...calls] });
    if (step.noteBefore) messages.push({ role: 'system', content: [{ type: 'text', text: step.noteBefore }] });
    calls.forEach((call, position) =>
      messages.push({ role: 'tool', content: [{ type: 'tool-result', callId: call.id, content: [{ type: 'text', text: `out ${position}` }, ...(step.resultImages[position] ? [image()] : [])] }] }),
    );
    if (step.noteAfter) messages.push({ role: 'system', content: [{ type: 'text', text: step.noteAfter }] });
    if (step.user || !calls.length) {
      const said = step.user ?? { text: 'Go on.', image: false, mark: false };
      messages.push({ role: 'user', content: [marked({ type: 'text', text: said.text }, said.mark), ...(said.image ? [image('https://example.com/a.png')] : [])] });
    }
  });
  return messages;
}

/**
 * The one change allowed: Anthropic's thinking turned off for good once the conversation replays a
 * tool call without its signed thinking (see thinking-budget.ts). The tools and system before it
 * stay cached; only the first turn's messages are written again, once.
 */
const thinkingSwitchedOff = (before: PromptPart, after: PromptPart | undefined): boolean =>
  before.kind === 'settings' && after?.kind === 'settings' && settings(before).thinking !== null && settings(after).thinking === null && JSON.stringify(settings(before).tool_choice) === JSON.stringify(settings(after).tool_choice);
const settings = (part: PromptPart): { tool_choice: unknown; thinking: unknown } => JSON.parse(part.text) as { tool_choice: unknown; thinking: unknown };

const session = fc.record({
  environment: fc.option(text, { nil: undefined }),
  turns: fc.array(turn, { minLength: 1, maxLength: 4 }),
  withTools: fc.boolean(),
});

describe('every translating encoder repeats the prompt it sent for the turn before', () => {
  for (const [name, encode] of Object.entries(ENCODERS)) {
    it(name, () => {
      fc.assert(
        fc.property(session, ({ environment, turns, withTools }) => {
          const first: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Start.' }] }, ...(environment ? [{ role: 'system' as const, content: [{ type: 'text' as const, text: environment }] }] : [])];
          const request = (count: number): CanonicalRequest => ({
            model: 'svc.intelligent-basic',
            system: [{ type: 'text', text: 'You are a coding agent.' }],
            messages: conversation(first, turns, count),
            tools: withTools ? [{ name: 'run_shell', description: 'Runs a command.', parameters: { $schema: 'x', type: 'object', properties: { cmd: { type: 'string', default: 'ls' } }, additionalProperties: false } }] : [],
            reasoningEffort: 'medium',
          });
          for (let count = 0; count < turns.length; count++) {
            const before = encode(request(count));
            const after = encode(request(count + 1));
            const changed = before.findIndex((part, index) => after[index]?.text !== part.text && !thinkingSwitchedOff(part, after[index]));
            if (changed !== -1) expect.fail(`turn ${count + 2} changed ${before[changed]!.label}:\n  was ${before[changed]!.text}\n  now ${after[changed]?.text ?? '(missing)'}`);
          }
        }),
        { numRuns: 150 },
      );
    });
  }
});
