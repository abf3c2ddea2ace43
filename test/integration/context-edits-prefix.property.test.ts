import Anthropic from '@anthropic-ai/sdk';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { CLEARED_TOOL_RESULT } from '../../src/core/context-edits.js';
import { estimateRequestTokens } from '../../src/core/estimate-tokens.js';
import { decodeMessagesRequest } from '../../src/formats/messages/decode-request.js';
import { geminiParts, openAIChatParts, openAIResponsesParts } from '../fakes/prompt-parts.js';
import type { PromptPart } from '../fakes/prompt-cache.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { addBackend, setRoute, SKU, startUpstream } from './support.js';

/**
 * Context editing keeps the bill of going direct: an edit may change the upstream prompt only
 * where Anthropic's own would change it. Random tool-using conversations grow turn by turn, with
 * the same edits each turn, sent by a Messages client through the router to each translating
 * upstream type. A reference of Anthropic's rules, written here on the client's own messages
 * (input tokens by the router's estimator, as documented), says which blocks each turn clears.
 * Then: when a turn clears nothing new, its upstream prompt extends the last one's; when it does,
 * the change starts exactly at the first newly cleared block the upstream sees. The reply's
 * applied_edits must report what the reference cleared.
 */

const RUNS = 15;
const TOOL_NAMES = ['Bash', 'Read', 'Memory'] as const;
const UPSTREAMS = ['openai-chat', 'openai-responses', 'gemini'] as const;
type Upstream = (typeof UPSTREAMS)[number];

interface Step {
  thinking: boolean;
  calls: Array<{ tool: (typeof TOOL_NAMES)[number]; big: boolean }>;
  /** The model answers in text after the results, and the user asks again: a new turn. */
  answered: boolean;
  stream: boolean;
}

interface Plan {
  steps: Step[];
  toolEdit: {
    trigger: { type: 'tool_uses' | 'input_tokens'; value: number };
    keep: number;
    clearAtLeast?: number;
    exclude: string[];
    clearInputs: boolean | string[];
  };
  thinkingKeep?: 'all' | number;
}

const step: fc.Arbitrary<Step> = fc.record({
  thinking: fc.boolean(),
  calls: fc.array(fc.record({ tool: fc.constantFrom(...TOOL_NAMES), big: fc.boolean() }), { minLength: 1, maxLength: 2 }),
  answered: fc.boolean(),
  stream: fc.boolean(),
});

const plan: fc.Arbitrary<Plan> = fc.record(
  {
    steps: fc.array(step, { minLength: 3, maxLength: 7 }),
    toolEdit: fc.record(
      {
        trigger: fc.oneof(
          fc.record({ type: fc.constant<'tool_uses'>('tool_uses'), value: fc.integer({ min: 0, max: 5 }) }),
          fc.record({ type: fc.constant<'input_tokens'>('input_tokens'), value: fc.integer({ min: 200, max: 4000 }) }),
        ),
        keep: fc.integer({ min: 0, max: 3 }),
        clearAtLeast: fc.option(fc.integer({ min: 0, max: 1500 }), { nil: undefined }),
        exclude: fc.subarray([...TOOL_NAMES]),
        clearInputs: fc.oneof(fc.boolean(), fc.subarray([...TOOL_NAMES])),
      },
      { requiredKeys: ['trigger', 'keep', 'exclude', 'clearInputs'] },
    ),
    thinkingKeep: fc.option(fc.oneof(fc.constant<'all'>('all'), fc.integer({ min: 1, max: 2 })), { nil: undefined }),
  },
  { requiredKeys: ['steps', 'toolEdit'] },
);

const resultMarker = (id: string) => `res-${id}`;
const inputMarker = (id: string) => `in-${id}`;
const resultText = (id: string, big: boolean) => `${resultMarker(id)} ${big ? 'long output line\n'.repeat(120) : 'ok'}`;

/** The client's messages before request `k`: steps 0..k-1, each an answer with its calls, their results, and maybe a text answer and a new question. */
function messagesBefore(p: Plan, k: number): any[] {
  const messages: any[] = [{ role: 'user', content: 'Start the task.' }];
  p.steps.slice(0, k).forEach((s, t) => {
    const ids = s.calls.map((_, j) => `toolu_${t}_${j}`);
    messages.push({
      role: 'assistant',
      content: [
        ...(s.thinking ? [{ type: 'thinking', thinking: `think-${t} ${'pondering '.repeat(30)}`, signature: `sig-${t}` }] : []),
        ...s.calls.map((call, j) => ({ type: 'tool_use', id: ids[j], name: call.tool, input: { command: inputMarker(ids[j]!) } })),
      ],
    });
    messages.push({ role: 'user', content: s.calls.map((call, j) => ({ type: 'tool_result', tool_use_id: ids[j], content: resultText(ids[j]!, call.big) })) });
    if (s.answered) messages.push({ role: 'assistant', content: [{ type: 'text', text: `Done with step ${t}.` }] }, { role: 'user', content: `Next step after ${t}.` });
  });
  return messages;
}

function body(p: Plan, messages: any[]): Record<string, any> {
  const edits: unknown[] = [];
  if (p.thinkingKeep !== undefined) edits.push({ type: 'clear_thinking_20251015', keep: p.thinkingKeep === 'all' ? 'all' : { type: 'thinking_turns', value: p.thinkingKeep } });
  const e = p.toolEdit;
  edits.push({
    type: 'clear_tool_uses_20250919',
    trigger: e.trigger,
    keep: { type: 'tool_uses', value: e.keep },
    ...(e.clearAtLeast !== undefined ? { clear_at_least: { type: 'input_tokens', value: e.clearAtLeast } } : {}),
    exclude_tools: e.exclude,
    clear_tool_inputs: e.clearInputs,
  });
  return {
    model: SKU,
    max_tokens: 2048,
    thinking: { type: 'enabled', budget_tokens: 1024 },
    system: 'You are a careful agent.',
    tools: TOOL_NAMES.map((name) => ({ name, description: `The ${name} tool.`, input_schema: { type: 'object', properties: { command: { type: 'string' } } } })),
    messages,
    context_management: { edits },
  };
}

/** The router's estimate of a client body as sent (no edits): the documented measure of input tokens. */
const estimate = (b: Record<string, any>): number => estimateRequestTokens(decodeMessagesRequest({ ...b, context_management: undefined }).request);

interface Reference {
  /** Cleared blocks by marker, in the order they stand in the conversation. */
  cleared: string[];
  applied: unknown[];
}

/** Anthropic's rules on the client's own messages. */
function reference(p: Plan, b: Record<string, any>): Reference {
  const cleared: string[] = [];
  const applied: unknown[] = [];
  let messages: any[] = JSON.parse(JSON.stringify(b.messages));
  if (p.thinkingKeep !== undefined && p.thinkingKeep !== 'all') {
    // Consecutive user messages are one turn; a user turn holding tool results continues the assistant's turn.
    const turnOf: number[] = [];
    let turn = 0;
    messages.forEach((message, index) => {
      const continues = index > 0 && messages[index - 1].role === 'user';
      const results = Array.isArray(message.content) && message.content.some((block: any) => block.type === 'tool_result');
      if (message.role === 'user' && !continues && !results) turn++;
      turnOf.push(turn);
    });
    const thinkingTurns = [...new Set(messages.flatMap((message, index) => (message.role === 'assistant' && message.content.some((block: any) => block.type === 'thinking') ? [turnOf[index]!] : [])))];
    const gone = new Set(thinkingTurns.slice(0, Math.max(0, thinkingTurns.length - p.thinkingKeep)));
    if (gone.size) {
      const before = estimate({ ...b, messages });
      messages = messages.map((message, index) => {
        if (message.role !== 'assistant' || !gone.has(turnOf[index]!)) return message;
        for (const block of message.content) if (block.type === 'thinking') cleared.push(block.thinking.split(' ')[0]);
        return { ...message, content: message.content.filter((block: any) => block.type !== 'thinking') };
      });
      applied.push({ type: 'clear_thinking_20251015', cleared_thinking_turns: gone.size, cleared_input_tokens: Math.max(0, before - estimate({ ...b, messages })) });
    }
  }
  const e = p.toolEdit;
  const uses = messages.flatMap((message) => (message.role === 'assistant' ? message.content.filter((block: any) => block.type === 'tool_use') : []));
  const size = e.trigger.type === 'tool_uses' ? uses.length : estimate({ ...b, messages });
  if (size > e.trigger.value) {
    const clearable = uses.slice(0, Math.max(0, uses.length - e.keep)).filter((use: any) => !e.exclude.includes(use.name));
    const inputsToo = (name: string) => e.clearInputs === true || (Array.isArray(e.clearInputs) && e.clearInputs.includes(name));
    const ids = new Set(clearable.map((use: any) => use.id));
    const edited = messages.map((message) => ({
      ...message,
      content: !Array.isArray(message.content)
        ? message.content
        : message.content.map((block: any) => {
            if (block.type === 'tool_result' && ids.has(block.tool_use_id)) return { ...block, content: CLEARED_TOOL_RESULT };
            if (block.type === 'tool_use' && ids.has(block.id) && inputsToo(block.name)) return { ...block, input: {} };
            return block;
          }),
    }));
    // A result shorter than the placeholder frees nothing: the count never goes below 0.
    const freed = Math.max(0, estimate({ ...b, messages }) - estimate({ ...b, messages: edited }));
    if (clearable.length && (e.clearAtLeast === undefined || freed >= e.clearAtLeast)) {
      for (const message of messages) {
        if (!Array.isArray(message.content)) continue;
        for (const block of message.content) {
          if (block.type === 'tool_use' && ids.has(block.id) && inputsToo(block.name)) cleared.push(inputMarker(block.id));
          if (block.type === 'tool_result' && ids.has(block.tool_use_id)) cleared.push(resultMarker(block.tool_use_id));
        }
      }
      applied.push({ type: 'clear_tool_uses_20250919', cleared_tool_uses: clearable.length, cleared_input_tokens: freed });
    }
  }
  return { cleared, applied };
}

function partsOf(upstream: Upstream, requestBody: any): PromptPart[] {
  return upstream === 'openai-chat' ? openAIChatParts(requestBody) : upstream === 'openai-responses' ? openAIResponsesParts(requestBody) : geminiParts(requestBody);
}

let router: TestRouter;
let client: Anthropic;
beforeAll(async () => {
  router = await startRouter({ capTokens: 1e15 });
  client = new Anthropic({ apiKey: router.key, baseURL: router.origin, maxRetries: 0 });
});
afterAll(() => router?.close());

async function run(upstream: Upstream, p: Plan): Promise<void> {
  const fake = await startUpstream(upstream, () => ({ text: 'Working on it.' }));
  try {
    setRoute(router, SKU, [`${addBackend(router, 'edits', upstream, fake.url)}:${upstream === 'gemini' ? 'gemini-2.5-flash' : 'gpt-4.1'}`]);
    let previous: { parts: PromptPart[]; cleared: Set<string> } | undefined;
    for (let k = 1; k <= p.steps.length; k++) {
      const b = body(p, messagesBefore(p, k));
      const expected = reference(p, b);
      const stream = p.steps[k - 1]!.stream;
      const reply: any = stream ? await client.messages.stream(b as any).finalMessage() : await client.messages.create(b as any);
      if (!stream && JSON.stringify(reply.context_management) !== JSON.stringify({ applied_edits: expected.applied })) {
        throw new Error(`request ${k}: applied_edits ${JSON.stringify(reply.context_management)}, Anthropic's rules say ${JSON.stringify(expected.applied)}`);
      }
      const parts = partsOf(upstream, fake.requests.at(-1)!.body);
      const cleared = new Set(expected.cleared);
      if (previous) {
        // Anthropic's rules may also restore a block (clear_at_least no longer met): its own prompt
        // changes there too, so the change may start at the first block either way.
        const lost = [...previous.cleared].filter((marker) => !cleared.has(marker));
        const fresh = [...expected.cleared.filter((marker) => !previous!.cleared.has(marker)), ...lost];
        // The first block whose cleared state changed that the upstream sees (reasoning from another
        // upstream is never sent to it). A cleared block no longer holds its marker, so a newly cleared
        // one is found in the last prompt and a restored one in this prompt.
        const holding = (prompt: PromptPart[], marker: string) => prompt.findIndex((part) => part.text.includes(marker));
        const indices = fresh.map((marker) => (lost.includes(marker) ? holding(parts, marker) : holding(previous!.parts, marker))).filter((index) => index !== -1);
        const at = indices.length ? Math.min(...indices) : undefined;
        const changed = firstDifference(previous.parts, parts);
        const want = at ?? previous.parts.length;
        if (changed !== want) {
          throw new Error(
            `request ${k} over ${upstream}: the upstream prompt changed at part ${changed} (${parts[changed]?.label ?? 'the end'}), ` +
              `${at === undefined ? 'but nothing new was cleared' : `but the first newly cleared block (${fresh[0]}) is part ${at}`}\n` +
              `  was: ${previous.parts[changed]?.text.slice(0, 300)}\n  now: ${parts[changed]?.text.slice(0, 300)}`,
          );
        }
      }
      previous = { parts, cleared };
    }
  } finally {
    await fake.close();
  }
}

function firstDifference(before: PromptPart[], after: PromptPart[]): number {
  const length = Math.min(before.length, after.length);
  for (let index = 0; index < length; index++) if (before[index]!.kind !== after[index]!.kind || before[index]!.text !== after[index]!.text) return index;
  return length;
}

describe('context editing and the upstream prompt prefix', () => {
  it.each(UPSTREAMS)('→ %s: a turn changes the last one’s prompt only at a block Anthropic’s rules newly clear', async (upstream) => {
    await fc.assert(
      fc.asyncProperty(plan, (p) => run(upstream, p)),
      { numRuns: RUNS },
    );
  }, 120_000);
});
