import type { RecordedRequest } from '../../fakes/fake-server.js';
import type { ScriptedTurn } from '../../fakes/scripted-turn.js';
import type { TestRouter } from '../../helpers/router.js';
import { openResponsesSocket } from '../../helpers/responses-socket.js';
import { parseSse } from '../../helpers/sse-frames.js';
import { autoModeRequest, available } from '../../server/safety-verdicts-support.js';
import { addBackend, SKU, startUpstream, toolNamesOf, type UpstreamKind } from '../support.js';
import type { Agent, Outcome, Route } from './outcomes.js';

/** What a probe is given: the router, and a way to put a fake upstream of the route's type behind SKU. */
export interface ProbeContext {
  router: TestRouter;
  route: Route;
  /** Routes SKU to a fresh fake of the route's type answering `script` (to the offline backend on that route): its requests, or [] offline. */
  upstream(script: ScriptedTurn[]): Promise<RecordedRequest[]>;
  /** Closed once the probe has run. */
  closeLater(close: () => Promise<unknown>): void;
}

export interface Probe {
  agent: Agent;
  feature: string;
  run(context: ProbeContext): Promise<Outcome>;
}

interface Answer {
  status: number;
  headers: Headers;
  json: any;
  /** Stream events' data, parsed (streams only). */
  events: any[];
}

async function post(router: TestRouter, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${router.origin}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${router.key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const streamed = response.headers.get('content-type')?.includes('text/event-stream');
  return {
    status: response.status,
    headers: response.headers,
    json: streamed ? undefined : text ? JSON.parse(text) : undefined,
    events: streamed ? parseSse(text).map((frame) => JSON.parse(frame.data)) : [],
  };
}

const warningsOf = (answer: Answer): string => decodeURIComponent(answer.headers.get('x-svc-warning') ?? '') + JSON.stringify(answer.json?.svc_meta?.warnings ?? []);
const errorOf = (answer: Answer): string => String(answer.json?.error?.message ?? '');
const kindOf = (route: Route): UpstreamKind => route as UpstreamKind;

/** Names the client's field in a refusal or a warning; else the feature went nowhere. */
function refusedOrWarned(answer: Answer, field: RegExp, how: string): Outcome {
  if (answer.status === 400 && field.test(errorOf(answer))) return { by: 'refused', how };
  if (answer.status === 200 && field.test(warningsOf(answer))) return { by: 'warned', how };
  return { by: 'lost', how: `status ${answer.status}` };
}

const schema = (property: string) => ({ type: 'object', properties: { [property]: { type: 'string' } }, required: [property] });

/** Claude Code's features, sent as it sends them on /v1/messages. */
const CLAUDE_CODE: Probe[] = [
  {
    agent: 'Claude Code',
    feature: 'auto mode: a safety verdict per tool call (`safeguards`)',
    async run({ router, route, upstream }) {
      const call = { id: 'toolu_probe', name: 'Bash', arguments: { command: 'npm test' } };
      const extra = route === 'anthropic' ? { anthropicExtra: (ids: string[]) => ({ safeguard_results: available(Object.fromEntries(ids.map((id) => [id, { outcome: 'not_flagged' as const }]))) }) } : {};
      const requests = await upstream([{ toolCalls: [call], ...extra }]);
      const answer = await post(router, '/v1/messages', autoModeRequest(SKU, false), { 'anthropic-beta': 'dangerous-tool-use-2026-09-03' });
      const results = answer.json?.safeguard_results?.[0]?.status;
      if (route === 'anthropic') return requests[0]?.body?.safeguards && results?.type === 'available' ? { by: 'upstream', how: 'its verdicts relayed' } : { by: 'lost' };
      if (requests[0]?.body?.safeguards !== undefined) return { by: 'lost', how: 'sent to an upstream that ignores it' };
      // With a classifier route set the router writes the verdicts (see the auto-mode tests); without one, the answer that has Claude Code ask.
      if (results?.type === 'unavailable' && /safeguards\.classifier/.test(warningsOf(answer))) return { by: 'router', how: 'verdicts from `safeguards.classifier`; none set: Claude Code asks' };
      // The offline backend answers without tool calls: there is nothing to judge, and the router says so.
      if (route === 'offline' && results?.type === 'available') return { by: 'router', how: 'no tool calls to judge' };
      return { by: 'lost', how: JSON.stringify(results) };
    },
  },
  {
    agent: 'Claude Code',
    feature: 'context editing (`context_management.edits`)',
    async run({ router, route, upstream }) {
      const requests = await upstream([{ text: 'Done.' }]);
      const report = `Build log: ${'compiled one more module, '.repeat(40)}`;
      const messages: unknown[] = [{ role: 'user', content: 'Build it three times.' }];
      for (const index of [0, 1, 2]) {
        messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${index}`, name: 'Bash', input: { command: 'make' } }] });
        messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${index}`, content: report }] });
      }
      const context_management = { edits: [{ type: 'clear_tool_uses_20250919', trigger: { type: 'tool_uses', value: 1 }, keep: { type: 'tool_uses', value: 1 } }] };
      const answer = await post(router, '/v1/messages', { model: SKU, max_tokens: 64, tools: [{ name: 'Bash', input_schema: schema('command') }], messages, context_management });
      if (route === 'anthropic') return requests[0]?.body?.context_management ? { by: 'upstream' } : { by: 'lost' };
      const sent = JSON.stringify(requests[0]?.body ?? {});
      const cleared = route === 'offline' || sent.split('compiled one more module').length - 1 === 40;
      return answer.json?.context_management?.applied_edits?.[0]?.cleared_tool_uses === 2 && cleared ? { by: 'router', how: 'applied before translating' } : { by: 'lost' };
    },
  },
  {
    agent: 'Claude Code',
    feature: 'tool search (`defer_loading` tools, `tool_reference` results)',
    async run({ router, route, upstream }) {
      const requests = await upstream([{ text: 'Fetched.' }]);
      const tools = [
        { name: 'Bash', input_schema: schema('command') },
        { name: 'ToolSearch', input_schema: schema('query') },
        { name: 'WebFetch', input_schema: schema('url'), defer_loading: true },
        { name: 'CronList', input_schema: schema('filter'), defer_loading: true },
      ];
      const messages = [
        { role: 'user', content: 'Fetch example.com' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_search', name: 'ToolSearch', input: { query: 'select:WebFetch' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_search', content: [{ type: 'tool_reference', tool_name: 'WebFetch' }] }] },
      ];
      const answer = await post(router, '/v1/messages', { model: SKU, max_tokens: 64, tools, messages });
      if (answer.status !== 200) return { by: 'lost', how: `status ${answer.status}` };
      if (route === 'anthropic') return JSON.stringify(requests[0]?.body?.tools ?? []).includes('defer_loading') ? { by: 'upstream' } : { by: 'lost' };
      if (route === 'offline') return { by: 'router', how: 'deferred tools held back until referenced' };
      const names = toolNamesOf(kindOf(route), requests[0]?.body ?? {});
      return names.join() === 'Bash,ToolSearch,WebFetch' ? { by: 'router', how: 'deferred tools held back until referenced' } : { by: 'lost', how: names.join() };
    },
  },
  {
    agent: 'Claude Code',
    feature: 'web search (`web_search_20250305`)',
    run: (context) => claudeWebSearch(context, false),
  },
  {
    agent: 'Claude Code',
    feature: 'web search with a search target (`routes search`)',
    run: (context) => claudeWebSearch(context, true),
  },
  {
    agent: 'Claude Code',
    feature: 'thinking (`thinking`, `output_config.effort`)',
    async run({ router, route, upstream }) {
      const requests = await upstream([{ text: 'Thought.' }]);
      const answer = await post(router, '/v1/messages', { model: SKU, max_tokens: 2048, thinking: { type: 'adaptive' }, output_config: { effort: 'high' }, messages: [{ role: 'user', content: 'Think.' }] });
      if (answer.status !== 200) return { by: 'lost', how: `status ${answer.status}` };
      const body = requests[0]?.body ?? {};
      switch (route) {
        case 'anthropic':
          return body.thinking ? { by: 'upstream' } : { by: 'lost' };
        case 'openai-chat':
          // Sent to models the catalog knows take it; otherwise named, not guessed at.
          return body.reasoning_effort === 'high' ? { by: 'upstream', how: '`reasoning_effort`' } : refusedOrWarned(answer, /effort/, 'only to models known to reason');
        case 'openai-responses':
          return body.reasoning?.effort === 'high' ? { by: 'upstream', how: '`reasoning.effort`' } : { by: 'lost' };
        case 'gemini':
          return body.generationConfig?.thinkingConfig ? { by: 'upstream', how: '`thinkingConfig`' } : { by: 'lost' };
        case 'offline':
          return { by: 'router', how: 'no model to think' };
      }
    },
  },
  {
    agent: 'Claude Code',
    feature: 'token counting (`/v1/messages/count_tokens`)',
    async run({ router, route, upstream }) {
      await upstream([{ text: 'unused' }]);
      const answer = await post(router, '/v1/messages/count_tokens', { model: SKU, messages: [{ role: 'user', content: 'How long is this?' }] });
      const source = answer.headers.get('x-svc-count-source');
      if (answer.status !== 200 || typeof answer.json?.input_tokens !== 'number') return { by: 'lost', how: `status ${answer.status}` };
      return source === 'upstream' ? { by: 'upstream' } : { by: 'router', how: 'estimated' };
    },
  },
  {
    agent: 'Claude Code',
    feature: 'beta features (`anthropic-beta`)',
    async run({ router, route, upstream }) {
      const requests = await upstream([{ text: 'ok' }]);
      const beta = 'interleaved-thinking-2025-05-14,some-future-feature-2027-01-01';
      const answer = await post(router, '/v1/messages', { model: SKU, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }, { 'anthropic-beta': beta });
      if (route === 'anthropic') return requests[0]?.headers['anthropic-beta'] === beta ? { by: 'upstream', how: 'passed on' } : { by: 'lost' };
      return refusedOrWarned(answer, /some-future-feature-2027-01-01/, 'each beta without a counterpart named');
    },
  },
];

/** Whether the upstream request offered search in that upstream's own form. */
export function offeredSearch(route: Route, body: any): boolean {
  const tools: any[] = body?.tools ?? [];
  if (route === 'anthropic') return tools.some((tool) => /^web_search_/.test(tool.type ?? ''));
  if (route === 'openai-responses') return tools.some((tool) => tool.type === 'web_search');
  if (route === 'gemini') return tools.some((tool) => tool.googleSearch !== undefined || tool.google_search !== undefined);
  return false;
}

/** Names a Gemini backend as the route's search target (`routes search`). */
async function searchTarget(context: ProbeContext): Promise<void> {
  const searcher = await startUpstream('gemini', [{ webSearch: {}, text: 'Two pages say it.' }]);
  context.closeLater(() => searcher.close());
  addBackend(context.router, 'searcher', 'gemini', searcher.url);
  context.router.config.update((settings) => {
    settings.routePolicies[SKU] = { search: 'searcher:gemini-2.5-flash' };
  });
}

/** Claude Code's WebSearch tool sends a request of its own whose one tool is Anthropic's search. */
async function claudeWebSearch(context: ProbeContext, withTarget: boolean): Promise<Outcome> {
  const { router, route, upstream } = context;
  const serves = route === 'openai-chat' || route === 'offline';
  const requests = await upstream(serves && withTarget ? [{ toolCalls: [{ id: 'call_q', name: 'web_search', arguments: { query: 'svc-router' } }] }, { text: 'Found.' }] : [{ webSearch: {}, text: 'Found.' }]);
  if (withTarget) await searchTarget(context);
  try {
    const answer = await post(router, '/v1/messages', { model: SKU, max_tokens: 256, messages: [{ role: 'user', content: 'Perform a web search for the query: svc-router' }], tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }] });
    if (!serves) return offeredSearch(route, requests[0]?.body) && answer.status === 200 ? { by: 'upstream', how: route === 'anthropic' ? undefined : "the provider's own search" } : { by: 'lost', how: `status ${answer.status}` };
    if (!withTarget) return refusedOrWarned(answer, /routes search/, 'names `routes search`');
    if (answer.status !== 200) return { by: 'lost', how: `status ${answer.status}` };
    const searched = (answer.json?.content ?? []).some((block: any) => block.type === 'web_search_tool_result');
    return searched || route === 'offline' ? { by: 'router', how: 'the target searches, the model reads the pages' } : { by: 'lost' };
  } finally {
    router.config.update((settings) => {
      delete settings.routePolicies[SKU];
    });
  }
}

const responsesTool = (name: string) => ({ type: 'function', name, parameters: schema('cmd'), strict: false });

/** Codex's features, sent as it sends them on /v1/responses. */
const CODEX: Probe[] = [
  {
    agent: 'Codex',
    feature: 'reasoning effort (`reasoning.effort`)',
    async run({ router, route, upstream }) {
      const requests = await upstream([{ text: 'Thought.' }]);
      const answer = await post(router, '/v1/responses', { model: SKU, input: 'Think.', reasoning: { effort: 'high', summary: 'auto' }, store: false });
      if (answer.status !== 200) return { by: 'lost', how: `status ${answer.status}` };
      const body = requests[0]?.body ?? {};
      switch (route) {
        case 'anthropic':
          return body.thinking || body.output_config?.effort ? { by: 'upstream', how: '`thinking`' } : { by: 'lost' };
        case 'openai-chat':
          // Sent to models the catalog knows take it; otherwise named, not guessed at.
          return body.reasoning_effort === 'high' ? { by: 'upstream', how: '`reasoning_effort`' } : refusedOrWarned(answer, /effort/, 'only to models known to reason');
        case 'openai-responses':
          return body.reasoning?.effort === 'high' ? { by: 'upstream' } : { by: 'lost' };
        case 'gemini':
          return body.generationConfig?.thinkingConfig ? { by: 'upstream', how: '`thinkingConfig`' } : { by: 'lost' };
        case 'offline':
          return { by: 'router', how: 'no model to think' };
      }
    },
  },
  {
    agent: 'Codex',
    feature: 'tool search (`tool_search`, `defer_loading` functions)',
    async run({ router, route, upstream }) {
      const requests = await upstream([{ text: 'ok' }]);
      const tools = [responsesTool('exec_command'), { type: 'tool_search', execution: 'client', description: 'Searches the deferred tools.', parameters: schema('query') }, { ...responsesTool('send_mail'), defer_loading: true }];
      const answer = await post(router, '/v1/responses', { model: SKU, input: 'Mail Bob.', tools, store: false });
      if (answer.status !== 200) return { by: 'lost', how: `status ${answer.status}` };
      if (route === 'openai-responses') return JSON.stringify(requests[0]?.body?.tools ?? []).includes('defer_loading') ? { by: 'upstream' } : { by: 'lost' };
      if (route === 'offline') return { by: 'router', how: 'search offered as a function, loaded tools sent' };
      const names = toolNamesOf(kindOf(route), requests[0]?.body ?? {});
      return names.join() === 'exec_command,tool_search' ? { by: 'router', how: 'search offered as a function, loaded tools sent' } : { by: 'lost', how: names.join() };
    },
  },
  {
    agent: 'Codex',
    feature: 'web search (`web_search` beside its own tools)',
    async run({ router, route, upstream }) {
      const requests = await upstream([{ text: 'Done.' }]);
      const answer = await post(router, '/v1/responses', { model: SKU, input: 'List the files.', tools: [responsesTool('exec_command'), { type: 'web_search', external_web_access: true }], store: false });
      if (answer.status !== 200) return { by: 'lost', how: `status ${answer.status}` };
      if (route === 'openai-chat' || route === 'offline') return refusedOrWarned(answer, /routes search/, 'search left out, the turn goes on');
      return offeredSearch(route, requests[0]?.body) ? { by: 'upstream', how: route === 'openai-responses' ? undefined : "the provider's own search" } : { by: 'lost' };
    },
  },
  {
    agent: 'Codex',
    feature: 'Responses over WebSocket (`supports_websockets`)',
    async run({ router, upstream }) {
      await upstream([{ text: 'Over the socket.' }]);
      const socket = await openResponsesSocket(router);
      try {
        const events = await socket.create({ model: SKU, input: 'Hello.', store: false });
        return events.at(-1)?.type === 'response.completed' ? { by: 'router', how: 'the socket is served, the upstream called as over HTTP' } : { by: 'lost', how: events.at(-1)?.type };
      } finally {
        socket.ws.close();
      }
    },
  },
  {
    agent: 'Codex',
    feature: 'token counting (`/v1/responses/input_tokens`)',
    async run({ router, upstream }) {
      await upstream([{ text: 'unused' }]);
      const answer = await post(router, '/v1/responses/input_tokens', { model: SKU, input: 'How long is this?' });
      if (answer.status !== 200 || typeof answer.json?.input_tokens !== 'number') return { by: 'lost', how: `status ${answer.status}` };
      return answer.headers.get('x-svc-count-source') === 'upstream' ? { by: 'upstream' } : { by: 'router', how: 'estimated' };
    },
  },
  {
    agent: 'Codex',
    feature: 'compaction (`/v1/responses/compact`)',
    async run({ router, route, upstream }) {
      const requests = await upstream([{ text: 'Summary: the user wants a build.' }]);
      const answer = await post(router, '/v1/responses/compact', { model: SKU, input: [{ role: 'user', content: 'Build it.' }, { role: 'assistant', content: 'Built.' }] });
      if (answer.status !== 200 || answer.json?.object !== 'response.compaction') return { by: 'lost', how: `status ${answer.status}` };
      if (route === 'openai-responses') return requests[0]?.path.endsWith('/responses/compact') ? { by: 'upstream' } : { by: 'lost' };
      return { by: 'router', how: "the route's model writes the summary" };
    },
  },
];

export const PROBES: readonly Probe[] = [...CLAUDE_CODE, ...CODEX];
