import { expect } from 'vitest';
import { readToolCallId } from '../../src/backends/gemini/tool-call-id.js';
import type { BackendType } from '../../src/config/settings.js';
import type { SvcMeta } from '../../src/formats/client-format.js';
import { startAnthropicUpstream } from '../fakes/anthropic-upstream.js';
import type { FakeServerOptions, FakeUpstream, RecordedRequest } from '../fakes/fake-server.js';
import { startGeminiUpstream } from '../fakes/gemini-upstream.js';
import { startOpenAIChatUpstream } from '../fakes/openai-chat-upstream.js';
import { startOpenAIResponsesUpstream } from '../fakes/openai-responses-upstream.js';
import type { Script } from '../fakes/scripted-turn.js';
import type { TestRouter } from '../helpers/router.js';

export { parseSse } from '../helpers/sse-frames.js';
export { closedPortUrl } from '../helpers/unused-port.js';

/**
 * Every backend type, each with a fake upstream: the first three are forwarded to a client of their
 * own format and translated for the others; Gemini is forwarded only to a Gemini client
 * (test/integration/gemini-door-over-backends.test.ts), which these matrices do not include.
 */
export const UPSTREAM_KINDS = ['openai-chat', 'anthropic', 'openai-responses', 'gemini'] as const satisfies readonly BackendType[];
export type UpstreamKind = (typeof UPSTREAM_KINDS)[number];

/** The kinds a client format's own upstream may be: a request to one of these is forwarded when the client speaks its format. */
export const FORWARDING_KINDS = ['openai-chat', 'anthropic', 'openai-responses'] as const satisfies readonly UpstreamKind[];

/** The key each fake demands; the router must present it. */
export const UPSTREAM_KEY = 'sk-fake-upstream-0123';

/** The SKU these tests route; each test points it where it needs. */
export const SKU = 'svc.intelligent-basic';

export async function startUpstream(kind: UpstreamKind, script: Script, options: FakeServerOptions & { apiKey?: string } = {}): Promise<FakeUpstream> {
  const withKey = { apiKey: UPSTREAM_KEY, ...options };
  switch (kind) {
    case 'openai-chat':
      return startOpenAIChatUpstream(script, withKey);
    case 'anthropic':
      return startAnthropicUpstream(script, withKey);
    case 'openai-responses':
      return startOpenAIResponsesUpstream(script, withKey);
    case 'gemini':
      // Calls with Gemini's own ids, as newer API versions give them, so a round trip has an id to keep.
      return startGeminiUpstream(script, { callIds: true, ...withKey });
  }
}

/**
 * The id the upstream gave a call, as named by the id the client got for it: the same id, except
 * over Gemini, whose calls get ids of the router's own that carry Gemini's (and its thought
 * signature) between turns (src/backends/gemini/tool-call-id.ts).
 */
export const upstreamCallId = (kind: UpstreamKind | 'offline', clientId: string): string => (kind === 'gemini' ? (readToolCallId(clientId).upstreamId ?? clientId) : clientId);

/** The names of the functions an upstream request offered, in that upstream's own shape. */
export function toolNamesOf(kind: UpstreamKind, body: any): string[] {
  if (kind === 'gemini') return (body.tools ?? []).flatMap((tool: any) => (tool.functionDeclarations ?? []).map((declaration: any) => declaration.name));
  return (body.tools ?? []).map((tool: any) => tool.name ?? tool.function?.name);
}

/** The most output tokens an upstream request allowed, in that upstream's own field for it. */
export const maxOutputTokensOf = (kind: UpstreamKind, body: any): number | undefined =>
  kind === 'gemini' ? body.generationConfig?.maxOutputTokens : (body.max_output_tokens ?? body.max_tokens ?? body.max_completion_tokens);

/** The model a request to an upstream named: in the body, or (Gemini) in the path. */
export const upstreamModelOf = (request: RecordedRequest): string | undefined =>
  typeof request.body?.model === 'string' ? request.body.model : /\/models\/([^/:]+):/.exec(request.path)?.[1];

/** Whether a request to an upstream asked for a stream: `stream: true`, or (Gemini) the streaming method. */
export const streamedUpstream = (request: RecordedRequest): boolean => request.body?.stream === true || request.path.includes(':streamGenerateContent');

/** Registers a backend for a fake (or any URL) and returns its name. */
export function addBackend(router: TestRouter, name: string, type: BackendType, baseUrl: string, apiKey = UPSTREAM_KEY): string {
  router.config.update((settings) => {
    settings.backends[name] = { type, baseUrl, apiKey };
  });
  return name;
}

export function setRoute(router: TestRouter, model: string, targets: string[]): void {
  router.config.update((settings) => {
    settings.routes[model] = targets;
  });
}

/** Starts fakes and closes them after each test. */
export class Fakes {
  private readonly open: FakeUpstream[] = [];

  async start(kind: UpstreamKind, script: Script, options?: FakeServerOptions & { apiKey?: string }): Promise<FakeUpstream> {
    const fake = await startUpstream(kind, script, options);
    this.open.push(fake);
    return fake;
  }

  /** Starts a fake of this kind and routes the SKU to it under a renamed upstream model. */
  async routeSku(router: TestRouter, kind: UpstreamKind, script: Script, options?: FakeServerOptions) {
    const fake = await this.start(kind, script, options);
    const backend = addBackend(router, `up-${kind}`, kind, fake.url);
    const upstreamModel = `model-for-${kind}`;
    setRoute(router, SKU, [`${backend}:${upstreamModel}`]);
    return { fake, backend, upstreamModel };
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.open.splice(0).map((fake) => fake.close()));
  }
}

export const metaOf = (body: unknown): SvcMeta => {
  const meta = (body as { svc_meta?: SvcMeta }).svc_meta;
  expect(meta, 'svc_meta').toBeDefined();
  return meta!;
};

/** The tool every tool-loop test offers: one required string argument. */
export const WEATHER_SCHEMA: { type: 'object'; properties: Record<string, unknown>; required: string[]; additionalProperties: boolean } = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
};

export interface ToolExchange {
  /** The assistant's calls as the upstream saw them replayed: id, name, parsed arguments. */
  calls: Array<{ id: string; name: string; args: unknown }>;
  /** The results sent for them: call id and text. */
  results: Array<{ id: string; output: string }>;
}

/**
 * Reads the replayed tool calls and their results out of an upstream request body, checking that
 * each is in that upstream's own shape: `tool_calls` plus role `tool` messages for Chat, `tool_use`
 * blocks plus a user turn opening with `tool_result` blocks for Anthropic, `function_call` plus
 * `function_call_output` items for Responses.
 */
export function toolExchangeOf(kind: UpstreamKind, body: any): ToolExchange {
  const exchange: ToolExchange = { calls: [], results: [] };
  switch (kind) {
    case 'openai-chat':
      for (const message of body.messages) {
        if (message.role === 'assistant') {
          for (const call of message.tool_calls ?? []) {
            expect(call).toMatchObject({ type: 'function', id: expect.any(String), function: { name: expect.any(String), arguments: expect.any(String) } });
            exchange.calls.push({ id: call.id, name: call.function.name, args: JSON.parse(call.function.arguments) });
          }
        } else if (message.role === 'tool') {
          expect(message).toMatchObject({ tool_call_id: expect.any(String) });
          exchange.results.push({ id: message.tool_call_id, output: textContent(message.content) });
        }
      }
      break;
    case 'anthropic': {
      const messages = body.messages as Array<{ role: string; content: any }>;
      messages.forEach((message, index) => {
        const blocks: any[] = typeof message.content === 'string' ? [] : message.content;
        if (message.role === 'assistant') {
          for (const block of blocks.filter((b) => b.type === 'tool_use')) {
            exchange.calls.push({ id: block.id, name: block.name, args: block.input });
            // Anthropic demands the results in the very next user turn.
            expect(messages[index + 1]?.role).toBe('user');
          }
        } else {
          const results = blocks.filter((b) => b.type === 'tool_result');
          // Tool results must lead their user turn.
          expect(blocks.slice(0, results.length).every((b) => b.type === 'tool_result')).toBe(true);
          for (const block of results) exchange.results.push({ id: block.tool_use_id, output: textContent(block.content) });
        }
      });
      break;
    }
    case 'openai-responses':
      for (const item of body.input) {
        if (item.type === 'function_call') exchange.calls.push({ id: item.call_id, name: item.name, args: JSON.parse(item.arguments) });
        else if (item.type === 'function_call_output') exchange.results.push({ id: item.call_id, output: item.output });
      }
      break;
    case 'gemini':
      // A call and its result carry Gemini's id (when it gave one) and the function's name.
      for (const content of body.contents) {
        for (const part of content.parts) {
          if (part.functionCall) {
            expect(content.role).toBe('model');
            exchange.calls.push({ id: part.functionCall.id, name: part.functionCall.name, args: part.functionCall.args });
          } else if (part.functionResponse) {
            expect(content.role).toBe('user');
            const response = part.functionResponse.response;
            exchange.results.push({ id: part.functionResponse.id, output: typeof response?.output === 'string' ? response.output : JSON.stringify(response) });
          }
        }
      }
      break;
  }
  return exchange;
}

function textContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part: { type?: string; text?: string }) => (part.type === 'text' ? (part.text ?? '') : '')).join('');
  return '';
}

/** The last user text an upstream request carried, whatever its format. */
export function lastUserText(kind: UpstreamKind, body: any): string {
  const list: any[] = kind === 'openai-responses' ? body.input : kind === 'gemini' ? body.contents.map((content: any) => ({ role: content.role, content: content.parts })) : body.messages;
  const user = [...list].reverse().find((message) => message.role === 'user');
  return textContent(typeof user?.content === 'string' ? user.content : (user?.content ?? []).map((part: any) => ({ type: 'text', text: part.text ?? '' })));
}

/** The system prompt an upstream request carried, in that upstream's own place for it. */
export function systemTextOf(kind: UpstreamKind, body: any): string | undefined {
  switch (kind) {
    case 'openai-chat': {
      const first = body.messages[0];
      return first?.role === 'system' || first?.role === 'developer' ? textContent(first.content) : undefined;
    }
    case 'anthropic':
      return typeof body.system === 'string' ? body.system : Array.isArray(body.system) ? textContent(body.system) : undefined;
    case 'openai-responses':
      return body.instructions;
    case 'gemini':
      return body.systemInstruction ? textContent(body.systemInstruction.parts.map((part: any) => ({ type: 'text', text: part.text ?? '' }))) : undefined;
  }
}

/**
 * Asserts the upstream got exactly one plain (non-streamed) request for `upstreamModel`, with the
 * system prompt "Be brief." and the user's "Say hello", presenting the backend's key, never the client's.
 */
export function expectOneBriefRequestUpstream(kind: UpstreamKind, fake: FakeUpstream, upstreamModel: string, clientKey: string): void {
  expect(fake.requests).toHaveLength(1);
  const sent = fake.requests[0]!;
  expect(upstreamModelOf(sent)).toBe(upstreamModel);
  expect(streamedUpstream(sent)).toBe(false);
  expect(systemTextOf(kind, sent.body)).toBe('Be brief.');
  expect(lastUserText(kind, sent.body)).toBe('Say hello');
  expect(JSON.stringify(sent.headers)).toContain(UPSTREAM_KEY);
  expect(JSON.stringify(sent.headers)).not.toContain(clientKey);
}

/** Asserts the tool results reached the upstream in its own format, matched to their call ids. */
export function expectToolResultsUpstream(kind: UpstreamKind, body: any, results: Array<{ id: string; output: string }>): void {
  switch (kind) {
    case 'openai-chat':
      expect(body.messages).toEqual(
        expect.arrayContaining(results.map((result) => expect.objectContaining({ role: 'tool', tool_call_id: result.id }))),
      );
      break;
    case 'anthropic':
      expect(body.messages).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            role: 'user',
            content: expect.arrayContaining(results.map((result) => expect.objectContaining({ type: 'tool_result', tool_use_id: result.id }))),
          }),
        ]),
      );
      break;
    case 'openai-responses':
      expect(body.input).toEqual(
        expect.arrayContaining(results.map((result) => expect.objectContaining({ type: 'function_call_output', call_id: result.id, output: result.output }))),
      );
      break;
    case 'gemini':
      // Gemini matches a result to its call by the call's id: the one it gave, not the client's.
      expect(body.contents).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            role: 'user',
            parts: expect.arrayContaining(results.map((result) => ({ functionResponse: expect.objectContaining({ id: upstreamCallId(kind, result.id), response: { output: result.output } }) }))),
          }),
        ]),
      );
      break;
  }
  expect(toolExchangeOf(kind, body).results).toEqual(results.map((result) => ({ ...result, id: upstreamCallId(kind, result.id) })));
}
