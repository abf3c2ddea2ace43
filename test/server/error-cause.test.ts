import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createRequestLog, type LogFormat } from '../../src/server/request-log.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { unusedPort } from '../helpers/unused-port.js';

/**
 * An error's cause (the upstream's own words, a network failure) reaches the request log, redacted,
 * and never a client: every client body is built from the error's message, param and code.
 */

/** The backend's key, which the upstream quotes back in its refusal. */
const BACKEND_KEY = 'sk-proj-Qw3rTy7UiOp9AsDfGh2JkL';
/** Upstream detail only the log should hold. */
const DETAIL = 'shard eu-7 refused credential on node 4411';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A log whose lines land here; `next()` resolves with the next line written. */
function capture(format: LogFormat) {
  const lines: string[] = [];
  let waiting: ((line: string) => void) | undefined;
  const log = createRequestLog({
    format,
    write: (text) => {
      for (const line of text.split('\n').filter(Boolean)) {
        lines.push(line);
        waiting?.(line);
        waiting = undefined;
      }
    },
  });
  return {
    log,
    next: (): Promise<string> => (lines.length ? Promise.resolve(lines.shift()!) : new Promise((resolve) => (waiting = (line) => resolve((lines.shift(), line))))),
  };
}

/** An upstream that refuses every request with `status`, quoting the key it was sent. */
async function refusingUpstream(status: number): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const sent = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${sent}. ${DETAIL}`, type: 'invalid_request_error' } }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

async function router(format: LogFormat, baseUrl: string) {
  const sink = capture(format);
  const live = await startRouter({ http: { requestLog: sink.log } });
  cleanups.push(() => live.close());
  live.config.update((settings) => {
    settings.backends.up = { type: 'openai-chat', baseUrl, apiKey: BACKEND_KEY };
    settings.routes['svc.intelligent-pro'] = ['up:some-model'];
  });
  return { live, sink };
}

async function chat(live: TestRouter, stream = false): Promise<{ status: number; text: string }> {
  const response = await fetch(`${live.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${live.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'svc.intelligent-pro', messages: [{ role: 'user', content: 'hello' }], stream }),
  });
  return { status: response.status, text: await response.text() };
}

describe('error causes', () => {
  for (const format of ['json', 'text'] as const) {
    it(`logs the upstream's refusal as the cause, keys redacted, and keeps it from the client (${format} log)`, async () => {
      const { live, sink } = await router(format, await refusingUpstream(401));

      for (const stream of [false, true]) {
        const answer = await chat(live, stream);
        expect(answer.status).toBe(502);
        expect(answer.text).toContain("Backend 'up' rejected its API key (HTTP 401)");
        expect(answer.text).not.toContain('eu-7');
        expect(answer.text).not.toContain(BACKEND_KEY);

        const line = await sink.next();
        expect(line).not.toContain(BACKEND_KEY);
        const cause = format === 'json' ? (JSON.parse(line) as { cause: string }).cause : /cause=("(?:[^"\\]|\\.)*")/.exec(line)?.[1];
        expect(cause).toBeDefined();
        const text = format === 'json' ? cause! : (JSON.parse(cause!) as string);
        expect(text).toContain('HTTP 401: Incorrect API key provided: [redacted]');
        expect(text).toContain(DETAIL);
      }
    });
  }

  it("logs a network failure's own error as the cause; the client sees only the router's words", async () => {
    const port = await unusedPort();
    const { live, sink } = await router('json', `http://127.0.0.1:${port}/v1`);

    const answer = await chat(live);
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { message: "Backend 'up' refused the connection.", code: 'upstream_unreachable' } });
    expect(answer.text).not.toContain(String(port));

    const entry = JSON.parse(await sink.next()) as { error: string; cause: string };
    expect(entry.error).toBe("Backend 'up' refused the connection.");
    expect(entry.cause).toContain('ECONNREFUSED');
    expect(entry.cause).toContain(String(port));
  });

  it('logs a stream that failed after it began, with its cause, though it was answered with a 200', async () => {
    let cut!: () => void;
    const cutNow = new Promise<void>((resolve) => (cut = resolve));
    const server = http.createServer(async (req, res) => {
      for await (const _ of req) {
        // Drain the request body.
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: 'first' }, finish_reason: null }] })}\n\n`);
      await cutNow;
      res.socket?.destroy();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { live, sink } = await router('json', `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);

    const response = await fetch(`${live.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${live.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc.intelligent-pro', messages: [{ role: 'user', content: 'hello' }], stream: true }),
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('first')) text += new TextDecoder().decode((await reader.read()).value);
    cut();
    for (let next = await reader.read(); !next.done; next = await reader.read()) text += new TextDecoder().decode(next.value);

    const entry = JSON.parse(await sink.next()) as { status: number; error: string; cause: string };
    expect(entry.status).toBe(200);
    expect(text).toContain(JSON.stringify(entry.error).slice(1, -1));
    expect(entry.cause).toMatch(/UND_ERR_SOCKET|ECONNRESET/);
    expect(text).not.toContain(entry.cause);
  });

  it('leaves the cause out of a request that did not fail', async () => {
    const sink = capture('json');
    const live = await startRouter({ http: { requestLog: sink.log } });
    cleanups.push(() => live.close());
    await chat(live);
    expect(JSON.parse(await sink.next())).not.toHaveProperty('cause');
  });
});
