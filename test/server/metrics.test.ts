import { afterEach, describe, expect, it } from 'vitest';
import { RouterMetrics } from '../../src/server/metrics.js';
import { parseExposition, sampleValue, type Exposition } from '../helpers/exposition.js';
import { startHeldStreamUpstream } from '../helpers/held-stream-upstream.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { unusedPort } from '../helpers/unused-port.js';

/** The value of the one sample with this name and (at least) these labels; 0 when there is none. */
const value = (exposition: Exposition, name: string, labels: Record<string, string> = {}): number => sampleValue(exposition.samples, name, labels);

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function router(): Promise<TestRouter> {
  const started = await startRouter({ http: { metrics: new RouterMetrics() } });
  cleanups.push(() => started.close());
  return started;
}

async function scrape(live: TestRouter): Promise<Exposition> {
  const response = await fetch(`${live.origin}/metrics`);
  expect(response.status).toBe(200);
  return parseExposition(await response.text());
}

async function chat(live: TestRouter, body: object, key = live.key): Promise<{ status: number; json: any; text: string }> {
  const response = await fetch(`${live.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text };
}

const ask = (model: string, content: string, extra: object = {}) => ({ model, messages: [{ role: 'user', content }], ...extra });

describe('GET /metrics', () => {
  it('serves the Prometheus text format with every metric family typed, and needs no key', async () => {
    const live = await router();
    const response = await fetch(`${live.origin}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const exposition = parseExposition(await response.text());
    expect(exposition.types).toEqual({
      svc_router_requests_total: 'counter',
      svc_router_request_duration_seconds: 'histogram',
      svc_router_upstream_errors_total: 'counter',
      svc_router_tokens_total: 'counter',
      svc_router_cost_usd_total: 'counter',
      svc_router_unpriced_requests_total: 'counter',
      svc_router_streams_in_flight: 'gauge',
      svc_router_overhead_seconds: 'histogram',
    });
    expect(value(exposition, 'svc_router_streams_in_flight')).toBe(0);
  });

  it('answers HEAD without a body and refuses POST with 405', async () => {
    const live = await router();
    const head = await fetch(`${live.origin}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await fetch(`${live.origin}/metrics`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('counts requests by endpoint and status, and times them in a histogram', async () => {
    const live = await router();
    expect((await chat(live, ask('svc.intelligent-basic', 'one'))).status).toBe(200);
    expect((await chat(live, ask('svc.intelligent-basic', 'two'))).status).toBe(200);
    expect((await chat(live, ask('svc.intelligent-basic', 'three'), 'svc_alice_wrongkeywrongkeywrongkeywrongkey')).status).toBe(401);
    expect((await fetch(`${live.baseURL}/models`, { headers: { authorization: `Bearer ${live.key}` } })).status).toBe(200);
    expect((await fetch(`${live.origin}/no/such/path`)).status).toBe(404);

    const exposition = await scrape(live);
    const endpoint = '/v1/chat/completions';
    expect(value(exposition, 'svc_router_requests_total', { endpoint, status: '200' })).toBe(2);
    expect(value(exposition, 'svc_router_requests_total', { endpoint, status: '401' })).toBe(1);
    expect(value(exposition, 'svc_router_requests_total', { endpoint: '/v1/models', status: '200' })).toBe(1);
    expect(value(exposition, 'svc_router_requests_total', { endpoint: 'other', status: '404' })).toBe(1);
    // Scrapes are not requests the router served.
    expect(exposition.samples.some((sample) => sample.labels.endpoint === '/metrics')).toBe(false);

    const buckets = exposition.samples.filter((sample) => sample.name === 'svc_router_request_duration_seconds_bucket' && sample.labels.endpoint === endpoint);
    expect(buckets.length).toBeGreaterThan(5);
    const bounds = buckets.map((sample) => (sample.labels.le === '+Inf' ? Infinity : Number(sample.labels.le)));
    expect(bounds).toEqual([...bounds].sort((a, b) => a - b));
    expect(bounds.at(-1)).toBe(Infinity);
    const counts = buckets.map((sample) => sample.value);
    counts.forEach((count, index) => expect(count).toBeGreaterThanOrEqual(counts[index - 1] ?? 0));
    expect(counts.at(-1)).toBe(3);
    expect(value(exposition, 'svc_router_request_duration_seconds_count', { endpoint })).toBe(3);
    expect(value(exposition, 'svc_router_request_duration_seconds_sum', { endpoint })).toBeGreaterThan(0);
  });

  it('counts tokens by SKU, backend and direction, as svc_meta reported them', async () => {
    const live = await router();
    const first = await chat(live, ask('svc.intelligent-basic', 'count my tokens please'));
    const second = await chat(live, ask('svc.intelligent-basic', 'and these as well', { stream: true, stream_options: { include_usage: true } }));
    const third = await chat(live, ask('svc.intelligent-lite', 'a different sku'));
    const streamedMeta = second.text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)))
      .find((chunk) => chunk.svc_meta)?.svc_meta;
    expect(streamedMeta).toBeDefined();

    const exposition = await scrape(live);
    const basic = { sku: 'svc.intelligent-basic', backend: 'offline' };
    expect(value(exposition, 'svc_router_tokens_total', { ...basic, direction: 'input' })).toBe(first.json.svc_meta.usage.input_tokens + streamedMeta.usage.input_tokens);
    expect(value(exposition, 'svc_router_tokens_total', { ...basic, direction: 'output' })).toBe(first.json.svc_meta.usage.output_tokens + streamedMeta.usage.output_tokens);
    expect(value(exposition, 'svc_router_tokens_total', { sku: 'svc.intelligent-lite', backend: 'offline', direction: 'output' })).toBe(third.json.svc_meta.usage.output_tokens);
  });

  it('counts upstream errors by backend, one per failed attempt, also when the fallback answers', async () => {
    const live = await router();
    const port = await unusedPort();
    live.config.update((settings) => {
      settings.backends.down = { type: 'openai-chat', baseUrl: `http://127.0.0.1:${port}/v1` };
      settings.routes['svc.intelligent-lite'] = ['down:some-model', 'offline'];
    });

    const answered = await chat(live, ask('svc.intelligent-lite', 'fall back'));
    expect(answered.status).toBe(200);
    expect(answered.json.svc_meta).toMatchObject({ backend: 'offline', attempts: 2 });
    expect((await chat(live, ask('svc.intelligent-lite', 'fall back while streaming', { stream: true }))).status).toBe(200);

    const exposition = await scrape(live);
    expect(value(exposition, 'svc_router_upstream_errors_total', { backend: 'down', status: '502' })).toBe(2);
    expect(value(exposition, 'svc_router_upstream_errors_total', { backend: 'offline' })).toBe(0);
    expect(value(exposition, 'svc_router_requests_total', { endpoint: '/v1/chat/completions', status: '200' })).toBe(2);
  });

  it('shows a stream in flight while it is open, and none once it has finished', async () => {
    const live = await router();
    const upstream = await startHeldStreamUpstream();
    cleanups.push(() => upstream.close());
    live.config.update((settings) => {
      settings.backends.held = { type: 'openai-chat', baseUrl: upstream.url };
      settings.routes['svc.intelligent-pro'] = ['held'];
    });

    const response = await fetch(`${live.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${live.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(ask('svc.intelligent-pro', 'hold on', { stream: true, stream_options: { include_usage: true } })),
    });
    expect(response.status).toBe(200);
    await upstream.holding();
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('held ');
    expect(value(await scrape(live), 'svc_router_streams_in_flight')).toBe(1);

    upstream.release();
    let rest = '';
    for (let next = await reader.read(); !next.done; next = await reader.read()) rest += new TextDecoder().decode(next.value);
    expect(rest).toContain('[DONE]');
    const after = await scrape(live);
    expect(value(after, 'svc_router_streams_in_flight')).toBe(0);
    expect(value(after, 'svc_router_tokens_total', { sku: 'svc.intelligent-pro', backend: 'held', direction: 'input' })).toBe(7);
    expect(value(after, 'svc_router_tokens_total', { sku: 'svc.intelligent-pro', backend: 'held', direction: 'output' })).toBe(2);
  });
});

describe('metrics off', () => {
  it('answers /metrics with 404 and says how to turn metrics on', async () => {
    const live = await startRouter();
    cleanups.push(() => live.close());
    const response = await fetch(`${live.origin}/metrics`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain('serve --metrics');
  });
});
