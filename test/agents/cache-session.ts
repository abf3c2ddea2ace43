import { startAnthropicUpstream } from '../fakes/anthropic-upstream.js';
import type { FakeUpstream } from '../fakes/fake-server.js';
import { startGeminiUpstream } from '../fakes/gemini-upstream.js';
import { startOpenAIChatUpstream } from '../fakes/openai-chat-upstream.js';
import { startOpenAIResponsesUpstream } from '../fakes/openai-responses-upstream.js';
import type { PromptRecord } from '../fakes/prompt-cache.js';
import type { ScriptedTurn } from '../fakes/scripted-turn.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import type { Cleanups } from './run-agent.js';

/**
 * A scripted agent session against one cache-aware fake upstream: on each request that carries
 * the client's tool, the model asks for the next scripted tool call until every step has its
 * result, then answers. Counting the results the request carries (not the requests seen) keeps a
 * retried request on the same step. Side requests (titles, probes, helper models) get a short answer.
 */

export type CacheRoute = 'anthropic' | 'openai-chat' | 'openai-responses' | 'gemini';
export const CACHE_ROUTES: readonly CacheRoute[] = ['anthropic', 'openai-chat', 'openai-responses', 'gemini'];

export interface ToolStep {
  name: string;
  input: object;
}

export interface SessionScript {
  /** A tool only the main conversation carries, e.g. 'Bash' or 'exec_command'. */
  mainTool: string;
  steps: readonly ToolStep[];
  final: string;
}

/** The upstream model each route serves the session as, and the one side requests go to. */
export const UPSTREAM_MODELS: Record<CacheRoute, { main: string; side: string }> = {
  anthropic: { main: 'claude-sonnet-4-5', side: 'claude-haiku-4-5' },
  'openai-chat': { main: 'gpt-4.1', side: 'gpt-4.1-mini' },
  'openai-responses': { main: 'gpt-5-mini', side: 'gpt-5-nano' },
  gemini: { main: 'gemini-2.5-flash', side: 'gemini-2.5-flash-lite' },
};

export interface CacheUpstream {
  route: CacheRoute;
  url: string;
  fake: FakeUpstream & { prompts: PromptRecord[] };
  /** How many requests the script answered as the main conversation. */
  mainRequests(): number;
  /** The prompt records of the main conversation: the given upstream model, tools on board. */
  mainPrompts(model: string): PromptRecord[];
}

const list = (value: unknown): any[] => (Array.isArray(value) ? value : []);

/** Tool names a request offers, in any of the four wire formats. */
function toolNames(route: CacheRoute, body: any): string[] {
  if (route === 'gemini') return list(body?.tools).flatMap((tool) => list(tool?.functionDeclarations).map((declaration) => declaration?.name));
  return list(body?.tools).map((tool) => tool?.name ?? tool?.function?.name);
}

/** Tool results the conversation so far carries back, in any of the four wire formats. */
function toolResults(route: CacheRoute, body: any): number {
  switch (route) {
    case 'anthropic':
      return list(body?.messages).reduce((sum, message) => sum + list(message?.content).filter((block) => block?.type === 'tool_result').length, 0);
    case 'openai-chat':
      return list(body?.messages).filter((message) => message?.role === 'tool').length;
    case 'openai-responses':
      return list(body?.input).filter((item) => item?.type === 'function_call_output' || item?.type === 'custom_tool_call_output').length;
    case 'gemini':
      return list(body?.contents).reduce((sum, content) => sum + list(content?.parts).filter((part) => part?.functionResponse).length, 0);
  }
}

const callId = (route: CacheRoute, step: number) => (route === 'anthropic' ? `toolu_01CacheSessionStep${step}` : `call_cache_session_${step}`);

/** Starts the route's fake, prompt cache on, following the script; it is closed after the test. */
export async function startCacheSessionUpstream(cleanups: Cleanups, route: CacheRoute, script: SessionScript, mainModels: readonly string[]): Promise<CacheUpstream> {
  let main = 0;
  const turn = (body: any): ScriptedTurn => {
    // Gemini names the model in the URL, not the body: its side requests carry no tools, which is enough.
    const model = route === 'gemini' ? undefined : body?.model;
    if (!toolNames(route, body).includes(script.mainTool) || (model !== undefined && !mainModels.includes(model))) return { text: 'ok' };
    main++;
    const done = toolResults(route, body);
    const step = script.steps[done];
    if (!step) return { text: script.final };
    return { text: `Step ${done + 1}.`, toolCalls: [{ id: callId(route, done + 1), name: step.name, arguments: step.input }] };
  };
  const options = { promptCache: true };
  const fake =
    route === 'anthropic'
      ? await startAnthropicUpstream(turn, options)
      : route === 'openai-chat'
        ? await startOpenAIChatUpstream(turn, options)
        : route === 'openai-responses'
          ? await startOpenAIResponsesUpstream(turn, options)
          : await startGeminiUpstream(turn, options);
  cleanups.push(() => fake.close());
  return {
    route,
    url: fake.url,
    fake,
    mainRequests: () => main,
    mainPrompts: (model) => fake.prompts.filter((prompt) => prompt.model === model && prompt.parts.some((part) => part.kind === 'tool')),
  };
}

/**
 * A router with the fake as its one backend (`up`): `model` (what the client asks for) goes to the
 * route's main upstream model, and every other claude-* or gemini-* name (Claude Code's and Gemini CLI's helper requests) to its
 * side model, so the two never share a cache scope. Closed after the test.
 */
export async function routerInFrontOf(cleanups: Cleanups, upstream: CacheUpstream, model: string): Promise<TestRouter> {
  const router = await startRouter();
  cleanups.push(() => router.close());
  const { main, side } = UPSTREAM_MODELS[upstream.route];
  router.config.update((settings) => {
    settings.backends.up = { type: upstream.route, baseUrl: upstream.url, apiKey: 'sk-cache-session-upstream' };
    settings.routes[model] = [`up:${main}`];
    settings.routes['claude-*'] = [`up:${side}`];
    settings.routes['gemini-*'] = [`up:${side}`];
  });
  return router;
}
