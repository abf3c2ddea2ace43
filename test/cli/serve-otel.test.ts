import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import type { FakeUpstream } from '../fakes/fake-server.js';
import { closedPortUrl } from '../helpers/unused-port.js';
import { startUpstream, UPSTREAM_KEY } from '../integration/support.js';
import { callRouter, initHome, makeHome, removeHome, ROOT, runCli, startServe, type ServeChild } from './run-cli.js';

/**
 * `serve --otel` on the built binary, exporting to a real OTLP/HTTP receiver (JSON encoding, the
 * one @opentelemetry/exporter-trace-otlp-http speaks): a span per request with the GenAI
 * attributes, a child per target tried; and with export off, nothing of it loads.
 */

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: Array<{ key: string; value: OtlpValue }>;
  status?: { code?: number; message?: string };
}
interface Received {
  span: OtlpSpan;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

const plain = (value: OtlpValue): unknown =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.doubleValue ?? value.boolValue ?? value.arrayValue?.values?.map(plain);
const attributesOf = (list: Array<{ key: string; value: OtlpValue }> = []): Record<string, unknown> => Object.fromEntries(list.map(({ key, value }) => [key, plain(value)]));

/** A collector's OTLP/HTTP trace endpoint: every span posted to /v1/traces, with the raw bodies. */
async function startReceiver(): Promise<{ url: string; spans: Received[]; bodies: string[]; waitFor: (count: number) => Promise<Received[]>; close: () => Promise<void> }> {
  const spans: Received[] = [];
  const bodies: string[] = [];
  const waiters: Array<() => void> = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(404).end();
        return;
      }
      bodies.push(text);
      const body = JSON.parse(text) as { resourceSpans: Array<{ resource?: { attributes?: Array<{ key: string; value: OtlpValue }> }; scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
      for (const resourceSpans of body.resourceSpans) {
        const resource = attributesOf(resourceSpans.resource?.attributes);
        for (const scope of resourceSpans.scopeSpans) for (const span of scope.spans) spans.push({ span, attributes: attributesOf(span.attributes), resource });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const wake of waiters.splice(0)) wake();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const waitFor = async (count: number): Promise<Received[]> => {
    while (spans.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    return spans;
  };
  return { url: `http://127.0.0.1:${port}`, spans, bodies, waitFor, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const HIDE_OTEL = path.join(ROOT, 'test', 'helpers', 'hide-otel-packages.mjs');
const PROMPT = 'trace me not';

const homes: string[] = [];
const servers: ServeChild[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.kill()));
  await Promise.all(closers.splice(0).map((close) => close()));
  homes.splice(0).forEach(removeHome);
});

async function home(): Promise<{ home: string; key: string }> {
  const dir = makeHome();
  homes.push(dir);
  return { home: dir, key: await initHome(dir) };
}

describe('serve --otel', () => {
  it('exports a span per request with the GenAI attributes and a child per target, without keys or prompts', async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    const fake: FakeUpstream = await startUpstream('openai-chat', [{ text: 'ok', usage: { input: 2_000, output: 100, cached: 0 } }]);
    closers.push(() => fake.close());
    const { home: dir, key } = await home();
    const down = await closedPortUrl();
    new ConfigStore(dir).update((settings) => {
      settings.backends.openai = { type: 'openai-chat', baseUrl: fake.url, apiKey: UPSTREAM_KEY };
      settings.backends.flaky = { type: 'anthropic', baseUrl: down, apiKey: UPSTREAM_KEY };
      settings.routes['svc.intelligent-basic'] = ['flaky:claude-sonnet-4-5', 'openai:gpt-4.1'];
    });
    const server = await startServe(dir, ['--port', '0', '--quiet', '--otel', receiver.url], { OTEL_BSP_SCHEDULE_DELAY: '20', OTEL_SERVICE_NAME: 'router-under-test' });
    servers.push(server);
    expect(await server.waitForLine(/OpenTelemetry:/)).toContain(`OpenTelemetry: a span per request to ${receiver.url}/v1/traces`);

    const ok = await callRouter(server.origin, key, 'POST', '/v1/chat/completions', { model: 'svc.intelligent-basic', messages: [{ role: 'user', content: PROMPT }] });
    expect(ok.status).toBe(200);
    const refused = await callRouter(server.origin, `${key}x`, 'POST', '/v1/messages', { model: 'svc.intelligent-basic', max_tokens: 5, messages: [{ role: 'user', content: PROMPT }] });
    expect(refused.status).toBe(401);

    // Two requests, the first with two attempts: four spans.
    const spans = await receiver.waitFor(4);
    const byId = new Map(spans.map((received) => [received.span.spanId, received]));
    const chat = spans.find((received) => received.attributes['svc_router.request_id'] === ok.json.svc_meta.request_id)!;
    expect(chat.span.name).toBe('chat svc.intelligent-basic');
    expect(chat.span.kind).toBe(2); // SERVER
    expect(chat.span.parentSpanId ?? '').toBe('');
    expect(chat.resource['service.name']).toBe('router-under-test');
    expect(chat.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'svc.intelligent-basic',
      'gen_ai.response.model': 'gpt-4.1',
      'gen_ai.usage.input_tokens': ok.json.usage.prompt_tokens,
      'gen_ai.usage.output_tokens': ok.json.usage.completion_tokens,
      'http.request.method': 'POST',
      'url.path': '/v1/chat/completions',
      'http.response.status_code': 200,
      'svc_router.caller': 'alice',
      'svc_router.format': 'chat',
      'svc_router.attempts': 2,
      'svc_router.targets': ['flaky:claude-sonnet-4-5/502', 'openai:gpt-4.1/ok'],
      'svc_router.cost_usd': ok.json.svc_meta.cost_usd,
    });
    expect(chat.attributes['error.type']).toBeUndefined();

    // The attempts: children of the request's span, in order, the failed one marked as an error.
    const attempts = spans.filter((received) => received.span.parentSpanId === chat.span.spanId);
    expect(attempts.map((received) => received.span.traceId)).toEqual([chat.span.traceId, chat.span.traceId]);
    const [failed, answered] = [...attempts].sort((a, b) => Number(BigInt(a.span.startTimeUnixNano) - BigInt(b.span.startTimeUnixNano)));
    expect(failed!.span.name).toBe('chat claude-sonnet-4-5');
    expect(failed!.span.kind).toBe(3); // CLIENT
    expect(failed!.attributes).toMatchObject({ 'gen_ai.provider.name': 'anthropic', 'gen_ai.request.model': 'claude-sonnet-4-5', 'error.type': '502', 'svc_router.backend': 'flaky' });
    expect(failed!.span.status?.code).toBe(2); // ERROR
    expect(answered!.attributes).toMatchObject({ 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4.1', 'svc_router.outcome': 'ok' });
    for (const attempt of attempts) {
      expect(BigInt(attempt.span.startTimeUnixNano) >= BigInt(chat.span.startTimeUnixNano)).toBe(true);
      expect(BigInt(attempt.span.endTimeUnixNano) <= BigInt(chat.span.endTimeUnixNano)).toBe(true);
    }

    // The refused request: an HTTP span with its status as the error's type, no caller.
    const denied = spans.find((received) => received.attributes['url.path'] === '/v1/messages')!;
    expect(byId.get(denied.span.parentSpanId ?? '')).toBeUndefined();
    expect(denied.attributes).toMatchObject({ 'http.response.status_code': 401, 'error.type': '401', 'svc_router.format': 'messages' });
    expect(denied.attributes['svc_router.caller']).toBeUndefined();
    expect(denied.span.status?.code).toBe(2);

    const sent = receiver.bodies.join('\n');
    for (const secret of [key, UPSTREAM_KEY, PROMPT]) expect(sent).not.toContain(secret);
  });

  it('takes OTEL_EXPORTER_OTLP_ENDPOINT when config server.otel turns it on', async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    const { home: dir, key } = await home();
    await runCli(['config', 'set', 'server.otel', 'true'], { home: dir });
    const server = await startServe(dir, ['--port', '0', '--quiet'], { OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/`, OTEL_BSP_SCHEDULE_DELAY: '20' });
    servers.push(server);
    const reply = await callRouter(server.origin, key, 'POST', '/v1/chat/completions', { model: 'svc.intelligent-lite', messages: [{ role: 'user', content: 'hi' }] });
    // The request's span and its one attempt.
    const span = (await receiver.waitFor(2)).find((received) => received.span.kind === 2);
    expect(span!.attributes).toMatchObject({ 'svc_router.request_id': reply.json.svc_meta.request_id, 'gen_ai.provider.name': 'svc_router.offline', 'gen_ai.request.model': 'svc.intelligent-lite' });
    expect(span!.resource['service.name']).toBe('svc-router');
  });

  it('names the missing package when the optional dependencies are not installed', async () => {
    const { home: dir } = await home();
    const result = await runCli(['serve', '--port', '0', '--otel'], { home: dir, env: { NODE_OPTIONS: `--import=${HIDE_OTEL}` } });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/--otel needs the optional package @opentelemetry\/[a-z-]+, which is not installed: run `npm install @opentelemetry\//);
  });

  it('rejects an --otel value that is not an http(s) URL', async () => {
    const { home: dir } = await home();
    const result = await runCli(['serve', '--port', '0', '--otel', 'localhost:4318'], { home: dir });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("--otel: expected an http:// or https:// URL, got 'localhost:4318'");
  });

  it('loads nothing of OpenTelemetry when export is off', async () => {
    const { home: dir, key } = await home();
    // Any import of the export module or an @opentelemetry package fails in this process.
    const server = await startServe(dir, ['--port', '0', '--quiet', '--ui', '--metrics'], { NODE_OPTIONS: `--import=${HIDE_OTEL}`, HIDE_OTEL_EXPORT: '1', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    servers.push(server);
    expect((await callRouter(server.origin, key, 'POST', '/v1/chat/completions', { model: 'svc.intelligent-lite', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
    expect((await callRouter(server.origin, key, 'GET', '/whoami')).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.lines.join('\n')).not.toContain('OpenTelemetry');
  });
});
