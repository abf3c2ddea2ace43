import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BackendType } from '../../src/config/settings.js';
import { openEventStream, sendJson, startFakeServer } from '../fakes/fake-server.js';
import { parseSse } from '../helpers/sse-frames.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { bearer, expectAnthropicError, expectOpenAIError, messagesHeaders, send } from './http-support.js';

/**
 * An upstream that answers 200 with a body missing a field the router reads: the client gets a
 * 502 in its own format (or, once its stream has started, its format's error event) that names the
 * backend and the field.
 */

let router: TestRouter;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  router = await startRouter();
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});
afterAll(() => router.close());

const MODEL = 'svc.intelligent-basic';

/** A fake upstream of any type that serves `reply` to a plain call and `frames` (SSE data) to a streamed one. */
async function brokenUpstream(type: BackendType, name: string, reply: unknown, frames: unknown[], done = false): Promise<void> {
  const fake = await startFakeServer(async (request, res) => {
    if (!(request.body as { stream?: boolean } | undefined)?.stream) return sendJson(res, 200, reply);
    const sse = openEventStream(res, {}, {});
    for (const frame of frames) {
      const event = typeof frame === 'object' && frame !== null && 'type' in frame ? `event: ${String((frame as { type: unknown }).type)}\n` : '';
      await sse.frame(`${event}data: ${JSON.stringify(frame)}\n\n`);
    }
    if (done) await sse.frame('data: [DONE]\n\n');
    sse.end();
  });
  closers.push(fake.close);
  router.config.update((settings) => {
    settings.backends[name] = { type, baseUrl: `${fake.origin}/v1`, apiKey: 'sk-fake-upstream-0123' };
    settings.routes[MODEL] = [`${name}:upstream-model`];
  });
}

const chatRequest = (stream: boolean) => ({ model: MODEL, stream, messages: [{ role: 'user', content: 'weather in Paris?' }] });
const messagesRequest = (stream: boolean) => ({ model: MODEL, stream, max_tokens: 100, messages: [{ role: 'user', content: 'weather in Paris?' }] });
const responsesRequest = (stream: boolean) => ({ model: MODEL, stream, input: 'weather in Paris?' });

describe('an openai-chat upstream whose tool call has no name, to a Messages client', () => {
  const reply = {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { arguments: '{}' } }] }, finish_reason: 'tool_calls' }],
    usage: { prompt_tokens: 5, completion_tokens: 3 },
  };
  const chunks = [
    { id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: 'Checking.' }, finish_reason: null }] },
    { id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { arguments: '' } }] }, finish_reason: null }] },
    { id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
  ];

  it('answers 502 naming the field', async () => {
    await brokenUpstream('openai-chat', 'up-chat', reply, chunks, true);
    const answer = await send(router, 'POST', '/v1/messages', { headers: messagesHeaders(router.key), body: messagesRequest(false) });
    expectAnthropicError(answer, 502, 'api_error', /^Backend 'up-chat' sent a reply whose choices\[0\]\.message\.tool_calls\[0\]\.function\.name is missing\.$/);
  });

  it('ends the stream with an error event naming the field', async () => {
    await brokenUpstream('openai-chat', 'up-chat', reply, chunks, true);
    const answer = await send(router, 'POST', '/v1/messages', { headers: messagesHeaders(router.key), body: messagesRequest(true) });
    expect(answer.status).toBe(200);
    const frames = parseSse(answer.text);
    const last = frames.at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toMatchObject({
      type: 'error',
      error: { type: 'api_error', message: "Backend 'up-chat' sent a stream chunk whose choices[0].delta.tool_calls[0].function.name is missing." },
    });
    expect(frames.some((frame) => frame.event === 'message_stop')).toBe(false);
  });
});

describe('an anthropic upstream whose tool_use block has no name, to a Responses client', () => {
  const reply = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_1', input: {} }],
    stop_reason: 'tool_use',
    usage: { input_tokens: 5, output_tokens: 3 },
  };
  const events = [
    { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], usage: { input_tokens: 5, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Checking.' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', input: {} } },
    { type: 'content_block_stop', index: 1 },
    { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 3 } },
    { type: 'message_stop' },
  ];

  it('answers 502 naming the field', async () => {
    await brokenUpstream('anthropic', 'up-anthropic', reply, events);
    const answer = await send(router, 'POST', '/v1/responses', { headers: bearer(router.key), body: responsesRequest(false) });
    expectOpenAIError(answer, 502, { type: 'upstream_error', message: /^Backend 'up-anthropic' sent a reply whose content\[0\]\.name is missing\.$/ });
  });

  it('ends the stream with response.failed naming the field', async () => {
    await brokenUpstream('anthropic', 'up-anthropic', reply, events);
    const answer = await send(router, 'POST', '/v1/responses', { headers: bearer(router.key), body: responsesRequest(true) });
    expect(answer.status).toBe(200);
    const frames = parseSse(answer.text);
    const failed = frames.find((frame) => frame.event === 'response.failed');
    expect(failed, answer.text).toBeDefined();
    expect(JSON.parse(failed!.data).response.error.message).toBe("Backend 'up-anthropic' sent a stream event whose content_block.name is missing.");
    expect(frames.some((frame) => frame.event === 'response.completed')).toBe(false);
  });
});

describe('an openai-responses upstream whose function call has no name, to a Chat client', () => {
  const reply = {
    id: 'resp_1',
    object: 'response',
    status: 'completed',
    output: [{ id: 'fc_1', type: 'function_call', call_id: 'call_1', arguments: '{}' }],
    usage: { input_tokens: 5, output_tokens: 3 },
  };
  const events = [
    { type: 'response.created', response: { id: 'resp_1', status: 'in_progress' } },
    { type: 'response.output_text.delta', item_id: 'msg_1', delta: 'Checking.' },
    { type: 'response.output_item.done', item: { id: 'msg_1', type: 'message', content: [] } },
    { type: 'response.output_item.added', item: { id: 'fc_1', type: 'function_call', call_id: 'call_1', arguments: '' } },
    { type: 'response.completed', response: { id: 'resp_1', status: 'completed', usage: { input_tokens: 5, output_tokens: 3 } } },
  ];

  it('answers 502 naming the field', async () => {
    await brokenUpstream('openai-responses', 'up-responses', reply, events);
    const answer = await send(router, 'POST', '/v1/chat/completions', { headers: bearer(router.key), body: chatRequest(false) });
    expectOpenAIError(answer, 502, { type: 'upstream_error', message: /^Backend 'up-responses' sent a reply whose output\[0\]\.name is missing\.$/ });
  });

  it('ends the stream with an error chunk naming the field', async () => {
    await brokenUpstream('openai-responses', 'up-responses', reply, events);
    const answer = await send(router, 'POST', '/v1/chat/completions', { headers: bearer(router.key), body: chatRequest(true) });
    expect(answer.status).toBe(200);
    const frames = parseSse(answer.text);
    const error = frames.map((frame) => (frame.data === '[DONE]' ? undefined : JSON.parse(frame.data))).find((data) => data?.error);
    expect(error, answer.text).toBeDefined();
    expect(error.error).toMatchObject({ type: 'upstream_error', message: "Backend 'up-responses' sent a stream event whose item.name is missing." });
    expect(frames.some((frame) => frame.data.includes('"finish_reason":"tool_calls"'))).toBe(false);
  });
});
