import { afterEach, describe, expect, it } from 'vitest';
import { RouterError } from '../../src/core/errors.js';
import type { Usage } from '../../src/core/reply.js';
import type { StreamEvent } from '../../src/core/stream-events.js';
import type { Policy } from '../../src/policies/policy.js';
import { POLICIES } from '../../src/policies/registry.js';
import { createRequestLog } from '../../src/server/request-log.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { parseSse } from '../helpers/sse-frames.js';
import { Fakes, SKU } from '../integration/support.js';

/**
 * A policy of a test's own, behind the registry's, on a real router in front of a real same-format
 * upstream: what the pipeline promises any policy (headers on every reply, its note in the request
 * record, settle once with the recorded usage or release on failure, and a reply it reads is
 * translated, never forwarded, and shown to it batch by batch).
 */

const fakes = new Fakes();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await fakes.closeAll();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Calls {
  settled: Array<{ usage: Usage; cost: number | undefined }>;
  released: number;
  seen: StreamEvent[];
}

/** A policy that records what the pipeline asks of it; `inspect` only when asked, `refuseOn` makes it throw from inspect. */
function testPolicy(calls: Calls, options: { inspect?: boolean; refuseOn?: string } = {}): Policy {
  return {
    name: 'test-policy',
    admit: () => ({
      headers: { 'x-test-policy': 'admitted' },
      note: 'looked, found nothing',
      settle: (usage, cost) => void calls.settled.push({ usage, cost }),
      release: () => void calls.released++,
      ...(options.inspect
        ? {
            inspect: (batch: readonly StreamEvent[]) => {
              calls.seen.push(...batch);
              if (options.refuseOn && batch.some((event) => event.type === 'text-delta' && event.text.includes(options.refuseOn!))) {
                throw new RouterError(400, 'invalid_request', 'the reply was refused', undefined, 'reply_refused');
              }
            },
          }
        : {}),
    }),
  };
}

/** Log lines as the router writes them; `next()` resolves with the next one. */
function logLines() {
  const waiting: Array<(line: string) => void> = [];
  const written: string[] = [];
  return {
    write(text: string) {
      for (const line of text.split('\n').filter(Boolean)) {
        const waiter = waiting.shift();
        if (waiter) waiter(line);
        else written.push(line);
      }
    },
    next: (): Promise<string> => (written.length ? Promise.resolve(written.shift()!) : new Promise((resolve) => waiting.push(resolve))),
  };
}

async function router(policy: Policy, lines?: ReturnType<typeof logLines>): Promise<TestRouter> {
  const requestLog = lines ? createRequestLog({ format: 'json', write: lines.write }) : undefined;
  const started = await startRouter({ policies: [...POLICIES, policy], ...(requestLog ? { http: { requestLog } } : {}) });
  cleanups.push(() => started.close());
  return started;
}

const chat = (live: TestRouter, stream: boolean) =>
  fetch(`${live.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${live.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: SKU, stream, messages: [{ role: 'user', content: 'hello' }] }),
  });

const freshCalls = (): Calls => ({ settled: [], released: 0, seen: [] });

describe('a policy in the pipeline', () => {
  for (const stream of [false, true]) {
    it(`puts its headers on the reply, its note in the log, and is settled once with the usage (${stream ? 'stream' : 'JSON'}, forwarded)`, async () => {
      const calls = freshCalls();
      const lines = logLines();
      const live = await router(testPolicy(calls), lines);
      await fakes.routeSku(live, 'openai-chat', [{ text: 'the answer', usage: { input: 11, output: 7 } }]);
      const response = await chat(live, stream);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-test-policy')).toBe('admitted');
      await response.text();
      const logged = JSON.parse(await lines.next()) as { notes?: Record<string, string> };
      expect(logged.notes).toEqual({ 'test-policy': 'looked, found nothing' });
      expect(calls.settled).toHaveLength(1);
      expect(calls.settled[0]!.usage).toMatchObject({ inputTokens: 11, outputTokens: 7 });
      expect(calls.released).toBe(0);
      // Never decoded, never shown: without an inspecting admission the reply is forwarded.
      expect(calls.seen).toEqual([]);
    });

    it(`reads a same-format reply, which is then translated and shown to it (${stream ? 'stream' : 'JSON'})`, async () => {
      const calls = freshCalls();
      const live = await router(testPolicy(calls, { inspect: true }));
      await fakes.routeSku(live, 'openai-chat', [{ text: 'read me', usage: { input: 5, output: 3 } }]);
      const response = await chat(live, stream);
      expect(response.status).toBe(200);
      await response.text();
      const text = calls.seen.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');
      expect(text).toBe('read me');
      expect(calls.seen.at(-1)).toMatchObject({ type: 'finish' });
      expect(calls.settled).toHaveLength(1);
    });
  }

  it('ends a stream it refuses with an error event, and the usage seen is still billed', async () => {
    const calls = freshCalls();
    const live = await router(testPolicy(calls, { inspect: true, refuseOn: 'forbidden' }));
    await fakes.routeSku(live, 'openai-chat', [{ text: 'this is forbidden text', chunkSize: 100, usage: { input: 5, output: 3 } }]);
    const response = await chat(live, true);
    const frames = parseSse(await response.text());
    const errors = frames.filter((frame) => frame.data.includes('"error"'));
    expect(errors.map((frame) => JSON.parse(frame.data).error.code)).toEqual(['reply_refused']);
    expect(frames.some((frame) => frame.data.includes('forbidden'))).toBe(false);
    expect(calls.settled).toHaveLength(1);
    expect(calls.released).toBe(0);
  });

  it('is released, never settled, when the upstream fails before any usage', async () => {
    const calls = freshCalls();
    const live = await router(testPolicy(calls));
    await fakes.routeSku(live, 'openai-chat', [{ status: 400 }]);
    for (const stream of [false, true]) {
      const response = await chat(live, stream);
      expect(response.status).toBe(400);
      await response.text();
    }
    expect(calls.released).toBe(2);
    expect(calls.settled).toHaveLength(0);
  });
});
