import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../src/core/request-record.js';
import { createDashboard } from '../../src/server/dashboard/dashboard.js';
import { RouterMetrics } from '../../src/server/metrics.js';
import { requestAttributes } from '../../src/server/otel-export.js';
import { batchedLog, createRequestLog } from '../../src/server/request-log.js';
import { createRequestStore, fanOut, REQUESTS_FILE } from '../../src/server/request-store.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { send } from '../helpers/send.js';
import { addBackend, setRoute, SKU, startUpstream } from '../integration/support.js';
import type { FakeUpstream } from '../fakes/fake-server.js';

/**
 * A key in a URL is the classic leak: `?key=` lands in access logs, traces and error pages. Whatever
 * the key (the router's own, a wrong one, a Google key sent by mistake, any text) and whatever the
 * request (answered, streamed, refused, on a path that does not exist, on the dashboard or the
 * metrics), the key appears in nothing the router writes: the response, the request log in both
 * formats, the stored log file, the dashboard's feed and overview, /metrics, /admin/sessions,
 * /admin/usage, the OpenTelemetry attributes of each request, and the router's own stderr.
 */

let router: TestRouter;
let upstream: FakeUpstream;
const lines: string[] = [];
const entries: RequestLogEntry[] = [];
const stderr: string[] = [];
let restoreStderr: () => void;

beforeAll(async () => {
  const original = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    stderr.push(String(chunk));
    return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  restoreStderr = () => void (process.stderr.write = original);
  const ui = createDashboard();
  const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'svc-key-leaks-'));
  const requestLog = fanOut([
    createRequestLog({ format: 'json', logBodies: true, write: (text) => void lines.push(text) }),
    createRequestLog({ format: 'text', write: (text) => void lines.push(text) }),
    createRequestStore({ dir, retentionDays: 1, maxBytes: 10_000_000, logBodies: true }),
    batchedLog((batch) => void entries.push(...batch)),
    ui.feed,
  ]);
  router = await startRouter({ http: { requestLog, metrics: new RouterMetrics(), ui } });
  router.config.update((settings) => {
    settings.routing = { ...settings.routing, sessionHeader: 'x-session' };
  });
  (router as TestRouter & { logDir: string }).logDir = dir;
  // The upstream fails the requests that ask it to, so that an upstream's error is among what the router writes.
  upstream = await startUpstream('anthropic', (body) => (JSON.stringify(body).includes(UPSTREAM_FAILS) ? { status: 503 } : { text: 'ok', chunkSize: 2 }));
  addBackend(router, 'up', 'anthropic', upstream.url);
  setRoute(router, SKU, ['up:model-a']);
});

afterAll(async () => {
  restoreStderr();
  await upstream.close();
  await router.close();
});

const UPSTREAM_FAILS = 'the upstream fails this one';
const BODY = { contents: [{ role: 'user', parts: [{ text: 'Say hi' }] }] };

/** Each kind of request a client with a key in its URL may make, good and bad. */
const REQUESTS: Array<{ name: string; method: 'GET' | 'POST'; path: string; body?: unknown }> = [
  { name: 'generateContent', method: 'POST', path: `/v1beta/models/${SKU}:generateContent`, body: BODY },
  { name: 'an upstream failure', method: 'POST', path: `/v1beta/models/${SKU}:generateContent`, body: { contents: [{ role: 'user', parts: [{ text: UPSTREAM_FAILS }] }] } },
  { name: 'stream (SSE)', method: 'POST', path: `/v1beta/models/${SKU}:streamGenerateContent?alt=sse`, body: BODY },
  { name: 'stream (array)', method: 'POST', path: `/v1/models/${SKU}:streamGenerateContent`, body: BODY },
  { name: 'countTokens', method: 'POST', path: `/v1beta/models/${SKU}:countTokens`, body: BODY },
  { name: 'models', method: 'GET', path: '/v1beta/models' },
  { name: 'a model', method: 'GET', path: `/v1beta/models/${SKU}` },
  { name: 'an unknown model', method: 'POST', path: '/v1beta/models/nope:generateContent', body: BODY },
  { name: 'an unknown method', method: 'POST', path: `/v1beta/models/${SKU}:embedContent`, body: BODY },
  { name: 'a bad body', method: 'POST', path: `/v1beta/models/${SKU}:generateContent`, body: '{"contents":[' },
  { name: 'the wrong verb', method: 'GET', path: `/v1beta/models/${SKU}:generateContent` },
  { name: 'no such path', method: 'GET', path: '/v1beta/tunedModels' },
  { name: 'the shared list', method: 'GET', path: '/v1/models' },
  { name: 'another door', method: 'POST', path: '/v1/chat/completions', body: { model: SKU, messages: [{ role: 'user', content: 'hi' }] } },
  { name: 'whoami', method: 'GET', path: '/whoami' },
  { name: 'metrics', method: 'GET', path: '/metrics' },
  { name: 'the dashboard', method: 'GET', path: '/ui' },
];

const withKey = (target: string, key: string) => `${target}${target.includes('?') ? '&' : '?'}key=${encodeURIComponent(key)}`;

describe('a key given as ?key=', () => {
  it('appears in nothing the router writes', async () => {
    const keys = fc.oneof(
      fc.constant('valid'),
      fc.stringMatching(/^svc_[a-z]{3,8}_[A-Za-z0-9]{24,40}$/),
      fc.stringMatching(/^AIza[0-9A-Za-z_-]{35}$/),
      fc.string({ minLength: 8, maxLength: 40 }).filter((text) => text.trim().length >= 8),
    );
    await fc.assert(
      fc.asyncProperty(keys, fc.constantFrom(...REQUESTS), fc.boolean(), async (drawn, request, withSession) => {
        const key = drawn === 'valid' ? router.issueKey(`dev${Math.random().toString(36).slice(2, 8)}`) : drawn;
        const written = { lines: lines.length, entries: entries.length, stderr: stderr.length };
        const reply = await send(router, withKey(request.path, key), { method: request.method, headers: withSession ? { 'x-session': 'session-one' } : {}, ...(request.body !== undefined ? { body: request.body } : {}) });
        // Every log is written off the request's path, on a later turn of the event loop.
        await new Promise((resolve) => setImmediate(resolve));
        await new Promise((resolve) => setTimeout(resolve, 0));
        const admin = { 'x-api-key': router.key };
        const outputs = [
          `${reply.status} ${[...reply.headers].map(([name, value]) => `${name}: ${value}`).join('\n')}\n${reply.text}`,
          lines.slice(written.lines).join(''),
          stderr.slice(written.stderr).join(''),
          fs.readFileSync(path.join((router as TestRouter & { logDir: string }).logDir, REQUESTS_FILE), 'utf8'),
          JSON.stringify(entries.slice(written.entries).map((entry) => requestAttributes(entry, () => 'anthropic', []))),
          (await send(router, '/metrics')).text,
          (await send(router, '/admin/sessions', { headers: admin })).text,
          (await send(router, '/admin/usage', { headers: admin })).text,
          (await send(router, '/ui/api/overview', { headers: admin })).text,
          (await send(router, '/ui', { headers: admin })).text,
        ];
        const forms = [...new Set([key, encodeURIComponent(key), JSON.stringify(key).slice(1, -1)])];
        for (const [index, output] of outputs.entries()) {
          for (const form of forms) expect(output.includes(form), `${request.name}: output ${index} holds the key ${JSON.stringify(form)}`).toBe(false);
        }
        if (drawn === 'valid' && request.name === 'generateContent') expect(reply.status).toBe(200);
      }),
      { numRuns: 120 },
    );
  });
});
