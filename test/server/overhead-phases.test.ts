import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ROUTER_PHASES } from '../../src/core/request-phases.js';
import { RouterMetrics } from '../../src/server/metrics.js';
import { parseSamples, sampleValue, type Sample } from '../helpers/exposition.js';
import { startHeldStreamUpstream } from '../helpers/held-stream-upstream.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { chatCompletionBody } from '../reliability/support.js';

/**
 * svc_router_overhead_seconds{phase}: the router's own time per completion request, phase by
 * phase, on a real router over a real socket in front of a fake upstream; and x-svc-overhead-ms,
 * which must be the sum of the phases up to the reply's head, the upstream's wait left out.
 */

const ENDPOINT = '/v1/chat/completions';
const HEADER_PHASES = ['read', 'route', 'admit', 'encode'] as const;

/** An OpenAI Chat upstream that answers JSON, each reply held until the test lets it go; it times how long it held each. */
async function startHeldJsonUpstream() {
  const waiting: Array<() => void> = [];
  const arrivals: Array<() => void> = [];
  let arrived = new Promise<void>((resolve) => arrivals.push(resolve));
  const heldMs: number[] = [];
  const server = http.createServer(async (req, res) => {
    for await (const _ of req) {
      // The request body is drained; its content does not matter here.
    }
    const since = performance.now();
    await new Promise<void>((resolve) => {
      waiting.push(resolve);
      arrivals.shift()?.();
    });
    heldMs.push(performance.now() - since);
    const body = JSON.stringify(chatCompletionBody('held answer'));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    heldMs,
    /** Resolves once a request is being held. */
    async arrived(): Promise<void> {
      await arrived;
      arrived = new Promise<void>((resolve) => arrivals.push(resolve));
    },
    release: () => waiting.shift()?.(),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function routerTo(upstreamUrl: string): Promise<TestRouter> {
  const live = await startRouter({ http: { metrics: new RouterMetrics() } });
  cleanups.push(() => live.close());
  live.config.update((settings) => {
    settings.backends.held = { type: 'openai-chat', baseUrl: upstreamUrl };
    settings.routes['svc.intelligent-pro'] = ['held'];
  });
  return live;
}

async function scrape(live: TestRouter): Promise<Sample[]> {
  return parseSamples(await (await fetch(`${live.origin}/metrics`)).text());
}

const phaseCount = (samples: Sample[], phase: string) => sampleValue(samples, 'svc_router_overhead_seconds_count', { phase });
const phaseSum = (samples: Sample[], phase: string) => sampleValue(samples, 'svc_router_overhead_seconds_sum', { phase });

function send(live: TestRouter, stream = false): Promise<Response> {
  return fetch(`${live.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${live.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'svc.intelligent-pro', messages: [{ role: 'user', content: 'hello' }], ...(stream ? { stream: true } : {}) }),
  });
}

/** A few real round trips through the router: time the held upstream spends waiting that no phase may count. */
async function busyRoundTrips(live: TestRouter): Promise<void> {
  for (let i = 0; i < 5; i++) expect((await fetch(`${live.origin}/health`)).status).toBe(200);
}

describe('svc_router_overhead_seconds', () => {
  it('counts each phase once per request, reads back x-svc-overhead-ms as the sum of the phases before the head, and leaves the upstream wait out', async () => {
    const upstream = await startHeldJsonUpstream();
    cleanups.push(() => upstream.close());
    const live = await routerTo(upstream.url);

    for (let round = 1; round <= 3; round++) {
      const before = await scrape(live);
      const answer = send(live);
      await upstream.arrived();
      await busyRoundTrips(live);
      upstream.release();
      const response = await answer;
      expect(response.status).toBe(200);
      await response.text();
      const after = await scrape(live);

      for (const phase of ROUTER_PHASES) expect(phaseCount(after, phase) - phaseCount(before, phase), phase).toBe(1);
      const spent = Object.fromEntries(ROUTER_PHASES.map((phase) => [phase, (phaseSum(after, phase) - phaseSum(before, phase)) * 1000]));
      for (const phase of ROUTER_PHASES) expect(spent[phase], phase).toBeGreaterThanOrEqual(0);

      // The header is the phases up to the reply built: to its three decimals.
      const header = Number(response.headers.get('x-svc-overhead-ms'));
      const beforeHead = HEADER_PHASES.reduce((sum, phase) => sum + spent[phase]!, 0);
      expect(Math.abs(header - beforeHead)).toBeLessThanOrEqual(0.0005 + 1e-9);

      // The upstream held the reply inside the request's time; the phases plus that hold still fit in it.
      const latencyMs = (sampleValue(after, 'svc_router_request_duration_seconds_sum', { endpoint: ENDPOINT }) - sampleValue(before, 'svc_router_request_duration_seconds_sum', { endpoint: ENDPOINT })) * 1000;
      const ownMs = ROUTER_PHASES.reduce((sum, phase) => sum + spent[phase]!, 0);
      expect(ownMs + upstream.heldMs[round - 1]!).toBeLessThanOrEqual(latencyMs);
    }
    // Only the router's phases are series: the upstream wait is none of them.
    const labels = new Set((await scrape(live)).filter((sample) => sample.name === 'svc_router_overhead_seconds_count').map((sample) => sample.labels.phase));
    expect([...labels].sort()).toEqual([...ROUTER_PHASES].sort());
  });

  it('counts a stream once, at its head, with the header the sum of its phases and the held stream not in them', async () => {
    const upstream = await startHeldStreamUpstream();
    cleanups.push(() => upstream.close());
    const live = await routerTo(upstream.url);

    const before = await scrape(live);
    const response = await send(live, true);
    expect(response.status).toBe(200);
    await upstream.holding();
    await busyRoundTrips(live);
    const mid = await scrape(live);
    // The head is written while the upstream still holds the stream: the phases are in already.
    for (const phase of ROUTER_PHASES) expect(phaseCount(mid, phase) - phaseCount(before, phase), phase).toBe(1);
    upstream.release();
    expect(await response.text()).toContain('[DONE]');
    const after = await scrape(live);
    for (const phase of ROUTER_PHASES) expect(phaseCount(after, phase) - phaseCount(before, phase), phase).toBe(1);
    const beforeHead = HEADER_PHASES.reduce((sum, phase) => sum + (phaseSum(after, phase) - phaseSum(before, phase)) * 1000, 0);
    expect(Math.abs(Number(response.headers.get('x-svc-overhead-ms')) - beforeHead)).toBeLessThanOrEqual(0.0005 + 1e-9);
  });

  it('is not observed for requests that are not completions, and a refused completion counts its phases once', async () => {
    const upstream = await startHeldJsonUpstream();
    cleanups.push(() => upstream.close());
    const live = await routerTo(upstream.url);
    const before = await scrape(live);
    expect((await fetch(`${live.baseURL}/models`, { headers: { authorization: `Bearer ${live.key}` } })).status).toBe(200);
    const refused = await fetch(`${live.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${live.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc.intelligent-pro', messages: 'not a list' }),
    });
    expect(refused.status).toBe(400);
    const after = await scrape(live);
    for (const phase of ROUTER_PHASES) expect(phaseCount(after, phase) - phaseCount(before, phase), phase).toBe(1);
  });
});

describe('per-request deadlines', () => {
  it('the router arms no timer of its own per request: its deadlines share the one wheel', async () => {
    const upstream = await startHeldJsonUpstream();
    cleanups.push(() => upstream.close());
    const live = await routerTo(upstream.url);
    const armed: string[] = [];
    const real = globalThis.setTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((...args: Parameters<typeof setTimeout>) => {
      const caller = new Error().stack?.split('\n').slice(2).find((line) => !line.includes('node:') && !line.includes('node_modules'));
      if (caller?.includes('/src/')) armed.push(caller.trim());
      return real(...args);
    }) as typeof setTimeout);
    for (let i = 0; i < 4; i++) {
      const answer = send(live);
      await upstream.arrived();
      upstream.release();
      expect((await answer).status).toBe(200);
    }
    // At most the wheel's own timer (armed when it had nothing pending); never one per request.
    expect(armed.filter((line) => !line.includes('timer-wheel'))).toEqual([]);
  });
});
