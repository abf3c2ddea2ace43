import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, type GenerateContentResponse } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decodeAnthropicReply } from '../../src/backends/anthropic/decode-reply.js';
import type { ScriptedTurn } from '../fakes/scripted-turn.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { parseSse } from '../helpers/sse-frames.js';
import { addBackend, Fakes, setRoute, SKU } from './support.js';

/**
 * A refusal (`stop_reason: "refusal"` with `stop_details`) reaches every client format in its own
 * form, streamed and not: Chat's `message.refusal` and `finish_reason`, a Responses refusal content
 * part, Messages' stop_reason and stop_details, Gemini's finishReason SAFETY with the explanation
 * as the candidate's finishMessage. `fallbacks: "default"` goes to an Anthropic model
 * that takes it; elsewhere a refusal moves to the route's next target, and the client is told which
 * model answered.
 */

let router: TestRouter;
let openai: OpenAI;
let anthropic: Anthropic;
let gemini: GoogleGenAI;
const fakes = new Fakes();

beforeAll(async () => {
  router = await startRouter();
  openai = new OpenAI({ apiKey: router.key, baseURL: router.baseURL, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: router.key, baseURL: router.origin, maxRetries: 0 });
  gemini = new GoogleGenAI({ apiKey: router.key, httpOptions: { baseUrl: router.origin } });
});
afterEach(() => fakes.closeAll());
afterAll(() => router.close());

const EXPLANATION = 'This request could enable cyber harm.';
const DETAILS = { type: 'refusal', category: 'cyber', explanation: EXPLANATION };
const REFUSAL: ScriptedTurn = { anthropicStop: { reason: 'refusal' }, anthropicExtra: { stop_details: DETAILS }, usage: { input: 12, output: 0 } };

/** The SKU routed to one Anthropic fake serving `model`. */
async function refusingClaude(model = 'claude-fable-5-1', script: ScriptedTurn[] = [REFUSAL]) {
  const fake = await fakes.start('anthropic', script);
  addBackend(router, 'claude', 'anthropic', fake.url);
  setRoute(router, SKU, [`claude:${model}`]);
  return fake;
}

describe('a refusal, in every client format', () => {
  it('reaches a Chat client as message.refusal and finish_reason content_filter', async () => {
    await refusingClaude();
    const reply = await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'x' }] });
    expect(reply.choices[0]!.message.refusal).toBe(EXPLANATION);
    expect(reply.choices[0]!.message.content).toBeNull();
    expect(reply.choices[0]!.finish_reason).toBe('content_filter');
  });

  it('reaches a streaming Chat client as a refusal delta before the finish', async () => {
    await refusingClaude();
    const stream = await openai.chat.completions.create({ model: SKU, messages: [{ role: 'user', content: 'x' }], stream: true });
    const deltas: Array<Record<string, unknown>> = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (!choice) continue;
      deltas.push(choice.delta as Record<string, unknown>);
      finish = choice.finish_reason ?? finish;
    }
    expect(deltas.map((delta) => delta.refusal).filter(Boolean)).toEqual([EXPLANATION]);
    expect(finish).toBe('content_filter');
  });

  it('reaches a Responses client as a refusal content part, the response incomplete for the content filter', async () => {
    await refusingClaude();
    const response = await openai.responses.create({ model: SKU, input: 'x' });
    expect(response.output).toContainEqual(expect.objectContaining({ type: 'message', role: 'assistant', content: [{ type: 'refusal', refusal: EXPLANATION }] }));
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'content_filter' });
  });

  it('reaches a streaming Responses client as refusal events and the item in the terminal response', async () => {
    await refusingClaude();
    const stream = await openai.responses.create({ model: SKU, input: 'x', stream: true });
    const events: Array<{ type: string } & Record<string, any>> = [];
    for await (const event of stream) events.push(event as never);
    expect(events.filter((event) => event.type === 'response.refusal.delta').map((event) => event.delta)).toEqual([EXPLANATION]);
    expect(events.find((event) => event.type === 'response.refusal.done')?.refusal).toBe(EXPLANATION);
    const done = events.at(-1)!;
    expect(done.type).toBe('response.incomplete');
    expect(done.response.output).toContainEqual(expect.objectContaining({ content: [{ type: 'refusal', refusal: EXPLANATION }] }));
  });

  it.each([false, true])('reaches a Messages client as stop_reason refusal with its stop_details (stream %s)', async (stream) => {
    await refusingClaude();
    const params = { model: SKU, max_tokens: 100, messages: [{ role: 'user' as const, content: 'x' }] };
    const message = stream ? await anthropic.messages.stream(params).finalMessage() : await anthropic.messages.create(params);
    expect(message.stop_reason).toBe('refusal');
    expect(message.stop_details).toEqual(DETAILS);
  });

  it.each([false, true])('reaches a Gemini client (@google/genai) as finishReason SAFETY and no text (stream %s)', async (stream) => {
    await refusingClaude();
    let candidate: NonNullable<GenerateContentResponse['candidates']>[number] | undefined;
    let text = '';
    if (stream) {
      for await (const chunk of await gemini.models.generateContentStream({ model: SKU, contents: 'x' })) {
        text += chunk.candidates?.[0]?.content?.parts?.map((part) => part.text ?? '').join('') ?? '';
        if (chunk.candidates?.[0]?.finishReason) candidate = chunk.candidates[0];
      }
    } else {
      candidate = (await gemini.models.generateContent({ model: SKU, contents: 'x' })).candidates?.[0];
      text = candidate?.content?.parts?.map((part) => part.text ?? '').join('') ?? '';
    }
    expect(candidate?.finishReason).toBe('SAFETY');
    expect(text).toBe('');
  });

  it.each([false, true])("carries why in the candidate's finishMessage, the explanation else the policy category (stream %s)", async (stream) => {
    const unexplained: ScriptedTurn = { ...REFUSAL, anthropicExtra: { stop_details: { type: 'refusal', category: 'bio', explanation: null } } };
    await refusingClaude('claude-fable-5-1', [REFUSAL, unexplained]);
    const lastCandidate = async (): Promise<Record<string, unknown>> => {
      const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
      const response = await fetch(`${router.origin}/v1beta/models/${SKU}:${method}`, { method: 'POST', headers: { 'x-goog-api-key': router.key }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'x' }] }] }) });
      const text = await response.text();
      const replies = stream ? parseSse(text).map((frame) => JSON.parse(frame.data)) : [JSON.parse(text)];
      return replies.at(-1).candidates[0];
    };
    expect(await lastCandidate()).toMatchObject({ finishReason: 'SAFETY', finishMessage: EXPLANATION });
    expect(await lastCandidate()).toMatchObject({ finishReason: 'SAFETY', finishMessage: 'The model declined to answer (policy category: bio).' });
  });

  it('reaches a Messages client from another provider as stop_reason refusal, its details unknown', async () => {
    const gemini = await fakes.start('gemini', [{ text: '', finishReason: 'SAFETY' } as ScriptedTurn]);
    addBackend(router, 'gem', 'gemini', gemini.url);
    setRoute(router, SKU, ['gem:gemini-3-pro-preview']);
    const message = await anthropic.messages.create({ model: SKU, max_tokens: 100, messages: [{ role: 'user', content: 'x' }] });
    expect(message.stop_reason).toBe('refusal');
    expect(message.stop_details).toEqual({ type: 'refusal', category: null, explanation: null });
  });
});

describe('fallbacks: "default"', () => {
  it('goes to an Anthropic model that takes it, with its beta header, and the upstream answers the refusal itself', async () => {
    const fake = await refusingClaude('claude-fable-5-1', [{ text: 'Answered by the fallback model.' }]);
    const message = await anthropic.messages.create({ model: SKU, max_tokens: 100, messages: [{ role: 'user', content: 'x' }], fallbacks: 'default' } as never, { headers: { 'anthropic-beta': 'server-side-fallback-2026-07-01' } });
    expect(message.content).toEqual([{ type: 'text', text: 'Answered by the fallback model.' }]);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.body.fallbacks).toBe('default');
    expect(fake.requests[0]!.headers['anthropic-beta']).toContain('server-side-fallback-2026-07-01');
  });

  it.each([false, true])("elsewhere moves a refusal to the route's next target and says which model answered (stream %s)", async (stream) => {
    const first = await fakes.start('anthropic', [REFUSAL]);
    addBackend(router, 'older', 'anthropic', first.url);
    const second = await fakes.start('openai-chat', [{ text: 'Answered by the next target.' }]);
    addBackend(router, 'next', 'openai-chat', second.url);
    // Opus 4.8 takes no server-side fallback: the router runs the client's.
    setRoute(router, SKU, ['older:claude-opus-4-8', 'next:gpt-5.2']);
    const params = { model: SKU, max_tokens: 100, messages: [{ role: 'user' as const, content: 'x' }], fallbacks: 'default' } as never;
    const { data, response } = stream
      ? await (async () => {
          const messageStream = anthropic.messages.stream(params);
          const { response: raw } = await messageStream.withResponse();
          return { data: await messageStream.finalMessage(), response: raw };
        })()
      : await anthropic.messages.create(params).withResponse();
    expect(data.content).toEqual([{ type: 'text', text: 'Answered by the next target.' }]);
    expect(data.stop_reason).toBe('end_turn');
    expect(response.headers.get('x-svc-warning')).toContain("older:claude-opus-4-8 declined (policy category: cyber); next:gpt-5.2, the route's next target, answered instead, as the request asked for fallbacks.");
    expect(first.requests[0]!.body).not.toHaveProperty('fallbacks');
  });

  it('answers with the refusal when every target declines, and never moves on for a client that did not ask', async () => {
    const first = await fakes.start('anthropic', [REFUSAL]);
    addBackend(router, 'older', 'anthropic', first.url);
    const second = await fakes.start('anthropic', [REFUSAL]);
    addBackend(router, 'also', 'anthropic', second.url);
    setRoute(router, SKU, ['older:claude-opus-4-8', 'also:claude-sonnet-4-6']);
    const declined = await anthropic.messages.create({ model: SKU, max_tokens: 100, messages: [{ role: 'user', content: 'x' }], fallbacks: 'default' } as never);
    expect(declined.stop_reason).toBe('refusal');
    expect([first.requests.length, second.requests.length]).toEqual([1, 1]);
    const unasked = await anthropic.messages.create({ model: SKU, max_tokens: 100, messages: [{ role: 'user', content: 'x' }] });
    expect(unasked.stop_reason).toBe('refusal');
    expect([first.requests.length, second.requests.length]).toEqual([2, 1]);
  });

  it("names the model Anthropic's own server-side fallback answered with, for every client", () => {
    const reply = decodeAnthropicReply('claude', {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-fable-5-1',
      content: [
        { type: 'fallback', from: { model: 'claude-fable-5-1' }, to: { model: 'claude-opus-5' }, trigger: { type: 'refusal', category: 'cyber' } },
        { type: 'text', text: 'An answer.' },
      ],
      stop_reason: 'end_turn',
      usage: { input_tokens: 3, output_tokens: 2 },
    });
    expect(reply.warnings).toEqual(["claude-fable-5-1 declined (policy category: cyber); Anthropic's server-side fallback answered with claude-opus-5."]);
    expect(reply.content).toEqual([{ type: 'text', text: 'An answer.' }]);
  });
});
