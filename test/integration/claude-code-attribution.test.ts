import Anthropic from '@anthropic-ai/sdk';
import type { TextBlockParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { encodeAnthropicRequest } from '../../src/backends/anthropic/encode-request.js';
import { decodeMessagesRequest } from '../../src/formats/messages/decode-request.js';
import type { RecordedRequest } from '../fakes/fake-server.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { Fakes, SKU, UPSTREAM_KINDS, WEATHER_SCHEMA, type UpstreamKind } from './support.js';

/**
 * Claude Code (2.1.197 through 2.1.337) opens its system prompt with an attribution line whose
 * suffix follows the session's first prompt: the same within a session, different between two.
 * Anthropic gets it as sent; every other upstream's prompt starts at the system prompt proper, so
 * two sessions share their system-and-tools prefix there as they would going direct.
 */

const attribution = (suffix: string) => `x-anthropic-billing-header: cc_version=2.1.337.${suffix}; cc_entrypoint=sdk-cli;`;
const SYSTEM_PROMPT = "You are a Claude agent, built on Anthropic's Claude Agent SDK. Follow the user's instructions.";
const TOOLS: Tool[] = [{ name: 'get_weather', description: 'Current weather for a city', input_schema: { ...WEATHER_SCHEMA } }];

const claudeCodeSystem = (suffix: string): TextBlockParam[] => [
  { type: 'text', text: attribution(suffix) },
  { type: 'text', text: SYSTEM_PROMPT, cache_control: { type: 'ephemeral' } },
];

let router: TestRouter;
let client: Anthropic;
const fakes = new Fakes();

beforeAll(async () => {
  router = await startRouter();
  client = new Anthropic({ apiKey: router.key, baseURL: router.origin, maxRetries: 0 });
});
afterEach(() => fakes.closeAll());
afterAll(() => router.close());

/** What an upstream request puts before the conversation: its system prompt and tools, in its own shape. */
function prefixOf(kind: UpstreamKind, request: RecordedRequest): string {
  const body = request.body;
  const system = kind === 'anthropic' ? body.system : kind === 'openai-chat' ? body.messages[0] : kind === 'openai-responses' ? body.instructions : body.systemInstruction;
  return JSON.stringify({ system, tools: body.tools });
}

describe.each(UPSTREAM_KINDS)('Claude Code attribution line over an %s backend', (kind) => {
  it(kind === 'anthropic' ? 'reaches Anthropic first and unchanged' : 'stays out of the prompt, so two sessions share their prefix', async () => {
    const { fake } = await fakes.routeSku(router, kind, [{ text: 'one' }, { text: 'two' }]);
    for (const [suffix, prompt] of [['be9', 'say hello'], ['7f1', 'write the proof file']] as const) {
      await client.messages.create({ model: SKU, max_tokens: 256, system: claudeCodeSystem(suffix), tools: TOOLS, messages: [{ role: 'user', content: prompt }] });
    }
    const [first, second] = fake.requests;
    if (kind === 'anthropic') {
      expect(first!.body.system).toEqual(claudeCodeSystem('be9'));
      expect(second!.body.system).toEqual(claudeCodeSystem('7f1'));
      return;
    }
    expect(JSON.stringify(first!.body)).not.toContain('x-anthropic-billing-header');
    expect(JSON.stringify(first!.body)).toContain(SYSTEM_PROMPT);
    expect(prefixOf(kind, second!)).toBe(prefixOf(kind, first!));
  });
});

describe('the Anthropic encoder, translating rather than forwarding', () => {
  it('puts the attribution line back first, the system prompt byte for byte as the client sent it', () => {
    const body = { model: 'claude-sonnet-4-5', max_tokens: 64, system: claudeCodeSystem('936'), messages: [{ role: 'user', content: 'hi' }] };
    const { request } = decodeMessagesRequest(body);
    expect(request.system.map((part) => part.text)).toEqual([SYSTEM_PROMPT]);
    delete request.forwardBody;
    expect(encodeAnthropicRequest(request, 'claude-sonnet-4-5', false).system).toEqual(claudeCodeSystem('936'));
  });

  it('leaves a line that only looks like one in place when it is not first or carries a breakpoint', () => {
    const marked = [{ type: 'text' as const, text: attribution('abc'), cache_control: { type: 'ephemeral' as const } }, { type: 'text' as const, text: SYSTEM_PROMPT }];
    const later = [{ type: 'text' as const, text: SYSTEM_PROMPT }, { type: 'text' as const, text: attribution('abc') }];
    for (const system of [marked, later]) {
      const { request } = decodeMessagesRequest({ model: 'm', max_tokens: 64, system, messages: [{ role: 'user', content: 'hi' }] });
      expect(request.system.map((part) => part.text)).toEqual(system.map((block) => block.text));
    }
  });
});
