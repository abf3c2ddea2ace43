import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SvcMeta } from '../../src/formats/client-format.js';
import type { UsageReport, UsageSlice } from '../../src/usage/slice.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { send } from '../helpers/send.js';
import { parseSse } from '../helpers/sse-frames.js';
import { addBackend, Fakes, setRoute } from '../integration/support.js';

/**
 * A run through the real server: three routes (Anthropic with cache reads and writes, OpenAI with
 * cached input, an upstream model with no price), two keys, streamed and not. Whatever each response
 * said in svc_meta, summed by hand, must be what `/admin/usage` reports: no cost lost, none counted twice.
 */
describe('usage report against the svc_meta of a run', () => {
  const fakes = new Fakes();
  let router: TestRouter;
  let bobKey: string;
  const metas: Array<{ developer: string; meta: SvcMeta }> = [];

  beforeAll(async () => {
    router = await startRouter();
    bobKey = router.issueKey('bob');
    const anthropic = await fakes.start('anthropic', [{ text: 'cached answer', usage: { input: 1_000, output: 200, cached: 600, cacheWrite: 100 } }]);
    const openai = await fakes.start('openai-chat', [{ text: 'plain answer', usage: { input: 500, output: 50, cached: 100 } }]);
    addBackend(router, 'anth', 'anthropic', anthropic.url);
    addBackend(router, 'oai', 'openai-chat', openai.url);
    setRoute(router, 'svc.intelligent-pro', ['anth:claude-sonnet-4-5-20250929']);
    setRoute(router, 'svc.intelligent-basic', ['oai:gpt-4.1-mini']);
    setRoute(router, 'svc.intelligent-lite', ['oai:house-model-without-a-price']);
    const plan: Array<[string, string, string, boolean]> = [
      ['alice', router.key, 'svc.intelligent-pro', false],
      ['alice', router.key, 'svc.intelligent-pro', true],
      ['alice', router.key, 'svc.intelligent-basic', false],
      ['bob', bobKey, 'svc.intelligent-basic', true],
      ['bob', bobKey, 'svc.intelligent-basic', false],
      ['bob', bobKey, 'svc.intelligent-lite', false],
      ['alice', router.key, 'svc.intelligent-lite', true],
    ];
    for (const [developer, key, model, stream] of plan) {
      const reply = await send(router, '/v1/chat/completions', {
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: { model, messages: [{ role: 'user', content: 'hi' }], stream, ...(stream ? { stream_options: { include_usage: true } } : {}) },
      });
      expect(reply.status, reply.text).toBe(200);
      const meta = stream
        ? parseSse(reply.text)
            .filter((frame) => frame.data.startsWith('{'))
            .map((frame) => JSON.parse(frame.data) as { svc_meta?: SvcMeta })
            .find((chunk) => chunk.svc_meta?.usage)?.svc_meta
        : (reply.json.svc_meta as SvcMeta);
      expect(meta, `svc_meta of ${model}`).toBeDefined();
      metas.push({ developer, meta: meta! });
    }
  });

  afterAll(async () => {
    await router?.close();
    await fakes.closeAll();
  });

  const nano = (usd: number | null | undefined): number => Math.round((usd ?? 0) * 1e9);
  const report = async (): Promise<UsageReport> => {
    const reply = await send(router, '/admin/usage', { headers: { authorization: `Bearer ${router.key}` } });
    expect(reply.status, reply.text).toBe(200);
    return reply.json as UsageReport;
  };

  it('prices each request from its canonical usage, cache reads and writes included (worked by hand)', () => {
    // Claude Sonnet 4.5: 300 uncached × $3 + 600 read × $0.30 + 100 written × $3.75 + 200 out × $15 = $0.004455.
    expect(metas[0]!.meta.cost_usd).toBe(0.004455);
    expect(metas[1]!.meta.cost_usd).toBe(0.004455);
    // gpt-4.1-mini: 400 × $0.40 + 100 cached × $0.10 + 50 out × $1.60 = $0.00025.
    expect(metas[2]!.meta.cost_usd).toBe(0.00025);
    // No price: no number, not 0.
    expect(metas[5]!.meta.cost_usd).toBeNull();
  });

  it('sums to what the responses said, by key, SKU, upstream model and in total', async () => {
    const usage = await report();
    const expectSlices = (slices: UsageSlice[], name: (entry: { developer: string; meta: SvcMeta }) => string) => {
      const expected = new Map<string, { tokens: number; requests: number; cost: number; unpriced: number }>();
      for (const entry of metas) {
        const sums = expected.get(name(entry)) ?? { tokens: 0, requests: 0, cost: 0, unpriced: 0 };
        sums.tokens += entry.meta.usage.total_tokens;
        sums.requests += 1;
        sums.cost += nano(entry.meta.cost_usd);
        if (entry.meta.cost_usd === null) sums.unpriced += 1;
        expected.set(name(entry), sums);
      }
      expect(new Set(slices.map((slice) => slice.name))).toEqual(new Set(expected.keys()));
      for (const slice of slices) {
        const sums = expected.get(slice.name)!;
        expect({ name: slice.name, tokens: slice.total_tokens, requests: slice.requests, cost: nano(slice.cost_usd), unpriced: slice.unpriced_requests }).toEqual({
          name: slice.name,
          ...sums,
        });
        // A slice whose every request lacks a price has no cost at all.
        if (sums.unpriced === sums.requests) expect(slice.cost_usd).toBeNull();
      }
    };
    expectSlices(usage.by_key, (entry) => entry.developer);
    expectSlices(usage.by_sku, (entry) => entry.meta.sku);
    expectSlices(usage.by_upstream_model, (entry) => `${entry.meta.backend}:${entry.meta.upstream_model}`);
    expect(nano(usage.totals.cost_usd)).toBe(metas.reduce((sum, entry) => sum + nano(entry.meta.cost_usd), 0));
    expect(usage.totals.requests).toBe(metas.length);
    const today = new Date().toISOString().slice(0, 10);
    expect(usage.by_day).toHaveLength(30);
    expect(usage.by_day.at(-1)).toMatchObject({ name: today, requests: metas.length, cost_usd: usage.totals.cost_usd });
  });

  it("sums a key's own cost in /whoami", async () => {
    const reply = await send(router, '/whoami', { headers: { authorization: `Bearer ${bobKey}` } });
    const bob = metas.filter((entry) => entry.developer === 'bob');
    expect(nano(reply.json.usage.cost_usd)).toBe(bob.reduce((sum, entry) => sum + nano(entry.meta.cost_usd), 0));
    expect(reply.json.usage.unpriced_requests).toBe(bob.filter((entry) => entry.meta.cost_usd === null).length);
  });

  it('answers a key without the admin tier 403 in its own error shape', async () => {
    const reply = await send(router, '/admin/usage', { headers: { authorization: `Bearer ${bobKey}` } });
    expect(reply.status).toBe(403);
    expect(reply.json.error).toMatchObject({ code: 'admin_key_required' });
    const admin = router.issueKey('ops', { tier: 'admin' });
    expect((await send(router, '/admin/usage', { headers: { authorization: `Bearer ${admin}` } })).status).toBe(200);
  });
});
