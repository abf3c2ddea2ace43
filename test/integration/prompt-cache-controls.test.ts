import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/fake-server.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { addBackend, Fakes, metaOf, setRoute, SKU, type UpstreamKind } from './support.js';

/**
 * OpenAI's explicit prompt-cache controls (GPT-5.6 and later): a client's `prompt_cache_breakpoint`
 * and `prompt_cache_options` reach a target whose model and host take them, in that target's own
 * shape, and are left out and named everywhere else (the fakes refuse them where the catalog row
 * says the model does). Diagnostics a Responses upstream gives reach a Responses client in
 * `prompt_cache_diagnostics` and every other client named in its warnings.
 */

let router: TestRouter;
let openai: OpenAI;
let anthropic: Anthropic;
const fakes = new Fakes();

beforeAll(async () => {
  router = await startRouter();
  openai = new OpenAI({ apiKey: router.key, baseURL: router.baseURL, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: router.key, baseURL: router.origin, maxRetries: 0 });
});
afterEach(() => fakes.closeAll());
afterAll(() => router.close());

const BREAKPOINT = { mode: 'explicit' } as const;
const OPTIONS = { mode: 'explicit', ttl: '30m' } as const;

/** One target, its fake answering every turn with text. */
async function target(kind: UpstreamKind, model: string, profile?: 'groq' | 'openrouter') {
  const fake = await fakes.start(kind, () => ({ text: 'ok' }));
  addBackend(router, 'up', kind, fake.url);
  if (profile) router.config.update((settings) => void (settings.backends.up!.profile = profile));
  setRoute(router, SKU, [`up:${model}`]);
  return fake;
}

/** Every breakpoint a recorded upstream body holds, wherever it sits. */
function breakpointsIn(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(breakpointsIn);
  if (typeof value !== 'object' || value === null) return [];
  const own = (value as Record<string, unknown>).prompt_cache_breakpoint;
  return [...(own === undefined ? [] : [own]), ...Object.values(value).flatMap(breakpointsIn)];
}

const lastBody = (fake: { requests: RecordedRequest[] }): Record<string, any> => fake.requests.at(-1)!.body as Record<string, any>;

async function chatWithBreakpoint() {
  const reply = await openai.chat.completions.create({
    model: SKU,
    messages: [
      { role: 'system', content: [{ type: 'text', text: 'A long, stable instruction.', prompt_cache_breakpoint: BREAKPOINT }] },
      { role: 'user', content: [{ type: 'text', text: 'hello', prompt_cache_breakpoint: BREAKPOINT }] },
    ],
    prompt_cache_options: OPTIONS,
  } as never);
  return reply as unknown as Record<string, unknown>;
}

async function responsesWithBreakpoint() {
  const reply = await openai.responses.create({
    model: SKU,
    input: [
      { role: 'developer', content: [{ type: 'input_text', text: 'A long, stable instruction.', prompt_cache_breakpoint: BREAKPOINT }] },
      { role: 'user', content: [{ type: 'input_text', text: 'hello', prompt_cache_breakpoint: BREAKPOINT }] },
    ],
    prompt_cache_options: OPTIONS,
  } as never);
  return reply as unknown as Record<string, unknown>;
}

const CLIENTS = { chat: chatWithBreakpoint, responses: responsesWithBreakpoint } as const;

describe('prompt_cache_breakpoint and prompt_cache_options go only where the target takes them', () => {
  const takes: Array<[UpstreamKind, string, 'groq' | 'openrouter' | undefined]> = [
    ['openai-chat', 'gpt-5.6', undefined],
    ['openai-chat', 'openai/gpt-5.6', 'openrouter'],
    ['openai-responses', 'gpt-5.6', undefined],
  ];
  for (const [client, send] of Object.entries(CLIENTS)) {
    for (const [kind, model, profile] of takes) {
      it(`a ${client} client's breakpoints and options reach ${model} on ${kind}${profile ? ` (${profile})` : ''}, unnamed`, async () => {
        const fake = await target(kind, model, profile);
        const reply = await send();
        const body = lastBody(fake);
        expect(breakpointsIn(body)).toEqual([BREAKPOINT, BREAKPOINT]);
        expect(body.prompt_cache_options).toEqual(OPTIONS);
        expect(metaOf(reply).warnings ?? []).not.toContainEqual(expect.stringContaining('prompt_cache'));
      });
    }

    const refuses: Array<[UpstreamKind, string, 'groq' | undefined]> = [
      ['openai-chat', 'gpt-5.5', undefined],
      ['openai-chat', 'gpt-5.6', 'groq'],
      ['openai-responses', 'gpt-5.5', undefined],
      ['anthropic', 'claude-opus-5-5', undefined],
      ['gemini', 'gemini-3-pro-preview', undefined],
    ];
    for (const [kind, model, profile] of refuses) {
      it(`a ${client} client's breakpoints and options are left out for ${model} on ${kind}${profile ? ` (${profile})` : ''}, and named`, async () => {
        const fake = await target(kind, model, profile);
        const reply = await send();
        const body = lastBody(fake);
        expect(breakpointsIn(body)).toEqual([]);
        expect(body.prompt_cache_options).toBeUndefined();
        const warnings = metaOf(reply).warnings ?? [];
        expect(warnings).toContainEqual(`prompt_cache_breakpoint not sent (2 content parts): ${model} on this route does not take OpenAI's explicit prompt-cache controls (GPT-5.6 and later do, on OpenAI's API); the upstream caches as it does by default.`);
        expect(warnings).toContainEqual(expect.stringMatching(/^prompt_cache_options not sent: /));
      });
    }
  }

  it('the fake refuses a breakpoint to a model whose row takes none, as OpenAI does: the rule the router obeys', async () => {
    const fake = await fakes.start('openai-chat', () => ({ text: 'ok' }));
    const direct = new OpenAI({ apiKey: 'sk-fake-upstream-0123', baseURL: fake.url, maxRetries: 0 });
    const refused = await direct.chat.completions.create({ model: 'gpt-5.5', messages: [{ role: 'user', content: [{ type: 'text', text: 'x', prompt_cache_breakpoint: BREAKPOINT }] }] } as never).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400, error: { message: 'prompt_cache_breakpoint is not supported on this model', code: 'invalid_parameter' } });
  });
});

describe('prompt-cache diagnostics', () => {
  it('a Responses client gets prompt_cache_diagnostics from a GPT-5.6 Responses upstream, forwarded, streamed or not', async () => {
    await target('openai-responses', 'gpt-5.6');
    const first = await openai.responses.create({ model: SKU, input: 'hello' });
    const upstreamId = (first as unknown as { id: string }).id;
    const second = (await openai.responses.create({ model: SKU, input: 'hello', prompt_cache_options: { comparison_response_id: upstreamId } } as never)) as unknown as Record<string, unknown>;
    expect(second.prompt_cache_diagnostics).toEqual({ type: 'cache_hit' });
    const stream = await openai.responses.create({ model: SKU, input: 'hello', stream: true, prompt_cache_options: { comparison_response_id: 'resp_unknown' } } as never);
    let completed: Record<string, unknown> | undefined;
    for await (const event of stream as unknown as AsyncIterable<{ type: string; response?: Record<string, unknown> }>) if (event.type === 'response.completed') completed = event.response;
    expect(completed?.prompt_cache_diagnostics).toEqual({ type: 'comparison_response_not_found' });
  });

  it('a Chat client asking through a Responses upstream gets them named in its warnings, streamed or not', async () => {
    const fake = await target('openai-responses', 'gpt-5.6');
    const options = { comparison_response_id: 'resp_unknown' };
    const reply = (await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'hello' }], prompt_cache_options: options } as never)) as unknown as Record<string, unknown>;
    expect(lastBody(fake).prompt_cache_options).toEqual(options);
    const named = `prompt_cache_diagnostics {"type":"comparison_response_not_found"}: the upstream's prompt-cache comparison, which this API format has no field for.`;
    expect(metaOf(reply).warnings).toContain(named);
    const stream = await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'hello' }], stream: true, prompt_cache_options: options } as never);
    let warnings: string[] | undefined;
    for await (const chunk of stream as unknown as AsyncIterable<{ svc_meta?: { warnings?: string[] } }>) warnings = chunk.svc_meta?.warnings ?? warnings;
    expect(warnings).toContain(named);
  });

  it('a Messages client gets them named in its warnings', async () => {
    await target('openai-responses', 'gpt-5.6');
    // A Messages client has no field to ask for a comparison; the upstream's answer reaches it named all the same.
    const fake = await fakes.start('openai-responses', () => ({ text: 'ok', responsesExtra: { prompt_cache_diagnostics: { type: 'cache_miss', reason: 'tools_changed', cache_missed_tokens: 5629, comparison_reusable_tokens: 5629 } } }));
    addBackend(router, 'up', 'openai-responses', fake.url);
    const reply = (await anthropic.messages.create({ model: SKU, max_tokens: 64, messages: [{ role: 'user', content: 'hello' }] })) as unknown as Record<string, unknown>;
    expect(metaOf(reply).warnings).toContainEqual(expect.stringContaining('prompt_cache_diagnostics {"type":"cache_miss","reason":"tools_changed"'));
  });

  it('a comparison asked of a target that gives no diagnostics is named, not sent', async () => {
    const fake = await target('openai-chat', 'gpt-5.6');
    const reply = (await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'hello' }], prompt_cache_options: { comparison_response_id: 'resp_1' } } as never)) as unknown as Record<string, unknown>;
    expect(lastBody(fake).prompt_cache_options).toBeUndefined();
    expect(metaOf(reply).warnings).toContain("prompt_cache_options.comparison_response_id not sent: gpt-5.6 on this route gives no prompt-cache diagnostics (OpenAI's Responses API does, for GPT-5.6 and later).");
  });
});
