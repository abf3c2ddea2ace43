import { startAnthropicUpstream } from '../fakes/anthropic-upstream.js';
import type { FakeUpstream, RecordedRequest } from '../fakes/fake-server.js';
import { startGeminiUpstream } from '../fakes/gemini-upstream.js';
import { startOpenAIChatUpstream } from '../fakes/openai-chat-upstream.js';
import { startOpenAIResponsesUpstream } from '../fakes/openai-responses-upstream.js';
import type { ScriptedTurn } from '../fakes/scripted-turn.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import type { Cleanups } from './run-agent.js';

/**
 * What a scripted upstream model does on the requests that carry the client's shell tool: ask for
 * one call, then give the final answer once the call's result comes back. Anything else (titles,
 * quota probes, helper models) gets a short side answer.
 */
export interface ShellToolScript {
  /** The client's shell tool, e.g. 'Bash' or 'exec_command'. */
  tool: string;
  callId: string;
  /** The tool call's arguments. */
  input: object;
  final: string;
  /** When set, only requests for this model are scripted; the rest get the side answer. */
  model?: string;
  /** Anthropic only: signed thinking before the call and before the final answer. */
  reasoning?: { call: ScriptedTurn['reasoning']; answer: ScriptedTurn['reasoning'] };
}

export type UpstreamKind = 'anthropic' | 'openai-chat' | 'openai-responses' | 'gemini';

const sideAnswer: ScriptedTurn = { text: 'ok' };

function isMainRequest(script: ShellToolScript, body: { tools?: unknown; model: string }): boolean {
  return hasTool(body.tools, script.tool) && (script.model === undefined || body.model === script.model);
}

/** Starts a fake upstream of the given kind that follows the script; it is closed after the test. */
export async function startShellToolUpstream(cleanups: Cleanups, kind: UpstreamKind, script: ShellToolScript): Promise<FakeUpstream> {
  const call = { id: script.callId, name: script.tool, arguments: script.input };
  const upstream =
    kind === 'anthropic'
      ? await startAnthropicUpstream((body) => {
          if (!isMainRequest(script, body)) return sideAnswer;
          if (!lastUserToolResultIds(body.messages).includes(script.callId)) {
            return { reasoning: script.reasoning?.call, toolCalls: [call] };
          }
          return { reasoning: script.reasoning?.answer, text: script.final };
        })
      : kind === 'gemini'
        ? await startGeminiUpstream((body) => {
            if (!hasTool(body.tools, script.tool)) return sideAnswer;
            const contents: any[] = Array.isArray(body.contents) ? body.contents : [];
            const answered = contents.some((content) => content?.parts?.some((part: any) => part?.functionResponse?.name === script.tool));
            if (!answered) return { toolCalls: [call] };
            return { text: script.final };
          })
      : kind === 'openai-responses'
        ? await startOpenAIResponsesUpstream((body) => {
            if (!isMainRequest(script, body as { tools?: unknown; model: string })) return sideAnswer;
            const input = Array.isArray(body.input) ? body.input : [];
            const answered = input.some((item: any) => item?.type === 'function_call_output' && item.call_id === script.callId);
            if (!answered) return { toolCalls: [call] };
            return { text: script.final };
          })
        : await startOpenAIChatUpstream((body) => {
          if (!isMainRequest(script, body)) return sideAnswer;
          const answered = body.messages.some((message) => message.role === 'tool' && message.tool_call_id === script.callId);
          if (!answered) return { toolCalls: [call] };
          return { text: script.final };
        });
  cleanups.push(() => upstream.close());
  return upstream;
}

/**
 * A router with the upstream as its one backend, named `anth` (Anthropic), `oa` (OpenAI Chat), `oar` (OpenAI Responses)
 * or `gem` (Gemini), and the given routes; it is closed after the test.
 */
export async function routerFor(cleanups: Cleanups, upstream: FakeUpstream, kind: UpstreamKind, routes: Record<string, string[]>): Promise<TestRouter> {
  const router = await startRouter();
  cleanups.push(() => router.close());
  router.config.update((settings) => {
    if (kind === 'anthropic') settings.backends.anth = { type: 'anthropic', baseUrl: upstream.url, apiKey: 'k' };
    else if (kind === 'openai-responses') settings.backends.oar = { type: 'openai-responses', baseUrl: upstream.url, apiKey: 'k' };
    else if (kind === 'gemini') settings.backends.gem = { type: 'gemini', baseUrl: upstream.url, apiKey: 'k' };
    else settings.backends.oa = { type: 'openai-chat', baseUrl: upstream.url, apiKey: 'k' };
    Object.assign(settings.routes, routes);
  });
  return router;
}

export function hasTool(tools: unknown, name: string): boolean {
  return (
    Array.isArray(tools) &&
    tools.some((tool: any) => tool?.name === name || tool?.function?.name === name || tool?.functionDeclarations?.some((declaration: any) => declaration?.name === name))
  );
}

export function lastUserMessage(messages: any[]): any {
  return messages.findLast((message) => message.role === 'user');
}

/** tool_use_ids answered by tool_result blocks in the last user message. */
export function lastUserToolResultIds(messages: any[]): string[] {
  const content = lastUserMessage(messages)?.content;
  if (!Array.isArray(content)) return [];
  return content.filter((block: any) => block?.type === 'tool_result').map((block: any) => block.tool_use_id);
}

/** Every request the upstream received, numbered and summarised, for assertion messages. */
export function describeRequests(upstream: FakeUpstream): string {
  const requests = upstream.requests.map((request, index) => `#${index} ${request.method} ${request.path}\n${summarise(request)}`).join('\n');
  return `--- ${upstream.requests.length} upstream request(s) ---\n${requests}`;
}

/** The request without its long system prompt and tool schemas. */
function summarise(request: RecordedRequest): string {
  const body = request.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return String(body);
  const brief: Record<string, unknown> = { ...body };
  if (Array.isArray(body.tools)) brief.tools = body.tools.map((tool: any) => tool.name ?? tool.function?.name);
  if (body.system !== undefined) brief.system = `${JSON.stringify(body.system).length} chars`;
  if (Array.isArray(body.messages)) {
    brief.messages = body.messages.map((message: any) =>
      message.role === 'system' ? { role: 'system', content: `${JSON.stringify(message.content).length} chars` } : message,
    );
  }
  return JSON.stringify(brief, (_key, value: unknown) => (typeof value === 'string' && value.length > 400 ? `${value.slice(0, 400)}…` : value), 1);
}
