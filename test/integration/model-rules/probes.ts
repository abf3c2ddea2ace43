import type { FakeUpstream, RecordedRequest } from '../../fakes/fake-server.js';
import type { ScriptedTurn } from '../../fakes/scripted-turn.js';
import type { TestRouter } from '../../helpers/router.js';
import { parseSse } from '../../helpers/sse-frames.js';
import { addBackend, setRoute, SKU } from '../support.js';
import type { Cell, Column } from './outcomes.js';

/** What a probe is given: the router, the column's backend type and model, and fakes it may start (closed after). */
export interface ProbeContext {
  router: TestRouter;
  column: Column;
  model: string;
  start(kind: Column, script: ScriptedTurn[] | (() => ScriptedTurn)): Promise<FakeUpstream>;
}

export interface RuleProbe {
  rule: string;
  field: string;
  /** The model each column's route names: one the rule is about where that backend type serves one. */
  models: Record<Column, string>;
  run(context: ProbeContext): Promise<Cell>;
}

interface Answer {
  status: number;
  headers: Headers;
  json: any;
}

async function post(router: TestRouter, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${router.origin}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${router.key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const streamed = response.headers.get('content-type')?.includes('text/event-stream');
  return { status: response.status, headers: response.headers, json: streamed ? parseSse(text).map((frame) => JSON.parse(frame.data)) : text ? JSON.parse(text) : undefined };
}

/** Every warning the client was given: svc_meta's, else `x-svc-warning`'s (joined by " | "; count_tokens has no svc_meta). */
function warningsOf(answer: Answer): string[] {
  const meta: string[] | undefined = answer.json?.svc_meta?.warnings;
  if (meta) return meta;
  const header = answer.headers.get('x-svc-warning');
  return header ? header.split(' | ') : [];
}

/**
 * The cell for an answer: refused when the client got a 4xx naming the rule, adapted when a warning
 * names it, passed when the upstream got the request as sent; lost otherwise.
 */
function measured(model: string, answer: Answer, names: RegExp, sentAsIs: () => boolean): Cell {
  if (answer.status >= 400) {
    const message = String(answer.json?.error?.message ?? '');
    return names.test(message) ? { by: 'refused', model, text: message } : { by: 'lost', model, text: `status ${answer.status}: ${message}` };
  }
  const named = answer.status === 200 ? warningsOf(answer).filter((warning) => names.test(warning)) : [];
  if (named.length) return { by: 'adapted', model, text: named.join(' ') };
  if (answer.status === 200 && sentAsIs()) return { by: 'passed', model };
  return { by: 'lost', model, text: `status ${answer.status}, nothing named` };
}

/** Routes SKU to `model` on a fresh fake of the column's type. */
async function only(context: ProbeContext, script: ScriptedTurn[] | (() => ScriptedTurn) = () => ({ text: 'ok' })): Promise<FakeUpstream> {
  const fake = await context.start(context.column, script);
  addBackend(context.router, 'rule-target', context.column, fake.url);
  setRoute(context.router, SKU, [`rule-target:${context.model}`]);
  return fake;
}

const last = (fake: FakeUpstream): RecordedRequest['body'] => fake.requests.at(-1)?.body ?? {};

const TOOL = { name: 'get_weather', description: 'The weather in a city.', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const ASK = [{ role: 'user', content: 'What is the weather in Paris?' }];

/** The newest model of each backend type, where the column's rule has no other to name. */
const NEWEST: Record<Column, string> = { anthropic: 'claude-opus-5-5', 'openai-responses': 'gpt-5.6', 'openai-chat': 'gpt-5.6', gemini: 'gemini-3-pro-preview' };

/** Whether a forced tool choice reached each upstream in its own shape. */
function forcedUpstream(column: Column, body: any): boolean {
  switch (column) {
    case 'anthropic':
      return body.tool_choice?.type === 'any';
    case 'gemini':
      return body.toolConfig?.functionCallingConfig?.mode === 'ANY';
    default:
      return body.tool_choice === 'required';
  }
}

export const PROBES: RuleProbe[] = [
  {
    rule: 'forced tool choice (`tool_choice: {"type": "any"}`)',
    field: 'forcedToolChoice',
    models: NEWEST,
    async run(context) {
      const fake = await only(context);
      const answer = await post(context.router, '/v1/messages', { model: SKU, max_tokens: 256, tools: [TOOL], tool_choice: { type: 'any' }, messages: ASK });
      return measured(context.model, answer, /tool_choice/, () => forcedUpstream(context.column, last(fake)));
    },
  },
  {
    rule: 'forced tool choice when counting tokens (`/v1/messages/count_tokens`)',
    field: 'forcedToolChoice',
    models: NEWEST,
    async run(context) {
      const fake = await only(context);
      const answer = await post(context.router, '/v1/messages/count_tokens', { model: SKU, tools: [TOOL], tool_choice: { type: 'any' }, messages: ASK });
      // Where the upstream has no count for this (Chat), the router estimates it: the count is still the request's. Gemini's
      // countTokens takes the whole generateContent body as its generateContentRequest.
      const counted = (body: any): any => body.generateContentRequest ?? body;
      return measured(context.model, answer, /tool_choice/, () => typeof answer.json?.input_tokens === 'number' && (fake.requests.length === 0 || forcedUpstream(context.column, counted(last(fake))) || context.column === 'openai-responses'));
    },
  },
  {
    rule: 'thinking turned off (`thinking: {"type": "disabled"}`)',
    field: 'reasoning.canTurnOff',
    models: NEWEST,
    async run(context) {
      const fake = await only(context);
      const answer = await post(context.router, '/v1/messages', { model: SKU, max_tokens: 256, thinking: { type: 'disabled' }, messages: ASK });
      const off: Record<Column, (body: any) => boolean> = {
        anthropic: (body) => body.thinking?.type === 'disabled',
        'openai-responses': (body) => body.reasoning?.effort === 'none',
        'openai-chat': (body) => body.reasoning_effort === 'none',
        gemini: (body) => body.generationConfig?.thinkingConfig?.thinkingBudget === 0,
      };
      return measured(context.model, answer, /thinking|reasoning/, () => off[context.column](last(fake)));
    },
  },
  {
    rule: 'a thinking budget (`thinking: {"type": "enabled", "budget_tokens": 4096}`)',
    field: 'reasoning.budget',
    models: NEWEST,
    async run(context) {
      const fake = await only(context);
      const answer = await post(context.router, '/v1/messages', { model: SKU, max_tokens: 8192, thinking: { type: 'enabled', budget_tokens: 4096 }, messages: ASK });
      const body = last(fake);
      return measured(context.model, answer, /thinking|budget|reasoning/, () => (body.thinking?.budget_tokens ?? body.generationConfig?.thinkingConfig?.thinkingBudget) === 4096);
    },
  },
  {
    rule: 'reasoning summaries asked with no effort (`reasoning: {"summary": "auto"}`, as Codex sends it)',
    field: 'reasoning',
    models: NEWEST,
    async run(context) {
      const fake = await only(context);
      const answer = await post(context.router, '/v1/responses', { model: SKU, input: 'What is the weather in Paris?', reasoning: { summary: 'auto' } });
      const asked: Record<Column, (body: any) => boolean> = {
        anthropic: (body) => body.thinking?.display === 'summarized',
        'openai-responses': (body) => body.reasoning?.summary === 'auto',
        'openai-chat': () => false,
        gemini: (body) => body.generationConfig?.thinkingConfig?.includeThoughts === true,
      };
      return measured(context.model, answer, /summar|reasoning display/, () => asked[context.column](last(fake)));
    },
  },
  {
    rule: 'sampling settings (`temperature: 0.2`)',
    field: 'refusesSampling',
    models: NEWEST,
    async run(context) {
      const fake = await only(context);
      const answer = await post(context.router, '/v1/messages', { model: SKU, max_tokens: 256, temperature: 0.2, messages: ASK });
      return measured(context.model, answer, /temperature/, () => (last(fake).temperature ?? last(fake).generationConfig?.temperature) === 0.2);
    },
  },
  {
    rule: 'sampling settings under API version 2026-10-21 (`temperature: 0.2`, `anthropic-version: 2026-10-21`)',
    field: 'samplingRefusedFrom',
    // Models that take temperature under earlier versions: the version is the rule.
    models: { anthropic: 'claude-sonnet-4-5', 'openai-responses': 'gpt-4.1', 'openai-chat': 'gpt-4.1', gemini: 'gemini-2.5-flash' },
    async run(context) {
      const fake = await only(context);
      const answer = await post(context.router, '/v1/messages', { model: SKU, max_tokens: 256, temperature: 0.2, messages: ASK }, { 'anthropic-version': '2026-10-21' });
      return measured(context.model, answer, /temperature/, () => (last(fake).temperature ?? last(fake).generationConfig?.temperature) === 0.2);
    },
  },
  {
    rule: "a conversation ending with the assistant's words (a prefill)",
    field: 'prefill',
    models: NEWEST,
    async run(context) {
      const fake = await only(context);
      const answer = await post(context.router, '/v1/messages', { model: SKU, max_tokens: 256, messages: [...ASK, { role: 'assistant', content: 'It is' }] });
      const endsWithAssistant = (): boolean => {
        const body = last(fake);
        const turns = body.messages ?? body.input ?? body.contents ?? [];
        const final = turns.at(-1);
        return final?.role === 'assistant' || final?.role === 'model';
      };
      return measured(context.model, answer, /prefill|assistant/, endsWithAssistant);
    },
  },
  {
    rule: "thinking another model wrote (Claude Fable 5.1's, replayed)",
    field: 'reasoningReads',
    models: NEWEST,
    async run(context) {
      // The first turn is Fable 5.1's, on an Anthropic fake (the column's own, where it is one).
      const writer = await context.start('anthropic', () => ({ reasoning: { text: 'Paris is in France; look it up.' }, text: 'Let me check.' }));
      addBackend(context.router, 'writer', 'anthropic', writer.url);
      setRoute(context.router, SKU, ['writer:claude-fable-5-1']);
      const first = await post(context.router, '/v1/messages', { model: SKU, max_tokens: 2048, messages: ASK });
      const fake = context.column === 'anthropic' ? writer : await context.start(context.column, () => ({ text: 'ok' }));
      addBackend(context.router, 'rule-target', context.column, fake.url);
      setRoute(context.router, SKU, [`rule-target:${context.model}`]);
      const answer = await post(context.router, '/v1/messages', { model: SKU, max_tokens: 2048, messages: [...ASK, { role: 'assistant', content: first.json.content }, { role: 'user', content: 'And tomorrow?' }] });
      const signature = first.json.content.find((block: any) => block.type === 'thinking')?.signature as string;
      return measured(context.model, answer, /another model|reasoning|thinking/, () => JSON.stringify(last(fake)).includes(signature));
    },
  },
  {
    rule: 'a refusal, the client asking for fallbacks (`fallbacks: "default"`)',
    field: 'serverFallbacks',
    models: { ...NEWEST, anthropic: 'claude-fable-5-1' },
    async run(context) {
      const refusal: ScriptedTurn = { anthropicStop: { reason: 'refusal' }, anthropicExtra: { stop_details: { type: 'refusal', category: 'cyber', explanation: 'Declined.' } }, usage: { input: 10, output: 0 } };
      const body = { model: SKU, max_tokens: 256, messages: ASK, fallbacks: 'default' };
      if (context.column === 'anthropic') {
        // The model runs the fallback itself: the request reaches it with the field and its beta.
        const fake = await only(context, [{ text: 'Answered by the fallback model.' }]);
        const answer = await post(context.router, '/v1/messages', body, { 'anthropic-beta': 'server-side-fallback-2026-07-01' });
        return measured(context.model, answer, /fallback/, () => last(fake).fallbacks === 'default' && String(fake.requests.at(-1)?.headers['anthropic-beta']).includes('server-side-fallback-2026-07-01'));
      }
      // A Claude model that takes no server-side fallback declines first; the router moves to the column's model.
      const declines = await context.start('anthropic', [refusal]);
      addBackend(context.router, 'declines', 'anthropic', declines.url);
      const fake = await context.start(context.column, () => ({ text: 'Answered by the next target.' }));
      addBackend(context.router, 'rule-target', context.column, fake.url);
      setRoute(context.router, SKU, ['declines:claude-opus-4-8', `rule-target:${context.model}`]);
      const answer = await post(context.router, '/v1/messages', body);
      return measured(context.model, answer, /declined/, () => false);
    },
  },
  {
    rule: 'explicit prompt-cache breakpoints (`prompt_cache_breakpoint`, `prompt_cache_options`)',
    field: 'promptCacheBreakpoints',
    models: NEWEST,
    async run(context) {
      const fake = await only(context);
      const marked = { type: 'input_text', text: 'A long, stable instruction.', prompt_cache_breakpoint: { mode: 'explicit' } };
      const answer = await post(context.router, '/v1/responses', { model: SKU, input: [{ role: 'user', content: [marked] }], prompt_cache_options: { mode: 'explicit' } });
      return measured(context.model, answer, /prompt_cache/, () => JSON.stringify(last(fake)).includes('"prompt_cache_breakpoint"'));
    },
  },
  {
    rule: 'prompt-cache diagnostics (`prompt_cache_options.comparison_response_id`)',
    field: 'promptCacheDiagnostics',
    models: NEWEST,
    async run(context) {
      await only(context);
      const answer = await post(context.router, '/v1/responses', { model: SKU, input: 'hello', prompt_cache_options: { comparison_response_id: 'resp_earlier' } });
      return measured(context.model, answer, /comparison_response_id|prompt_cache_diagnostics/, () => answer.json?.prompt_cache_diagnostics !== undefined);
    },
  },
];
