import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRouter, type TestRouter } from '../helpers/router.js';

let router: TestRouter;

beforeAll(async () => {
  router = await startRouter();
});
afterAll(() => router.close());

const anthropicWithKey = () => new Anthropic({ apiKey: router.key, baseURL: router.origin, maxRetries: 0 });
const anthropicWithToken = () => new Anthropic({ authToken: router.key, baseURL: router.origin, maxRetries: 0 });
const openai = () => new OpenAI({ apiKey: router.key, baseURL: router.baseURL, maxRetries: 0 });

const textOf = (message: Anthropic.Message): string =>
  message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');

type WithMeta<T> = T & { svc_meta?: { sku: string; backend: string; request_id: string } };

describe('the official @anthropic-ai/sdk on /v1/messages', () => {
  it('messages.create returns a text block that carries the prompt', async () => {
    const message = await anthropicWithKey().messages.create({
      model: 'svc.intelligent-basic',
      max_tokens: 300,
      messages: [{ role: 'user', content: 'hello from the anthropic sdk' }],
    });
    expect(message).toMatchObject({ type: 'message', role: 'assistant', model: 'svc.intelligent-basic', stop_reason: 'end_turn' });
    expect(message.id).toMatch(/^msg_/);
    expect(message.content[0]?.type).toBe('text');
    expect(textOf(message)).toContain('hello from the anthropic sdk');
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });

  it('messages.stream().finalMessage() gives a whole message with end_turn and output usage', async () => {
    const stream = anthropicWithKey().messages.stream({
      model: 'svc.intelligent-basic',
      max_tokens: 300,
      messages: [{ role: 'user', content: 'stream from the anthropic sdk' }],
    });
    let streamed = '';
    stream.on('text', (delta) => {
      streamed += delta;
    });
    const message = await stream.finalMessage();
    expect(message).toMatchObject({ type: 'message', role: 'assistant', model: 'svc.intelligent-basic', stop_reason: 'end_turn' });
    expect(message.content[0]?.type).toBe('text');
    expect(textOf(message)).toContain('stream from the anthropic sdk');
    expect(streamed).toBe(textOf(message));
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });

  it('authenticates with authToken (Authorization: Bearer) as well', async () => {
    const message = await anthropicWithToken().messages.create({
      model: 'svc.intelligent-basic',
      max_tokens: 300,
      messages: [{ role: 'user', content: 'hello with a bearer token' }],
    });
    expect(message.type).toBe('message');
    expect(textOf(message)).toContain('hello with a bearer token');
  });

  it('streams with authToken too', async () => {
    const message = await anthropicWithToken()
      .messages.stream({ model: 'svc.intelligent-lite', max_tokens: 300, messages: [{ role: 'user', content: 'bearer stream' }] })
      .finalMessage();
    expect(message.stop_reason).toBe('end_turn');
    expect(textOf(message)).toContain('bearer stream');
  });

  it('beta.messages.create (sent to /v1/messages?beta=true) works like messages.create', async () => {
    const message = await anthropicWithKey().beta.messages.create({
      model: 'claude-sonnet-4',
      max_tokens: 300,
      messages: [{ role: 'user', content: 'hello through the beta surface' }],
    });
    expect(message).toMatchObject({ type: 'message', role: 'assistant', model: 'claude-sonnet-4', stop_reason: 'end_turn' });
    const text = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    expect(text).toContain('hello through the beta surface');
  });

  it('surfaces a wrong key as the SDK AuthenticationError with the Anthropic error body', async () => {
    const client = new Anthropic({ apiKey: `svc_alice_${'B'.repeat(32)}`, baseURL: router.origin, maxRetries: 0 });
    const failure = await client.messages
      .create({ model: 'svc.intelligent-basic', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((failure as InstanceType<typeof Anthropic.AuthenticationError>).status).toBe(401);
    expect((failure as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error' },
    });
  });

  it('surfaces a gpt-* model as the SDK BadRequestError', async () => {
    const failure = await anthropicWithKey()
      .messages.create({ model: 'gpt-4o', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.BadRequestError);
    expect((failure as InstanceType<typeof Anthropic.BadRequestError>).status).toBe(400);
  });
});

describe('the official openai SDK on /v1/responses', () => {
  it('responses.create returns a completed message item, output_text with the prompt, and svc_meta', async () => {
    const response = (await openai().responses.create({
      model: 'svc.intelligent-basic',
      input: 'hello responses',
    })) as WithMeta<OpenAI.Responses.Response>;
    expect(response.object).toBe('response');
    expect(response.status).toBe('completed');
    const item = response.output.find((entry) => entry.type === 'message');
    expect(item).toBeDefined();
    expect(item).toMatchObject({ type: 'message', status: 'completed', role: 'assistant' });
    expect(typeof item?.id).toBe('string');
    expect(item?.id.length).toBeGreaterThan(0);
    for (const entry of response.output) {
      expect(entry).toHaveProperty('id');
      expect(entry).toHaveProperty('status');
    }
    expect(response.output_text).toContain('hello responses');
    expect(response.svc_meta).toMatchObject({ sku: 'svc.intelligent-basic', backend: 'offline' });
    expect(response.svc_meta?.request_id).toMatch(/^req_/);
  });

  it('responses.stream().finalResponse() gives the completed response', async () => {
    const stream = openai().responses.stream({ model: 'svc.intelligent-basic', input: 'stream responses' });
    let streamed = '';
    stream.on('response.output_text.delta', (event) => {
      streamed += event.delta;
    });
    const response = await stream.finalResponse();
    expect(response.status).toBe('completed');
    expect(response.output_text).toContain('stream responses');
    expect(streamed).toBe(response.output_text);
    const item = response.output.find((entry) => entry.type === 'message');
    expect(item).toMatchObject({ status: 'completed' });
    expect(item?.id).toBeTruthy();
    expect(response.usage?.output_tokens).toBeGreaterThan(0);
  });

  it('accepts store: true', async () => {
    const response = await openai().responses.create({ model: 'svc.intelligent-basic', input: 'store me', store: true });
    expect(response.status).toBe('completed');
    expect(response.output_text).toContain('store me');
  });

  it('accepts previous_response_id and takes the conversation from the input', async () => {
    const client = openai();
    const first = await client.responses.create({ model: 'svc.intelligent-basic', input: 'first turn', store: true });
    const second = await client.responses.create({
      model: 'svc.intelligent-basic',
      input: 'second turn',
      previous_response_id: first.id,
    });
    expect(second.status).toBe('completed');
    expect(second.id).not.toBe(first.id);
    expect(second.previous_response_id).toBe(first.id);
    expect(second.output_text).toContain('second turn');
  });

  it('surfaces claude-* on responses as the SDK BadRequestError with param model', async () => {
    const failure = await openai()
      .responses.create({ model: 'claude-sonnet-4', input: 'hi' })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    expect((failure as InstanceType<typeof OpenAI.BadRequestError>).status).toBe(400);
    expect((failure as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('model');
  });
});

describe('every responses output item carries id and status', () => {
  let scripted: TestRouter;

  beforeAll(async () => {
    scripted = await startRouter({
      offlineScript: [{ reasoning: 'thinking it over', text: 'done', toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] }],
    });
  });
  afterAll(() => scripted.close());

  it('reasoning, message and function_call items each have an id and a status', async () => {
    const client = new OpenAI({ apiKey: scripted.key, baseURL: scripted.baseURL, maxRetries: 0 });
    const response = await client.responses.create({
      model: 'svc.intelligent-pro',
      input: 'think, answer and call a tool',
      tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: false }],
    });
    expect(response.output.map((item) => item.type).sort()).toEqual(['function_call', 'message', 'reasoning']);
    for (const item of response.output) {
      expect(item.id, item.type).toBeTruthy();
      expect((item as { status?: string }).status, item.type).toBe('completed');
    }
  });
});
