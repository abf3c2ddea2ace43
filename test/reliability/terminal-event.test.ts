import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRouter, type TestRouter } from '../helpers/router.js';
import {
  addRoutes,
  ANTHROPIC_OPENING_INPUT_TOKENS,
  bodyFor,
  brokenFrame,
  callFormat,
  CLIENT_FORMATS,
  closingFrames,
  expectMidStreamError,
  openingFrames,
  parseSse,
  startEventStream,
  startFaultUpstream,
  textFrame,
  UPSTREAM_KINDS,
  type ClientFormatName,
  type FaultUpstream,
  type Reply,
  type UpstreamKind,
} from './support.js';

/**
 * An upstream that sends a whole, well-formed stream and then keeps its connection open (a proxy
 * that holds keep-alive streams, a server that never ends the chunked body) must not hold the
 * client: the terminal event ends the client's stream at once, the usage is billed, and the router
 * hangs up on the upstream. No timing is asserted; if the router waited for the upstream to close,
 * these tests would run into their timeout (the idle timeout is set far beyond it).
 */

/** Anthropic streams report input tokens in their opening frames, the others at their end: the same figure for all. */
const USAGE = { input: ANTHROPIC_OPENING_INPUT_TOKENS, output: 7 };
/** The usage the closing frames after a broken frame report: never reached, so never billed. */
const BROKEN_USAGE = { input: 900, output: 900 };

/** The extra frames some upstreams send after their terminal event, which the router must not wait for. */
const AFTER_END: Record<UpstreamKind, string> = {
  'openai-chat': ': keep-alive\n\n',
  anthropic: 'event: ping\ndata: {"type":"ping"}\n\n',
  'openai-responses': ': keep-alive\n\n',
  gemini: ': keep-alive\n\n',
};

/** The two ways a frame can be no event: not valid JSON, or valid JSON its format has no event for. */
const BROKEN = ['not JSON', 'not an event'] as const;
type Broken = (typeof BROKEN)[number];
const brokenSku = (kind: UpstreamKind, how: Broken, format: ClientFormatName) => `svc.broken-${kind}-${how.replaceAll(' ', '-')}-${format}`;
/** Per broken route: resolves when the router hung up on its held stream. */
const brokenHungUp = new Map<string, Promise<void>>();

let router: TestRouter;
let upstream: FaultUpstream;
/** Per upstream kind: resolves when the router hung up on the held stream. */
const hungUp = new Map<string, Promise<void>[]>();

beforeAll(async () => {
  [router, upstream] = await Promise.all([startRouter(), startFaultUpstream()]);
  addRoutes(
    router,
    UPSTREAM_KINDS.map((kind) => ({
      sku: `svc.held-${kind}`,
      backend: `held-${kind}`,
      type: kind,
      baseUrl: upstream.url,
      upstreamModel: `held-${kind}`,
      // Far beyond the test timeout: only the terminal event can end these streams in time.
      timeouts: { idleMs: 120_000, firstByteMs: 120_000 },
    })),
  );
  addRoutes(router, [{ sku: 'svc.held-no-done', backend: 'held-no-done', type: 'openai-chat', baseUrl: upstream.url, upstreamModel: 'held-no-done', timeouts: { idleMs: 120_000 } }]);
  upstream.serve('held-no-done', (call) => {
    startEventStream(call.res);
    call.res.write(openingFrames('openai-chat', 'Held open') + closingFrames('openai-chat', USAGE).replace('data: [DONE]\n\n', ''));
  });
  const brokenRoutes = UPSTREAM_KINDS.flatMap((kind) => BROKEN.flatMap((how) => CLIENT_FORMATS.map((format) => ({ kind, how, format, sku: brokenSku(kind, how, format) }))));
  addRoutes(
    router,
    brokenRoutes.map(({ kind, sku }) => ({ sku, backend: sku.slice(4), type: kind, baseUrl: upstream.url, upstreamModel: sku.slice(4), timeouts: { idleMs: 120_000, firstByteMs: 120_000 } })),
  );
  for (const { kind, how, sku } of brokenRoutes) {
    upstream.serve(sku.slice(4), (call) => {
      brokenHungUp.set(sku, call.closed);
      startEventStream(call.res);
      // A good start, the frame that is no event, then more text and a whole ending: none of it may reach the client.
      call.res.write(openingFrames(kind, 'Seen') + brokenFrame(kind, how).frame + textFrame(kind, ' after') + closingFrames(kind, BROKEN_USAGE) + AFTER_END[kind]);
    });
  }
  for (const kind of UPSTREAM_KINDS) {
    hungUp.set(kind, []);
    upstream.serve(`held-${kind}`, (call) => {
      hungUp.get(kind)!.push(call.closed);
      startEventStream(call.res);
      // The whole stream, then nothing: the response is never ended.
      call.res.write(openingFrames(kind, 'Held open') + closingFrames(kind, USAGE) + AFTER_END[kind]);
    });
  }
});

afterAll(async () => {
  await upstream?.close();
  await router?.close();
});

describe('a complete upstream stream whose connection stays open', () => {
  it('openai-chat upstream that sends its finish and usage chunks but no [DONE]: the chat client still gets its ending', { timeout: 20_000 }, async () => {
    const before = (await router.app.ledger.summary('alice')).totalTokens;
    const reply = await callFormat(router, 'chat', bodyFor('chat', 'svc.held-no-done', true), 15_000);
    expect(reply.status, reply.text).toBe(200);
    const frames = parseSse(reply.text);
    expect(frames.at(-1)!.data).toBe('[DONE]');
    expect(JSON.parse(frames.at(-2)!.data).usage).toMatchObject({ prompt_tokens: USAGE.input, completion_tokens: USAGE.output });
    expect((await router.app.ledger.summary('alice')).totalTokens - before).toBe(USAGE.input + USAGE.output);
  });

  for (const kind of UPSTREAM_KINDS) {
    for (const format of CLIENT_FORMATS) {
      it(`${kind} upstream → ${format} client: the stream ends with its terminal event and bills the usage`, { timeout: 20_000 }, async () => {
        const before = (await router.app.ledger.summary('alice')).totalTokens;
        const closedBefore = hungUp.get(kind)!.length;
        const reply = await callFormat(router, format, bodyFor(format, `svc.held-${kind}`, true), 15_000);
        expect(reply.status, reply.text).toBe(200);
        const frames = parseSse(reply.text);
        const last = frames.at(-1)!;
        switch (format) {
          case 'chat': {
            expect(last.data).toBe('[DONE]');
            const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame.data));
            expect(chunks.some((chunk) => chunk.error)).toBe(false);
            expect(chunks.map((chunk) => chunk.choices?.[0]?.delta?.content ?? '').join('')).toBe('Held open');
            expect(chunks.find((chunk) => chunk.choices?.[0]?.finish_reason)?.choices[0].finish_reason).toBe('stop');
            expect(chunks.at(-1).usage).toMatchObject({ prompt_tokens: USAGE.input, completion_tokens: USAGE.output });
            break;
          }
          case 'messages': {
            expect(last.event).toBe('message_stop');
            expect(frames.some((frame) => frame.event === 'error')).toBe(false);
            const delta = JSON.parse(frames.find((frame) => frame.event === 'message_delta')!.data);
            expect(delta.delta.stop_reason).toBe('end_turn');
            expect(delta.usage.output_tokens).toBe(USAGE.output);
            break;
          }
          case 'responses': {
            expect(last.event).toBe('response.completed');
            const completed = JSON.parse(last.data);
            expect(completed.response.status).toBe('completed');
            expect(completed.response.usage).toMatchObject({ input_tokens: USAGE.input, output_tokens: USAGE.output });
            break;
          }
        }
        // Billed once, the upstream's own figures.
        expect((await router.app.ledger.summary('alice')).totalTokens - before).toBe(USAGE.input + USAGE.output);
        // And the router let go of the upstream rather than waiting for it to close.
        expect(hungUp.get(kind)!.length).toBe(closedBefore + 1);
        await hungUp.get(kind)!.at(-1);
      });
    }
  }
});

describe('a complete upstream stream whose response ends just after its terminal event', () => {
  it('keeps the upstream connection for the next call (the end is awaited briefly, not cut)', { timeout: 30_000 }, async () => {
    const sockets = new Set<Socket>();
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const url = req.url!;
        const kind: UpstreamKind = url.endsWith('/chat/completions') ? 'openai-chat' : url.endsWith('/messages') ? 'anthropic' : url.includes(':streamGenerateContent') ? 'gemini' : 'openai-responses';
        startEventStream(res);
        // The terminal frame in one write, the end of the response in a separate packet a moment later
        // (as a real upstream's last chunk often is), well within the router's grace for it.
        res.write(openingFrames(kind) + closingFrames(kind, USAGE), () => setTimeout(() => res.end(), 5));
      });
    });
    server.on('connection', (socket) => sockets.add(socket));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      addRoutes(router, UPSTREAM_KINDS.map((kind) => ({ sku: `svc.ends-${kind}`, backend: `ends-${kind}`, type: kind, baseUrl: url, upstreamModel: 'ends' })));
      for (const kind of UPSTREAM_KINDS) {
        const before = sockets.size;
        for (let i = 0; i < 10; i++) {
          const reply = await callFormat(router, 'chat', bodyFor('chat', `svc.ends-${kind}`, true), 10_000);
          expect(parseSse(reply.text).at(-1)!.data, reply.text).toBe('[DONE]');
        }
        // Cut at the terminal event, each call would need a new connection.
        expect(sockets.size - before, `${kind}: upstream connections for 10 streams`).toBeLessThanOrEqual(3);
      }
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

/**
 * A frame that is no event ends the stream there, forwarded or translated alike: the client gets
 * its format's error event after what came before it, and nothing of what follows (more text, a
 * whole ending), is billed for what it saw, and the router lets go of the upstream.
 */
describe('an upstream stream with a frame that is no event, then more, its connection held open', () => {
  /** One call per route, made by whichever test needs it first. */
  const replies = new Map<string, Promise<{ answer: Reply; text: string; billed: number }>>();
  const reply = (kind: UpstreamKind, how: Broken, format: ClientFormatName) => {
    const sku = brokenSku(kind, how, format);
    let answer = replies.get(sku);
    if (!answer) {
      answer = (async () => {
        const before = (await router.app.ledger.summary('alice')).totalTokens;
        const answer = await callFormat(router, format, bodyFor(format, sku, true), 15_000);
        // The router hung up on the upstream, which would otherwise hold the stream past the test's timeout.
        await brokenHungUp.get(sku);
        return { answer, text: answer.text, billed: (await router.app.ledger.summary('alice')).totalTokens - before };
      })();
      replies.set(sku, answer);
    }
    return answer;
  };

  for (const kind of UPSTREAM_KINDS) {
    for (const how of BROKEN) {
      it(`${kind} upstream, a frame ${how}: every client format gets its error event there, nothing after it, and the same bill for what it saw`, { timeout: 30_000 }, async () => {
        const bills: number[] = [];
        for (const format of CLIENT_FORMATS) {
          const { answer, text, billed } = await reply(kind, how, format);
          expectMidStreamError(format, answer, brokenFrame(kind, how).message);
          expect(text).toContain('Seen');
          expect(text).not.toContain(' broken');
          expect(text).not.toContain(' after');
          bills.push(billed);
        }
        // What was seen, priced the same whichever format the client speaks (so whether forwarded or translated); never the usage that came after.
        expect(bills[0]).toBeGreaterThan(0);
        expect(bills[0]).toBeLessThan(BROKEN_USAGE.output);
        expect(new Set(bills).size, `billed per client format: ${bills.join(', ')}`).toBe(1);
      });
    }
  }

  /** The shape of a JSON value: its keys and their kinds of value, all the way down (array items not compared). */
  const shapeOf = (value: unknown): unknown =>
    Array.isArray(value) ? 'array' : value !== null && typeof value === 'object' ? Object.fromEntries(Object.keys(value).sort().map((key) => [key, shapeOf((value as Record<string, unknown>)[key])])) : value === null ? 'null' : typeof value;

  for (const format of CLIENT_FORMATS) {
    for (const how of BROKEN) {
      it(`${format} client, a frame ${how}: the error event of a forwarded stream is the translated one's`, { timeout: 30_000 }, async () => {
        const ends = await Promise.all(
          UPSTREAM_KINDS.map(async (kind) => {
            const last = parseSse((await reply(kind, how, format)).text).at(-1)!;
            return { kind, event: last.event, shape: shapeOf(JSON.parse(last.data)) };
          }),
        );
        // Gemini is always translated; each of the other kinds is forwarded to the client of its own format.
        const translated = ends.find((end) => end.kind === 'gemini')!;
        for (const end of ends) expect({ kind: end.kind, event: end.event, shape: end.shape }).toEqual({ kind: end.kind, event: translated.event, shape: translated.shape });
      });
    }
  }
});
