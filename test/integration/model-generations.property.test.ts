import Anthropic from '@anthropic-ai/sdk';
import { FunctionCallingConfigMode, GoogleGenAI, type Content, type GenerateContentConfig, type GenerateContentResponse } from '@google/genai';
import fc from 'fast-check';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnthropicUpstream } from '../fakes/anthropic-upstream.js';
import type { FakeUpstream } from '../fakes/fake-server.js';
import type { ScriptedTurn } from '../fakes/scripted-turn.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { addBackend, setRoute, startUpstream, upstreamModelOf, type UpstreamKind } from './support.js';

/**
 * The newest generation's rules hold on every route and every client format, across a change of
 * model: random conversations with tools and thinking, where the route's first target (a Claude
 * model of the newest generation) is down on some turns and the next one (an older Claude, or
 * another provider's model) answers, and back. The Anthropic fake refuses what each model's row
 * refuses and drops thinking a model cannot read (test/fakes/anthropic-model-rules.ts). Every turn
 * must be answered (nothing the router sends is refused, and no thinking block is edited under the
 * conversation binding), and every block the upstream dropped must be named to the client.
 */

const SKU = 'svc.generations';
const TOOL_NAME = 'get_weather';
const TOOL_SCHEMA = { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] };

interface RouteCase {
  name: string;
  /** The route's targets: the newest model first, then the one it falls back to. */
  first: { kind: UpstreamKind; model: string };
  next: { kind: UpstreamKind; model: string };
}

const ROUTES: RouteCase[] = [
  { name: 'Fable 5.1 → Opus 5 (anthropic)', first: { kind: 'anthropic', model: 'claude-fable-5-1' }, next: { kind: 'anthropic', model: 'claude-opus-5' } },
  { name: 'Opus 5.5 → Opus 4.8 (anthropic)', first: { kind: 'anthropic', model: 'claude-opus-5-5' }, next: { kind: 'anthropic', model: 'claude-opus-4-8' } },
  { name: 'Fable 5.1 → gpt-5.2 (openai-responses)', first: { kind: 'anthropic', model: 'claude-fable-5-1' }, next: { kind: 'openai-responses', model: 'gpt-5.2' } },
  { name: 'Opus 5.5 → gpt-5.2 (openai-chat)', first: { kind: 'anthropic', model: 'claude-opus-5-5' }, next: { kind: 'openai-chat', model: 'gpt-5.2' } },
  { name: 'Opus 5.5 → Gemini 3 Pro (gemini)', first: { kind: 'anthropic', model: 'claude-opus-5-5' }, next: { kind: 'gemini', model: 'gemini-3-pro-preview' } },
];
const FORMATS = ['chat', 'responses', 'messages', 'gemini'] as const;
type ClientFormat = (typeof FORMATS)[number];

/** One turn of a conversation: what the client asks, and which model is down when it does. */
interface TurnPlan {
  firstDown: boolean;
  toolCall: boolean;
  thinkingText: boolean;
  toolChoice: 'auto' | 'required' | 'named' | undefined;
  effort: 'none' | 'low' | 'high' | undefined;
  temperature: number | undefined;
  stream: boolean;
}

const turnArb: fc.Arbitrary<TurnPlan> = fc.record({
  firstDown: fc.boolean(),
  toolCall: fc.boolean(),
  thinkingText: fc.boolean(),
  toolChoice: fc.constantFrom<TurnPlan['toolChoice']>(undefined, 'auto', 'required', 'named'),
  effort: fc.constantFrom<TurnPlan['effort']>(undefined, 'none', 'low', 'high'),
  temperature: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
  stream: fc.boolean(),
});
/** At least one turn on each side of a move: down, then up, then down again is fallback and back. */
const conversationArb = fc.array(turnArb, { minLength: 3, maxLength: 6 });

let router: TestRouter;
/** One fake per kind; each answers as the current turn's plan says, and is down for the model the plan takes down. */
const fakes = new Map<UpstreamKind, FakeUpstream>();
let plan: TurnPlan | undefined;
let downModel: string | undefined;

const answer = (model: string): ScriptedTurn => {
  if (model === downModel) return { status: 529, errorBody: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } };
  const reasoning = { text: plan?.thinkingText ? `Thinking about the weather (${model}).` : '' };
  return plan?.toolCall ? { reasoning, text: 'Let me check.', toolCalls: [{ name: TOOL_NAME, arguments: { city: 'Paris' } }] } : { reasoning, text: 'It is sunny.' };
};

beforeAll(async () => {
  router = await startRouter({ capTokens: 1e15 });
  for (const kind of ['anthropic', 'openai-responses', 'openai-chat', 'gemini'] as const) {
    // Down is an overload on each wire: the router falls back on it.
    const fake = await startUpstream(kind, (body: any) => {
      const model = typeof body?.model === 'string' ? body.model : 'gemini-3-pro-preview';
      const turn = answer(model);
      return turn.status ? { status: kind === 'anthropic' ? 529 : 503 } : turn;
    });
    fakes.set(kind, fake);
    addBackend(router, `gen-${kind}`, kind, kind === 'anthropic' ? fake.url : fake.url);
  }
});

afterAll(async () => {
  await router?.close();
  await Promise.all([...fakes.values()].map((fake) => fake.close()));
});

/** What the client got on one turn: the warnings (header and svc_meta), and what to send back next turn. */
interface TurnResult {
  status: number;
  warnings: string;
  toolCallIds: string[];
}

/** A conversation as one client format keeps it, replayed in full each turn as its SDK user would. */
/**
 * Each conversation opens with words of its own, as real ones do: a Gemini conversation is known
 * by its opening (src/routing/session-key.ts), and two that opened alike would share a session,
 * led by affinity to wherever the other one was moved.
 */
let conversations = 0;

class Conversation {
  private readonly opening = `What is the weather in Paris? (conversation ${++conversations})`;
  private readonly chat: any[] = [{ role: 'user', content: this.opening }];
  private readonly responses: any[] = [{ role: 'user', content: this.opening }];
  private readonly messages: any[] = [{ role: 'user', content: this.opening }];
  private readonly contents: Content[] = [{ role: 'user', parts: [{ text: this.opening }] }];

  constructor(private readonly format: ClientFormat) {}

  async turn(turn: TurnPlan): Promise<TurnResult> {
    switch (this.format) {
      case 'chat':
        return this.chatTurn(turn);
      case 'responses':
        return this.responsesTurn(turn);
      case 'messages':
        return this.messagesTurn(turn);
      case 'gemini':
        return this.geminiTurn(turn);
    }
  }

  private async chatTurn(turn: TurnPlan): Promise<TurnResult> {
    const client = new OpenAI({ apiKey: router.key, baseURL: router.baseURL, maxRetries: 0 });
    const { data, response } = await client.chat.completions
      .create({
        model: SKU,
        messages: this.chat,
        tools: [{ type: 'function', function: { name: TOOL_NAME, parameters: TOOL_SCHEMA } }],
        ...(turn.toolChoice ? { tool_choice: turn.toolChoice === 'named' ? { type: 'function', function: { name: TOOL_NAME } } : turn.toolChoice } : {}),
        ...(turn.effort ? { reasoning_effort: turn.effort as 'low' } : {}),
        ...(turn.temperature !== undefined ? { temperature: turn.temperature } : {}),
      })
      .withResponse();
    const message = data.choices[0]!.message as any;
    this.chat.push({ role: 'assistant', content: message.content, ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}), ...(message.reasoning_content ? { reasoning_content: message.reasoning_content } : {}) });
    const ids: string[] = (message.tool_calls ?? []).map((call: any) => call.id);
    for (const id of ids) this.chat.push({ role: 'tool', tool_call_id: id, content: 'sunny' });
    if (!ids.length) this.chat.push({ role: 'user', content: 'And tomorrow?' });
    return { status: response.status, warnings: warningsOf(response.headers, (data as any).svc_meta), toolCallIds: ids };
  }

  private async responsesTurn(turn: TurnPlan): Promise<TurnResult> {
    const client = new OpenAI({ apiKey: router.key, baseURL: router.baseURL, maxRetries: 0 });
    const { data, response } = await client.responses
      .create({
        model: SKU,
        input: this.responses,
        store: false,
        include: ['reasoning.encrypted_content'],
        tools: [{ type: 'function', name: TOOL_NAME, parameters: TOOL_SCHEMA, strict: false }],
        ...(turn.toolChoice ? { tool_choice: turn.toolChoice === 'named' ? { type: 'function', name: TOOL_NAME } : turn.toolChoice } : {}),
        ...(turn.effort ? { reasoning: { effort: turn.effort as 'low', summary: 'auto' } } : {}),
        ...(turn.temperature !== undefined ? { temperature: turn.temperature } : {}),
      })
      .withResponse();
    const ids: string[] = [];
    for (const item of data.output as any[]) {
      if (item.type === 'reasoning') this.responses.push({ type: 'reasoning', id: item.id, summary: item.summary, ...(item.encrypted_content ? { encrypted_content: item.encrypted_content } : {}) });
      else if (item.type === 'message') this.responses.push({ role: 'assistant', content: item.content.map((part: any) => ({ type: 'output_text', text: part.text })) });
      else if (item.type === 'function_call') {
        this.responses.push({ type: 'function_call', call_id: item.call_id, name: item.name, arguments: item.arguments });
        ids.push(item.call_id);
      }
    }
    for (const id of ids) this.responses.push({ type: 'function_call_output', call_id: id, output: 'sunny' });
    if (!ids.length) this.responses.push({ role: 'user', content: 'And tomorrow?' });
    return { status: response.status, warnings: warningsOf(response.headers, (data as any).svc_meta), toolCallIds: ids };
  }

  private geminiTurn(turn: TurnPlan): Promise<TurnResult> {
    return geminiTurn(this.contents, turn);
  }

  private async messagesTurn(turn: TurnPlan): Promise<TurnResult> {
    const client = new Anthropic({ apiKey: router.key, baseURL: router.origin, maxRetries: 0 });
    const params: any = {
      model: SKU,
      max_tokens: 4000,
      messages: this.messages,
      tools: [{ name: TOOL_NAME, input_schema: TOOL_SCHEMA }],
      ...(turn.toolChoice ? { tool_choice: turn.toolChoice === 'named' ? { type: 'tool', name: TOOL_NAME } : { type: turn.toolChoice === 'required' ? 'any' : 'auto' } } : {}),
      ...(turn.effort === 'none' ? { thinking: { type: 'disabled' } } : turn.effort ? { thinking: { type: 'adaptive' }, output_config: { effort: turn.effort } } : {}),
    };
    let message: Anthropic.Message;
    let response: Response;
    if (turn.stream) {
      const stream = client.messages.stream(params);
      response = (await stream.withResponse()).response;
      message = await stream.finalMessage();
    } else {
      ({ data: message, response } = await client.messages.create(params).withResponse());
    }
    this.messages.push({ role: 'assistant', content: message.content });
    const ids = message.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
    if (ids.length) this.messages.push({ role: 'user', content: ids.map((id) => ({ type: 'tool_result', tool_use_id: id, content: 'sunny' })) });
    else this.messages.push({ role: 'user', content: 'And tomorrow?' });
    return { status: response.status, warnings: warningsOf(response.headers, (message as any).svc_meta), toolCallIds: ids };
  }
}

/** Gemini's thinking for a plan's effort: none is a budget of 0, the rest a level (https://ai.google.dev/gemini-api/docs/thinking). */
const GEMINI_THINKING = { none: { thinkingBudget: 0 }, low: { thinkingLevel: 'LOW', includeThoughts: true }, high: { thinkingLevel: 'HIGH', includeThoughts: true } } as const;

/** A Gemini client's turn (Google's SDK): the model's content kept whole, every part with its signature, as the SDK's chat keeps it. */
async function geminiTurn(contents: Content[], turn: TurnPlan): Promise<TurnResult> {
  const ai = new GoogleGenAI({ apiKey: router.key, httpOptions: { baseUrl: router.origin } });
  const mode = turn.toolChoice === 'required' || turn.toolChoice === 'named' ? FunctionCallingConfigMode.ANY : FunctionCallingConfigMode.AUTO;
  const config: GenerateContentConfig = {
    tools: [{ functionDeclarations: [{ name: TOOL_NAME, parametersJsonSchema: TOOL_SCHEMA }] }],
    ...(turn.toolChoice ? { toolConfig: { functionCallingConfig: { mode, ...(turn.toolChoice === 'named' ? { allowedFunctionNames: [TOOL_NAME] } : {}) } } } : {}),
    ...(turn.effort ? { thinkingConfig: GEMINI_THINKING[turn.effort] as GenerateContentConfig['thinkingConfig'] } : {}),
    ...(turn.temperature !== undefined ? { temperature: turn.temperature } : {}),
  };
  const parts: NonNullable<Content['parts']> = [];
  let last: GenerateContentResponse | undefined;
  if (turn.stream) {
    for await (const chunk of await ai.models.generateContentStream({ model: SKU, contents, config })) {
      parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
      last ??= chunk;
    }
  } else {
    last = await ai.models.generateContent({ model: SKU, contents, config });
    parts.push(...(last.candidates?.[0]?.content?.parts ?? []));
  }
  contents.push({ role: 'model', parts });
  const calls = parts.flatMap((part) => (part.functionCall ? [part.functionCall] : []));
  if (calls.length) contents.push({ role: 'user', parts: calls.map((call) => ({ functionResponse: { id: call.id, name: call.name!, response: { output: 'sunny' } } })) });
  else contents.push({ role: 'user', parts: [{ text: 'And tomorrow?' }] });
  return { status: 200, warnings: last?.sdkHttpResponse?.headers?.['x-svc-warning'] ?? '', toolCallIds: calls.map((call) => call.id ?? '') };
}

/** The kind of the upstream whose model answered since `sentBefore` (the one not taken down). */
function answeringKind(sentBefore: Map<UpstreamKind, number>): UpstreamKind | undefined {
  const answered = [...fakes].flatMap(([kind, fake]) => fake.requests.slice(sentBefore.get(kind)).filter((request) => !request.path.includes('count') && upstreamModelOf(request) !== downModel).map(() => kind));
  return answered.at(-1);
}

const warningsOf = (headers: Headers, meta: { warnings?: string[] } | undefined): string => [headers.get('x-svc-warning') ?? '', ...(meta?.warnings ?? [])].join('\n');

describe.each(ROUTES.map((route) => [route.name, route] as const))('a conversation on %s', (_name, route) => {
  it.each(FORMATS.map((format) => [format]))('from a %s client: every turn answered, every unread reasoning block named', async (format) => {
    setRoute(router, SKU, [`gen-${route.first.kind}:${route.first.model}`, `gen-${route.next.kind}:${route.next.model}`]);
    const anthropic = fakes.get('anthropic') as AnthropicUpstream;
    await fc.assert(
      fc.asyncProperty(conversationArb, async (turns) => {
        const conversation = new Conversation(format);
        /** Whether a Claude model answered an earlier turn: its thinking block is in the client's history. */
        let claudeAnswered = false;
        for (const [index, turn] of turns.entries()) {
          plan = turn;
          downModel = turn.firstDown ? route.first.model : undefined;
          const droppedBefore = anthropic.dropped.length;
          const sentBefore = new Map([...fakes].map(([kind, fake]) => [kind, fake.requests.length]));
          const result = await conversation.turn(turn).catch((error: unknown) => {
            throw new Error(`turn ${index + 1} of ${JSON.stringify(turns)} failed: ${String((error as Error).message)}`);
          });
          expect(result.status).toBe(200);
          const dropped = anthropic.dropped.slice(droppedBefore);
          // Whatever the upstream left out unsaid is said by the router.
          if (dropped.length) expect(result.warnings, `turn ${index + 1}: ${JSON.stringify(dropped)}`).toContain('reasoning from another model');
          // Another provider cannot read a Claude thinking block at all: the router says what it did with it.
          // Who answered is read from the upstreams, not assumed: a client that names a session (every
          // Gemini one does) stays on the next target after a fallback, as session affinity keeps it.
          const answeredBy = answeringKind(sentBefore) ?? (turn.firstDown ? route.next : route.first).kind;
          if (claudeAnswered && answeredBy !== 'anthropic' && format !== 'chat') expect(result.warnings, `turn ${index + 1}`).toContain('reasoning from another model');
          if (answeredBy === 'anthropic') claudeAnswered = true;
        }
      }),
      { numRuns: 15 },
    );
  });
});
