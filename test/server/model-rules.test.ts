import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { bearer, expectAnthropicError, expectOpenAIError, messagesHeaders, send } from './http-support.js';

let router: TestRouter;

beforeAll(async () => {
  router = await startRouter();
});
afterAll(() => router.close());

const SKUS = ['svc.intelligent-pro', 'svc.intelligent-basic', 'svc.intelligent-lite'];

const chat = (model: string) =>
  send(router, 'POST', '/v1/chat/completions', {
    headers: bearer(router.key),
    body: { model, messages: [{ role: 'user', content: 'which model?' }] },
  });

const responses = (model: string) =>
  send(router, 'POST', '/v1/responses', { headers: bearer(router.key), body: { model, input: 'which model?' } });

const messages = (model: string) =>
  send(router, 'POST', '/v1/messages', {
    headers: messagesHeaders(router.key),
    body: { model, max_tokens: 200, messages: [{ role: 'user', content: 'which model?' }] },
  });

const expectModelRejected = (reply: Awaited<ReturnType<typeof chat>>, model: string) => {
  expectOpenAIError(reply, 400, { type: 'invalid_request_error', param: 'model', code: 'model_not_found' });
  expect(reply.json.error.message).toContain(`'${model}'`);
};

describe('model names on the chat and responses endpoints', () => {
  it('rejects gpt-4o on chat with 400 naming every svc SKU', async () => {
    const reply = await chat('gpt-4o');
    expectModelRejected(reply, 'gpt-4o');
    for (const sku of SKUS) expect(reply.json.error.message).toContain(sku);
  });

  it('rejects gpt-4o on responses with 400', async () => {
    expectModelRejected(await responses('gpt-4o'), 'gpt-4o');
  });

  it('rejects claude-sonnet-4 on chat with 400 that points to /v1/messages', async () => {
    const reply = await chat('claude-sonnet-4');
    expectModelRejected(reply, 'claude-sonnet-4');
    expect(reply.json.error.message).toContain('/v1/messages');
  });

  it('rejects claude-sonnet-4 on responses with 400', async () => {
    expectModelRejected(await responses('claude-sonnet-4'), 'claude-sonnet-4');
  });

  it('rejects the unknown svc.nope with 400 naming the SKUs', async () => {
    const reply = await chat('svc.nope');
    expectModelRejected(reply, 'svc.nope');
    expect(reply.json.error.message).toContain('svc.intelligent-pro');
  });

  it('rejects llama3 with 400', async () => {
    expectModelRejected(await chat('llama3'), 'llama3');
  });

  it('serves each svc SKU on chat', async () => {
    for (const sku of SKUS) {
      const reply = await chat(sku);
      expect(reply.status, reply.text).toBe(200);
      expect(reply.json.model).toBe(sku);
    }
  });
});

describe('model names on /v1/messages', () => {
  for (const model of ['claude-sonnet-4', 'vendor-opus-4']) {
    it(`serves ${model} with content blocks`, async () => {
      const reply = await messages(model);
      expect(reply.status, reply.text).toBe(200);
      expect(reply.json).toMatchObject({ type: 'message', role: 'assistant', model, stop_reason: 'end_turn' });
      expect(reply.json.content.length).toBeGreaterThan(0);
      expect(reply.json.content[0]).toMatchObject({ type: 'text' });
      expect(reply.json.content[0].text).toContain('which model?');
    });
  }

  it('rejects gpt-4o on messages with 400 in the Anthropic shape', async () => {
    expectAnthropicError(await messages('gpt-4o'), 400, 'invalid_request_error', /gpt-4o/);
  });

  it('rejects svc.nope on messages with 400 in the Anthropic shape', async () => {
    expectAnthropicError(await messages('svc.nope'), 400, 'invalid_request_error', /svc\.nope/);
  });

  it('rejects llama3 on messages with 400 in the Anthropic shape', async () => {
    expectAnthropicError(await messages('llama3'), 400, 'invalid_request_error', /llama3/);
  });
});
