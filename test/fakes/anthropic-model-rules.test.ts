import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { BINDING_BETA } from './anthropic-model-rules.js';
import { startAnthropicUpstream, type AnthropicUpstream } from './anthropic-upstream.js';
import type { Script } from './scripted-turn.js';

/**
 * The Anthropic fake refuses and drops what the newest models' rows say the API does, by model id,
 * in the vendor pages' words, so every route tested against it meets the rules.
 */

const KEY = 'sk-ant-fake-rules';
const started: AnthropicUpstream[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((fake) => fake.close()));
});

async function fake(script: Script = [{ text: 'ok' }], version = '2023-06-01') {
  const upstream = await startAnthropicUpstream(script, { apiKey: KEY });
  started.push(upstream);
  const client = new Anthropic({ apiKey: KEY, baseURL: upstream.url, maxRetries: 0, defaultHeaders: { 'anthropic-version': version } });
  return { upstream, client };
}

const TOOLS = [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } }];
const ASK = [{ role: 'user' as const, content: 'Weather in Paris?' }];

async function refusal(promise: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    const failed = error as { status: number; error?: { error?: { message?: string } } };
    return { status: failed.status, message: failed.error?.error?.message ?? '' };
  }
  throw new Error('the fake took a request it should refuse');
}

describe('the Anthropic fake, model by model', () => {
  it('refuses a forced tool choice on Opus 5.5, on messages and count_tokens, and takes it on Opus 5', async () => {
    const { client } = await fake();
    for (const tool_choice of [{ type: 'any' as const }, { type: 'tool' as const, name: 'get_weather' }]) {
      expect(await refusal(client.messages.create({ model: 'claude-opus-5-5', max_tokens: 100, tools: TOOLS, tool_choice, messages: ASK }))).toEqual({ status: 400, message: 'tool_choice: type "tool" and "any" are not supported for this model.' });
      expect(await refusal(client.messages.countTokens({ model: 'claude-fable-5-1', tools: TOOLS, tool_choice, messages: ASK }))).toEqual({ status: 400, message: 'tool_choice: type "tool" and "any" are not supported for this model.' });
    }
    await expect(client.messages.create({ model: 'claude-opus-5', max_tokens: 100, tools: TOOLS, tool_choice: { type: 'any' }, messages: ASK })).resolves.toMatchObject({ type: 'message' });
  });

  it('refuses thinking off, and a thinking budget, where the model always thinks adaptively', async () => {
    const { client } = await fake();
    expect(await refusal(client.messages.create({ model: 'claude-opus-5-5', max_tokens: 100, thinking: { type: 'disabled' }, messages: ASK }))).toEqual({
      status: 400,
      message: '"thinking.type.disabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.',
    });
    expect((await refusal(client.messages.create({ model: 'claude-fable-5-1', max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 2048 }, messages: ASK }))).message).toBe(
      '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.',
    );
    await expect(client.messages.create({ model: 'claude-opus-5', max_tokens: 100, thinking: { type: 'disabled' }, messages: ASK })).resolves.toMatchObject({ type: 'message' });
  });

  it('refuses any sampling setting under anthropic-version 2026-10-21, and takes it under 2023-06-01 where the model does', async () => {
    const newer = await fake([{ text: 'ok' }], '2026-10-21');
    expect(await refusal(newer.client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 100, temperature: 1, messages: ASK } as never))).toEqual({ status: 400, message: 'temperature: Extra inputs are not permitted' });
    const older = await fake();
    await expect(older.client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 100, temperature: 0.2, messages: ASK } as never)).resolves.toMatchObject({ type: 'message' });
  });

  it("drops a thinking block the model cannot read, silently, and reports it under the binding beta", async () => {
    const { upstream, client } = await fake([{ reasoning: { text: 'Plan: call the tool.' }, toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } }] }, { text: 'Sunny.' }]);
    const first = await client.messages.create({ model: 'claude-fable-5-1', max_tokens: 1000, tools: TOOLS, messages: ASK });
    const history = [...ASK, { role: 'assistant' as const, content: first.content as never }, { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_1', content: 'sunny' }] }];
    const silent = await client.messages.create({ model: 'claude-opus-5-5', max_tokens: 1000, tools: TOOLS, messages: history });
    expect(silent).not.toHaveProperty('input_transformations');
    expect(upstream.dropped).toEqual([{ path: 'messages.1.content.0', model: 'claude-opus-5-5', writer: 'claude-fable-5-1', request: 1 }]);
    const reported = await client.messages.create({ model: 'claude-opus-5-5', max_tokens: 1000, tools: TOOLS, messages: history }, { headers: { 'anthropic-beta': BINDING_BETA } });
    expect((reported as unknown as { input_transformations: unknown }).input_transformations).toEqual([{ type: 'thinking_dropped', path: 'messages.1.content.0', reason: 'model_binding_mismatch' }]);
    // Fable 5.1 reads its own block: nothing dropped.
    await client.messages.create({ model: 'claude-fable-5-1', max_tokens: 1000, tools: TOOLS, messages: history });
    expect(upstream.dropped).toHaveLength(2);
  });

  it('refuses a bound thinking block replayed after an earlier turn changed, and takes it replayed as it was', async () => {
    const { client } = await fake([{ reasoning: { text: 'Plan.' }, toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } }] }, { text: 'Sunny.' }]);
    const first = await client.messages.create({ model: 'claude-opus-5-5', max_tokens: 1000, tools: TOOLS, messages: ASK });
    const rest = [{ role: 'assistant' as const, content: first.content as never }, { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_1', content: 'sunny' }] }];
    await expect(client.messages.create({ model: 'claude-opus-5-5', max_tokens: 1000, tools: TOOLS, messages: [...ASK, ...rest] })).resolves.toMatchObject({ type: 'message' });
    expect(await refusal(client.messages.create({ model: 'claude-opus-5-5', max_tokens: 1000, tools: TOOLS, messages: [{ role: 'user', content: 'Weather in Lyon?' }, ...rest] }))).toEqual({
      status: 400,
      message: 'messages.1.content.0: The block is bound to a different conversation.',
    });
  });
});
