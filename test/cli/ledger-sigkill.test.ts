import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { initHome, ledgerFile, makeHome, removeHome, runCliJson, startServe, type ServeChild } from './run-cli.js';

const LOOPS = 8;
const KILL_AFTER_COMPLETED = 200;

let home: string | undefined;
let server: ServeChild | undefined;
afterAll(async () => {
  await server?.kill();
  if (home) removeHome(home);
});

/** One chat completion; resolves with its svc_meta.request_id only once the response fully COMPLETED. */
async function completeOne(origin: string, key: string, stream: boolean, n: number): Promise<string> {
  const body: Record<string, unknown> = {
    model: n % 3 === 0 ? 'svc.intelligent-pro' : n % 3 === 1 ? 'svc.intelligent-basic' : 'svc.intelligent-lite',
    messages: [{ role: 'user', content: `load request number ${n}` }],
  };
  if (stream) {
    body.stream = true;
    if (n % 2 === 0) body.stream_options = { include_usage: true };
  }
  const response = await fetch(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  if (!stream) {
    const json = (await response.json()) as { svc_meta?: { request_id?: string } };
    const id = json.svc_meta?.request_id;
    if (!id) throw new Error('a completed response without svc_meta.request_id');
    return id;
  }

  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  let id: string | undefined;
  let done = false;
  for (;;) {
    const { value, done: ended } = await reader.read();
    if (ended) break;
    buffered += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n\n')) !== -1) {
      const frame = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = frame.startsWith('data: ') ? frame.slice(6).trim() : '';
      if (data === '[DONE]') done = true;
      else if (data) {
        const chunk = JSON.parse(data) as { svc_meta?: { request_id?: string }; error?: unknown };
        if (chunk.error) throw new Error(`stream error: ${JSON.stringify(chunk.error)}`);
        if (chunk.svc_meta?.request_id) id = chunk.svc_meta.request_id;
      }
    }
  }
  if (!id || !done) throw new Error(`stream ended before it completed (svc_meta: ${id ?? 'none'}, [DONE]: ${done})`);
  return id;
}

describe('the usage ledger survives SIGKILL under load', () => {
  it('holds a well-formed line for every request that completed before the kill', async () => {
    home = makeHome();
    const localKey = await initHome(home, ['--developer', 'loader', '--org', 'acme', '--tier', 'pro', '--cap', '1000000000']);
    server = await startServe(home);
    const { origin } = server;

    const completed: string[] = [];
    const failuresBeforeKill: unknown[] = [];
    // Requests cut off by the kill fail (connection reset, refused); they were never completed.
    let failuresAfterKill = 0;
    let inFlight = 0;
    let inFlightAtKill = -1;
    let killed = false;
    let counter = 0;
    const exited = server.exited;

    const loop = async (loopIndex: number): Promise<void> => {
      while (!killed) {
        const n = counter++;
        const stream = (n + loopIndex) % 2 === 0;
        inFlight++;
        try {
          const id = await completeOne(origin, localKey, stream, n);
          completed.push(id);
          if (!killed && completed.length >= KILL_AFTER_COMPLETED) {
            killed = true;
            // Other loops still have requests outstanding at this point.
            inFlightAtKill = inFlight - 1;
            server!.child.kill('SIGKILL');
          }
        } catch (error) {
          if (killed) failuresAfterKill++;
          else {
            failuresBeforeKill.push(error);
            return;
          }
        } finally {
          inFlight--;
        }
      }
    };
    await Promise.all(Array.from({ length: LOOPS }, (_, index) => loop(index)));

    expect(failuresBeforeKill).toEqual([]);
    expect(await exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(completed.length).toBeGreaterThanOrEqual(KILL_AFTER_COMPLETED);
    expect(inFlightAtKill).toBeGreaterThan(0);
    expect(new Set(completed).size).toBe(completed.length);

    const text = fs.readFileSync(ledgerFile(home), 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.split('\n').slice(0, -1);
    const parsed = lines.map((line, index) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`usage.jsonl line ${index + 1} is not JSON: ${JSON.stringify(line.slice(0, 200))}`);
      }
    });
    // Beside the usage records, the cap's reservations (held before forwarding, settled by the record).
    const reservations = parsed.filter((line) => 'reserve' in line || 'release' in line);
    const records = parsed.filter((line) => !('reserve' in line || 'release' in line));
    for (const line of reservations) {
      if ('release' in line) expect(String(line.release)).toMatch(/^req_/);
      else expect(line.reserve).toMatchObject({ developer: 'loader', id: expect.stringMatching(/^req_/), tokens: expect.any(Number), until: expect.any(Number) });
    }
    const reserved = new Set(reservations.flatMap((line) => ('reserve' in line ? [(line.reserve as { id: string }).id] : [])));
    // Every request that completed had held its share of the cap first.
    expect(completed.filter((id) => !reserved.has(id))).toEqual([]);
    for (const record of records) {
      expect(record).toMatchObject({ developer: 'loader', requests: 1, backend: 'offline' });
      expect(typeof record.ts).toBe('number');
      expect(typeof record.inputTokens).toBe('number');
      expect(typeof record.outputTokens).toBe('number');
      expect(String(record.model)).toMatch(/^svc\.intelligent-(pro|basic|lite)$/);
      expect(String(record.requestId)).toMatch(/^req_/);
    }
    const recorded = records.map((record) => record.requestId as string);
    // Exactly once: no request is billed twice.
    expect(new Set(recorded).size).toBe(recorded.length);
    const missing = completed.filter((id) => !recorded.includes(id));
    expect(missing).toEqual([]);
    expect(records.length).toBeGreaterThanOrEqual(completed.length);

    // A restarted server (and the in-process CLI) read the ledger the killed one left behind.
    const whoami = await runCliJson(['whoami', '--json'], { home });
    expect(whoami.usage.requests).toBe(records.length);
    server = await startServe(home);
    const usage = await fetch(`${server.origin}/whoami`, { headers: { authorization: `Bearer ${localKey}` } });
    expect(usage.status).toBe(200);
    expect(((await usage.json()) as { usage: { requests: number } }).usage.requests).toBe(records.length);
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
  }, 120_000);
});
