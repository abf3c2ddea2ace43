import { expect } from 'vitest';
import type { BackendType } from '../../src/config/settings.js';
import type { SvcMeta } from '../../src/formats/client-format.js';
import { startAnthropicUpstream } from '../fakes/anthropic-upstream.js';
import type { FakeServerOptions, FakeUpstream } from '../fakes/fake-server.js';
import { startOpenAIChatUpstream } from '../fakes/openai-chat-upstream.js';
import { startOpenAIResponsesUpstream } from '../fakes/openai-responses-upstream.js';
import type { Script } from '../fakes/scripted-turn.js';
import type { TestRouter } from '../helpers/router.js';

export { parseSse } from '../helpers/sse-frames.js';
export { closedPortUrl } from '../helpers/unused-port.js';

/** Every backend type that has a fake upstream. */
export const UPSTREAM_KINDS = ['openai-chat', 'anthropic', 'openai-responses'] as const satisfies readonly BackendType[];
export type UpstreamKind = (typeof UPSTREAM_KINDS)[number];

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
  }
}

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
  const list: any[] = kind === 'openai-responses' ? body.input : body.messages;
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
  }
}

/**
 * Asserts the upstream got exactly one plain (non-streamed) request for `upstreamModel`, with the
 * system prompt "Be brief." and the user's "Say hello", presenting the backend's key, never the client's.
 */
export function expectOneBriefRequestUpstream(kind: UpstreamKind, fake: FakeUpstream, upstreamModel: string, clientKey: string): void {
  expect(fake.requests).toHaveLength(1);
  const sent = fake.requests[0]!;
  expect(sent.body.model).toBe(upstreamModel);
  expect(sent.body.stream ?? false).toBe(false);
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
  }
  expect(toolExchangeOf(kind, body).results).toEqual(results);
}
