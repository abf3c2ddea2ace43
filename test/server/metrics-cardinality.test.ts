import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RouterMetrics } from '../../src/server/metrics.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { bearer, messagesHeaders, send } from './http-support.js';

/**
 * /metrics needs no key, so whatever clients send must not add series: every label value is the
 * router's own (a path it serves, a status, a backend or route from the config), never a model
 * name, path or method a client made up.
 */

let router: TestRouter;

beforeAll(async () => {
  router = await startRouter({ http: { metrics: new RouterMetrics() } });
  router.config.update((settings) => {
    settings.routes['claude-opus-*'] = ['offline'];
    settings.routes['svc.team-model'] = ['offline'];
  });
});
afterAll(() => router.close());

interface Series {
  name: string;
  labels: Record<string, string>;
}

/** Every series in the exposition (histogram buckets folded into their family), by name and labels. */
async function series(): Promise<Series[]> {
  const response = await fetch(`${router.origin}/metrics`);
  expect(response.status).toBe(200);
  const found = new Map<string, Series>();
  for (const line of (await response.text()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-z_]+?)(?:_bucket|_sum|_count)?(?:\{(.*)\})? \S+$/.exec(line);
    if (!match) throw new Error(`not a sample: ${line.slice(0, 200)}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)) if (key !== 'le') labels[key!] = value!;
    const name = match[1]!;
    found.set(`${name}${JSON.stringify(labels)}`, { name, labels });
  }
  return [...found.values()];
}

/** The values each label may take, whatever clients send. */
const ALLOWED: Record<string, (value: string) => boolean> = {
  endpoint: (value) =>
    ['/', '/health', '/whoami', '/v1/models', '/v1/models/{id}', '/v1/chat/completions', '/v1/responses', '/v1/messages', '/v1/messages/count_tokens', 'other'].includes(value),
  status: (value) => /^[1-5]\d\d$/.test(value),
  sku: (value) => ['svc.intelligent-pro', 'svc.intelligent-basic', 'svc.intelligent-lite', 'claude-opus-*', 'svc.team-model', 'other'].includes(value),
  backend: (value) => ['offline'].includes(value),
  direction: (value) => ['input', 'output'].includes(value),
  phase: (value) => ['read', 'route', 'admit', 'encode', 'write'].includes(value),
};

function expectBounded(all: Series[]): void {
  for (const { name, labels } of all) {
    for (const [label, value] of Object.entries(labels)) {
      expect(Object.hasOwn(ALLOWED, label), `${name} has label ${label}`).toBe(true);
      expect(ALLOWED[label]!(value), `${name}{${label}="${value.slice(0, 80)}"}`).toBe(true);
    }
  }
}

const modelName = fc.oneof(
  fc.string({ minLength: 1, maxLength: 60 }).map((tail) => `claude-${tail}`),
  fc.string({ minLength: 1, maxLength: 60 }).map((tail) => `claude-opus-${tail}`),
  fc.string({ minLength: 1, maxLength: 60 }).map((tail) => `svc.${tail}`),
  fc.string({ minLength: 1, maxLength: 60 }),
  fc.constantFrom('svc.intelligent-pro', 'svc.team-model', '__proto__', 'constructor'),
);
const pathSegment = fc.stringMatching(/^[A-Za-z0-9._~-]{1,30}$/);
const path = fc.oneof(
  pathSegment.map((segment) => `/${segment}`),
  pathSegment.map((segment) => `/v1/${segment}`),
  pathSegment.map((segment) => `/v1/models/${segment}`),
  pathSegment.map((segment) => `/v1/messages/${segment}`),
  fc.constantFrom('/v1/chat/completions', '/v1/messages', '/health', '/'),
);
const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'PROPFIND', 'PURGE', 'MKCOL');

const chat = (model: string, stream: boolean) =>
  send(router, 'POST', '/v1/chat/completions', { headers: bearer(router.key), body: { model, stream, messages: [{ role: 'user', content: 'hi' }] } });
const messages = (model: string, stream: boolean) =>
  send(router, 'POST', '/v1/messages', { headers: messagesHeaders(router.key), body: { model, stream, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] } });

describe('metric series stay bounded', () => {
  it('adds no series for invented model names, however many and however long', async () => {
    // One of each kind the router serves, so every series that can exist exists.
    for (const model of ['svc.intelligent-pro', 'svc.team-model', 'claude-opus-4', 'claude-invented']) expect((await messages(model, false)).status).toBe(200);
    expect((await chat('svc.nope', false)).status).toBe(400);
    const before = await series();

    for (let i = 0; i < 100; i++) {
      const invented = `claude-${i}-${'x'.repeat(4096)}`;
      expect((await messages(invented, i % 2 === 1)).status).toBe(200);
      expect((await messages(`claude-opus-${i}`, false)).status).toBe(200);
      expect((await chat(`svc.invented-${i}`, false)).status).toBe(400);
    }
    const after = await series();
    expect(after.length).toBe(before.length);
    expectBounded(after);
    const tokens = after.filter((entry) => entry.name === 'svc_router_tokens_total').map((entry) => entry.labels.sku);
    expect(new Set(tokens)).toEqual(new Set(['svc.intelligent-pro', 'svc.team-model', 'claude-opus-*', 'other']));
  });

  it('keeps every label within the router\'s own values for random models, paths and methods', async () => {
    await fc.assert(
      fc.asyncProperty(modelName, path, method, fc.boolean(), async (model, target, verb, stream) => {
        await messages(model, stream);
        await chat(model, stream);
        const hasBody = verb !== 'GET' && verb !== 'HEAD';
        await send(router, verb, target, { headers: { ...messagesHeaders(router.key), ...bearer(router.key) }, ...(hasBody ? { body: { model, messages: [] } } : {}) });
      }),
      { numRuns: 60 },
    );
    const all = await series();
    expectBounded(all);
    // endpoints (10) × a handful of statuses, plus latency per endpoint, tokens per route, and the gauge.
    expect(all.length).toBeLessThan(120);
  });
});
