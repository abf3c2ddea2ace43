import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRouter, type TestRouter } from '../helpers/router.js';

let router: TestRouter;
let client: OpenAI;

beforeAll(async () => {
  router = await startRouter();
  client = new OpenAI({ apiKey: router.key, baseURL: router.baseURL, maxRetries: 0 });
});
afterAll(() => router.close());

describe('the official openai SDK against the offline backend', () => {
  it('lists the three SKUs', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(expect.arrayContaining(['svc.intelligent-pro', 'svc.intelligent-basic', 'svc.intelligent-lite']));
  });

  it('creates a chat completion with svc_meta', async () => {
    const completion = await client.chat.completions.create({
      model: 'svc.intelligent-pro',
      messages: [{ role: 'user', content: 'ping from the sdk' }],
      max_tokens: 200,
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('svc.intelligent-pro');
    expect(completion.choices[0]?.message.content).toContain('ping from the sdk');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
    const meta = (completion as unknown as { svc_meta: Record<string, unknown> }).svc_meta;
    expect(meta).toMatchObject({ sku: 'svc.intelligent-pro', backend: 'offline', offline: true, attempts: 1 });
    expect(meta.request_id).toMatch(/^req_/);
    expect(JSON.stringify(meta)).not.toContain(router.key);
  });

  it('streams chunks with for await, usage and svc_meta on the last chunk', async () => {
    const stream = await client.chat.completions.create({
      model: 'svc.intelligent-basic',
      messages: [{ role: 'user', content: 'stream this please' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    const chunks = [];
    for await (const chunk of stream) {
      chunks.push(chunk);
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect(chunks.length).toBeGreaterThan(3);
    expect(text).toContain('stream this please');
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage?.completion_tokens).toBeGreaterThan(0);
    expect((last as unknown as { svc_meta: { backend: string } }).svc_meta.backend).toBe('offline');
  });

  it('puts svc_meta on the finish chunk when usage was not asked for', async () => {
    const stream = await client.chat.completions.create({
      model: 'svc.intelligent-lite',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const last = chunks.at(-1)!;
    expect(last.choices[0]?.finish_reason).toBe('stop');
    expect(last.usage ?? undefined).toBeUndefined();
    expect((last as unknown as { svc_meta: { sku: string } }).svc_meta.sku).toBe('svc.intelligent-lite');
  });

  it('cuts the reply at max_tokens with finish_reason length', async () => {
    const completion = await client.chat.completions.create({
      model: 'svc.intelligent-basic',
      messages: [{ role: 'user', content: 'a long question that will get a long offline answer' }],
      max_tokens: 3,
    });
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(completion.choices[0]?.message.content?.length).toBeLessThanOrEqual(12);
  });

  it('records usage that whoami reports', async () => {
    const before = (await whoami()).usage.tokens_used;
    const completion = await client.chat.completions.create({ model: 'svc.intelligent-pro', messages: [{ role: 'user', content: 'count me' }] });
    const after = await whoami();
    expect(after.usage.tokens_used - before).toBe(completion.usage?.total_tokens);
    expect(after).toMatchObject({ developer: 'alice', organisation: 'acme', tier: 'pro' });
  });
});

async function whoami(): Promise<{ developer: string; usage: { tokens_used: number } }> {
  const response = await fetch(`${router.origin}/whoami`, { headers: { authorization: `Bearer ${router.key}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as { developer: string; usage: { tokens_used: number } };
}
