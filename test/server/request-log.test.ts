import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { createRequestLog, formatText, type RequestLogEntry, type RequestLogOptions } from '../../src/server/request-log.js';
import { Chalk } from 'chalk';
import { startHeldStreamUpstream } from '../helpers/held-stream-upstream.js';
import { startRouter, type TestRouter } from '../helpers/router.js';

/** The request log: what a real server writes for real requests, and how cheaply it writes it. */

/** A log whose writes land here; `lines(n)` resolves once n lines have been written. */
function capture(options: Omit<RequestLogOptions, 'write'>) {
  const writes: string[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const lines = () => writes.join('').split('\n').filter(Boolean);
  const log = createRequestLog({
    ...options,
    write: (text) => {
      writes.push(text);
      for (const waiter of [...waiters]) if (lines().length >= waiter.count) waiters.splice(waiters.indexOf(waiter), 1) && waiter.resolve();
    },
  });
  return {
    log,
    writes,
    lines,
    async waitForLines(count: number): Promise<string[]> {
      if (lines().length < count) await new Promise<void>((resolve) => waiters.push({ count, resolve }));
      return lines();
    },
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function router(sink: ReturnType<typeof capture>): Promise<TestRouter> {
  const started = await startRouter({ http: { requestLog: sink.log } });
  cleanups.push(() => started.close());
  return started;
}

const PROMPT = 'the secret plan is to meet at noon';

async function chat(live: TestRouter, body: object, key = live.key): Promise<Response> {
  return fetch(`${live.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('request log (JSON lines) from a real server', () => {
  it('logs one line per request with id, caller, format, model, backend, status, attempts, latency and tokens', async () => {
    const sink = capture({ format: 'json' });
    const live = await router(sink);

    const plain = await chat(live, { model: 'svc.intelligent-basic', messages: [{ role: 'user', content: PROMPT }] });
    const plainBody = (await plain.json()) as { svc_meta: { usage: { input_tokens: number; output_tokens: number } } };
    const streamed = await chat(live, { model: 'svc.intelligent-pro', stream: true, messages: [{ role: 'user', content: PROMPT }] });
    await streamed.text();
    const anthropic = new Anthropic({ apiKey: live.key, baseURL: live.origin, maxRetries: 0 });
    await anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 50, messages: [{ role: 'user', content: PROMPT }] });
    await anthropic.messages.countTokens({ model: 'svc.intelligent-lite', messages: [{ role: 'user', content: PROMPT }] });
    const refused = await chat(live, { model: 'svc.intelligent-basic', messages: [] }, `${live.key}x`);
    expect(refused.status).toBe(401);
    expect((await fetch(`${live.origin}/nowhere`)).status).toBe(404);

    const entries = (await sink.waitForLines(6)).map((line) => JSON.parse(line));
    expect(entries).toHaveLength(6);
    const [first, second, third, fourth, fifth, sixth] = entries;

    expect(first).toMatchObject({
      request_id: plain.headers.get('x-request-id'),
      method: 'POST',
      path: '/v1/chat/completions',
      status: 200,
      caller: 'alice',
      format: 'chat',
      model: 'svc.intelligent-basic',
      backend: 'offline',
      attempts: 1,
      input_tokens: plainBody.svc_meta.usage.input_tokens,
      output_tokens: plainBody.svc_meta.usage.output_tokens,
      stream: false,
    });
    expect(new Date(first.time).toISOString()).toBe(first.time);
    expect(Number.isInteger(first.latency_ms) && first.latency_ms >= 0).toBe(true);

    expect(second).toMatchObject({ request_id: streamed.headers.get('x-request-id'), status: 200, format: 'chat', model: 'svc.intelligent-pro', stream: true, backend: 'offline' });
    expect(second.output_tokens).toBeGreaterThan(0);
    expect(second.aborted).toBeUndefined();
    expect(third).toMatchObject({ path: '/v1/messages', format: 'messages', model: 'claude-sonnet-4-5', caller: 'alice', status: 200 });
    expect(fourth).toMatchObject({ path: '/v1/messages/count_tokens', format: 'count_tokens', backend: 'estimate', status: 200 });
    expect(fourth.input_tokens).toBeGreaterThan(0);
    expect(fifth).toMatchObject({ status: 401, format: 'chat', error: expect.stringContaining('Invalid API key') });
    expect(fifth.caller).toBeUndefined();
    expect(sixth).toMatchObject({ status: 404, path: '/nowhere' });
    expect(sixth.format).toBeUndefined();

    // Never a key, never a prompt.
    const text = sink.lines().join('\n');
    expect(text).not.toContain(live.key);
    expect(text).not.toContain('secret plan');
  });

  it('logs bodies (prompts included) only when asked to', async () => {
    const sink = capture({ format: 'json', logBodies: true });
    const live = await router(sink);
    await (await chat(live, { model: 'svc.intelligent-basic', messages: [{ role: 'user', content: PROMPT }] })).text();
    const [entry] = (await sink.waitForLines(1)).map((line) => JSON.parse(line));
    expect(entry.request_body).toEqual({ model: 'svc.intelligent-basic', messages: [{ role: 'user', content: PROMPT }] });
    expect(entry.response_body.choices[0].message.content).toContain(PROMPT);
    expect(JSON.stringify(entry)).not.toContain(live.key);
  });

  it('marks a stream the client abandoned', async () => {
    const sink = capture({ format: 'json' });
    const live = await router(sink);
    const upstream = await startHeldStreamUpstream();
    cleanups.push(() => upstream.close());
    live.config.update((settings) => {
      settings.backends.held = { type: 'openai-chat', baseUrl: upstream.url };
      settings.routes['svc.intelligent-pro'] = ['held:held-model'];
    });
    const aborter = new AbortController();
    const response = await fetch(`${live.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${live.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc.intelligent-pro', stream: true, messages: [{ role: 'user', content: 'hold' }] }),
      signal: aborter.signal,
    });
    await upstream.holding();
    await response.body!.getReader().read();
    aborter.abort();
    const [entry] = (await sink.waitForLines(1)).map((line) => JSON.parse(line));
    expect(entry).toMatchObject({ status: 200, stream: true, aborted: true, backend: 'held', upstream_model: 'held-model' });
  });
});

describe('request log (text)', () => {
  const entry: RequestLogEntry = {
    time: Date.UTC(2026, 10, 22, 6, 1, 11, 123),
    requestId: 'req_abc',
    method: 'POST',
    path: '/v1/chat/completions',
    status: 200,
    caller: 'alice',
    format: 'chat',
    model: 'svc.intelligent-pro',
    backend: 'anthropic',
    upstreamModel: 'claude-sonnet-4-5',
    attempts: 2,
    latencyMs: 812,
    inputTokens: 1200,
    outputTokens: 80,
  };

  it('is one logfmt line, plain when colour is off', () => {
    expect(formatText(entry, new Chalk({ level: 0 }))).toBe(
      '2026-11-22T06:01:11.123Z 200 POST /v1/chat/completions id=req_abc caller=alice format=chat model=svc.intelligent-pro backend=anthropic:claude-sonnet-4-5 attempts=2 latency_ms=812 tokens=1200+80',
    );
    expect(formatText({ ...entry, status: 401, caller: undefined, error: 'Invalid API key. "quoted"' }, new Chalk({ level: 0 }))).toMatch(/ 401 .* error="Invalid API key\. \\"quoted\\""$/);
  });

  it('is coloured for a terminal', () => {
    const coloured = formatText(entry, new Chalk({ level: 1 }));
    expect(coloured).toContain('\u001b[32m200\u001b[39m');
    expect(coloured.replace(/\u001b\[\d+m/g, '')).toBe(formatText(entry, new Chalk({ level: 0 })));
  });

  it('writes text lines from a real server', async () => {
    const sink = capture({ format: 'text' });
    const live = await router(sink);
    const response = await chat(live, { model: 'svc.intelligent-basic', messages: [{ role: 'user', content: PROMPT }] });
    await response.text();
    const [line] = await sink.waitForLines(1);
    const match = /^(\S+Z) (\d{3}) (POST) (\S+) id=(req_\w+) caller=(\S+) format=(\S+) model=(\S+) backend=(\S+) attempts=(\d+) latency_ms=(\d+) tokens=(\d+)\+(\d+) cost_usd=0$/.exec(line!);
    expect(match, line).not.toBeNull();
    expect(match!.slice(2, 11)).toEqual(['200', 'POST', '/v1/chat/completions', response.headers.get('x-request-id'), 'alice', 'chat', 'svc.intelligent-basic', 'offline', '1']);
  });
});

describe('request log buffering', () => {
  const entry = (status: number): RequestLogEntry => ({ time: 0, method: 'GET', path: '/whoami', status, latencyMs: 1 });

  it('writes nothing on the request path; one write per turn of the event loop', async () => {
    const sink = capture({ format: 'json' });
    sink.log.record(entry(200));
    sink.log.record(entry(201));
    sink.log.record(entry(202));
    expect(sink.writes).toEqual([]);
    const lines = await sink.waitForLines(3);
    expect(sink.writes).toHaveLength(1);
    expect(lines.map((line) => JSON.parse(line).status)).toEqual([200, 201, 202]);
  });

  it('writes at once when many entries are queued, and on flush()', () => {
    const sink = capture({ format: 'json', maxQueued: 2 });
    sink.log.record(entry(200));
    expect(sink.writes).toHaveLength(0);
    sink.log.record(entry(201));
    expect(sink.writes).toHaveLength(1);
    sink.log.record(entry(202));
    sink.log.flush();
    expect(sink.writes).toHaveLength(2);
    expect(sink.lines().map((line) => JSON.parse(line).status)).toEqual([200, 201, 202]);
    sink.log.flush();
    expect(sink.writes).toHaveLength(2);
  });
});
