import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokensForChars } from '../../src/core/estimate-tokens.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import {
  addRoutes,
  ANTHROPIC_OPENING_INPUT_TOKENS,
  bodyFor,
  CLIENT_FORMATS,
  closingFrames,
  eventually,
  headersFor,
  HEALTHY_SKU,
  openingFrames,
  parseSse,
  PATHS,
  send,
  startEventStream,
  startFaultUpstream,
  textFrame,
  UPSTREAM_KINDS,
  type ClientFormatName,
  type FaultUpstream,
  type UpstreamKind,
} from './support.js';

/**
 * The upstreams here never end by themselves, so a hang-up at all is the router's doing; this only
 * bounds the wait for it. How fast it comes is measured (printed below), never asserted: timings
 * belong in `npm run bench`, not in tests a loaded machine runs.
 */
const HANG_UP_GUARD_MS = 5_000;
const OPENING_TEXT = 'Hello, this is the first part';

let router: TestRouter;
let upstream: FaultUpstream;

beforeAll(async () => {
  router = await startRouter();
  upstream = await startFaultUpstream();
});
afterAll(async () => {
  await router?.close();
  await upstream?.close();
});

/** Rejects after `ms` so a wait that should end cannot hang the suite; the timer is cleared either way. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe('a client that goes away mid-stream', () => {
  const measured: Array<{ format: ClientFormatName; kind: UpstreamKind; ms: number }> = [];
  afterAll(() => {
    const worst = Math.max(...measured.map((entry) => entry.ms));
    console.info(`upstream hang-up after client abort: worst ${worst.toFixed(1)} ms over ${measured.length} cases`);
  });

  for (const kind of UPSTREAM_KINDS) {
    for (const format of CLIENT_FORMATS) {
      it(`${format} client over a ${kind} upstream: the router hangs up on the upstream and the usage seen is recorded`, async () => {
        const sku = `svc.disconnect-${kind}-${format}`;
        addRoutes(router, [{ sku, backend: `disconnect-${kind}-${format}`, type: kind, baseUrl: upstream.url, upstreamModel: `disconnect-${kind}-${format}` }]);
        let upstreamClosedAt: Promise<number> | undefined;
        const served = upstream.serve(`disconnect-${kind}-${format}`, ({ res, closed }) => {
          upstreamClosedAt = closed.then(() => performance.now());
          startEventStream(res);
          // The opening frames, then nothing: the stream stays open until someone hangs up.
          res.write(openingFrames(kind, OPENING_TEXT));
        });
        const usageBefore = await router.app.ledger.summary('alice');

        const controller = new AbortController();
        const guard = setTimeout(() => controller.abort(), 10_000);
        const response = await fetch(`${router.origin}${PATHS[format]}`, {
          method: 'POST',
          headers: headersFor(format, router.key),
          body: JSON.stringify(bodyFor(format, sku, true)),
          signal: controller.signal,
        });
        expect(response.status).toBe(200);
        const reader = response.body!.getReader();
        const decoder = new TextDecoder();
        let seen = '';
        // Read until the first content has reached the client.
        while (!seen.includes(OPENING_TEXT)) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`the stream ended before any content: ${seen}`);
          seen += decoder.decode(value, { stream: true });
        }
        const abortedAt = performance.now();
        controller.abort();
        clearTimeout(guard);

        // The content came from the upstream, so its request is there and being watched.
        expect(upstreamClosedAt).toBeDefined();
        const closedAt = await within(upstreamClosedAt!, HANG_UP_GUARD_MS, 'the upstream hang-up');
        measured.push({ format, kind, ms: closedAt - abortedAt });
        expect(served.count).toBe(1);

        // The usage seen before the cut is recorded, once.
        const usage = await eventually(
          async () => {
            const now = await router.app.ledger.summary('alice');
            return now.requests > usageBefore.requests ? now : undefined;
          },
          2_000,
          'the cut-short request to be recorded',
        );
        expect(usage.requests).toBe(usageBefore.requests + 1);
        const input = usage.inputTokens - usageBefore.inputTokens;
        const output = usage.outputTokens - usageBefore.outputTokens;
        if (kind === 'anthropic') expect(input).toBe(ANTHROPIC_OPENING_INPUT_TOKENS);
        else expect(input).toBeGreaterThan(0);
        expect(output).toBeGreaterThanOrEqual(tokensForChars(OPENING_TEXT.length));
      });
    }
  }
});

describe('a client that goes away before the upstream answered', () => {
  for (const stream of [false, true]) {
    for (const format of CLIENT_FORMATS) {
      it(`${format} client, ${stream ? 'streamed' : 'not streamed'}: the router hangs up on the waiting upstream request, and nothing is billed`, async () => {
        const name = `early-${format}-${stream ? 'stream' : 'plain'}`;
        addRoutes(router, [{ sku: `svc.${name}`, backend: name, type: 'openai-chat', baseUrl: upstream.url, upstreamModel: name }]);
        // Wrapped, so that resolving with it does not wait for the hang-up itself.
        let arrived!: (request: { closedAt: Promise<number> }) => void;
        const upstreamArrived = new Promise<{ closedAt: Promise<number> }>((resolve) => {
          arrived = resolve;
        });
        // The upstream takes the request and never answers: the router is waiting for headers.
        upstream.serve(name, ({ closed }) => arrived({ closedAt: closed.then(() => performance.now()) }));
        const usageBefore = await router.app.ledger.summary('alice');

        const controller = new AbortController();
        const response = fetch(`${router.origin}${PATHS[format]}`, {
          method: 'POST',
          headers: headersFor(format, router.key),
          body: JSON.stringify(bodyFor(format, `svc.${name}`, stream)),
          signal: controller.signal,
        }).catch((error: unknown) => error);
        const { closedAt: upstreamClosed } = await within(upstreamArrived, 5_000, 'the upstream request');
        controller.abort();
        expect(await response).toBeInstanceOf(Error);

        await within(upstreamClosed, HANG_UP_GUARD_MS, 'the upstream hang-up');
        // Nothing was produced, so nothing is recorded: only the probe, which shows the router still serves.
        const probe = await send(router, PATHS[format], { headers: headersFor(format, router.key), body: bodyFor(format, HEALTHY_SKU, false) });
        expect(probe.status).toBe(200);
        const usageAfter = await router.app.ledger.summary('alice');
        expect(usageAfter.requests).toBe(usageBefore.requests + 1);
      });
    }
  }
});

describe('a client that stops reading', () => {
  /** One delta of this many characters per upstream frame. */
  const FRAME_CHARS = 8 * 1024;
  /** Far more than every socket and stream buffer between the two ends put together. */
  const CAP_BYTES = 512 * 1024 * 1024;

  for (const format of CLIENT_FORMATS) {
    it(`${format} client: the upstream's writes meet backpressure, and the whole stream arrives once the client reads again`, async () => {
      const sku = `svc.slow-${format}`;
      addRoutes(router, [{ sku, backend: `slow-${format}`, type: 'openai-chat', baseUrl: upstream.url, upstreamModel: `slow-${format}` }]);
      let sentChars = 0;
      let backpressureAt = 0;
      let resolveBackpressure!: (bytes: number) => void;
      const backpressure = new Promise<number>((resolve) => {
        resolveBackpressure = resolve;
      });
      let releaseUpstream!: () => void;
      const released = new Promise<void>((resolve) => {
        releaseUpstream = resolve;
      });
      upstream.serve(`slow-${format}`, async ({ res }) => {
        startEventStream(res);
        res.write(openingFrames('openai-chat', 'x'));
        sentChars = 1;
        const frame = textFrame('openai-chat', 'x'.repeat(FRAME_CHARS));
        let written = 0;
        for (;;) {
          const accepted = res.write(frame);
          written += frame.length;
          sentChars += FRAME_CHARS;
          if (!accepted) break;
          if (written > CAP_BYTES || res.destroyed) throw new Error('no backpressure reached the upstream');
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
        backpressureAt = written;
        resolveBackpressure(written);
        await released;
        res.end(closingFrames('openai-chat'));
      });

      const { port } = new URL(router.origin);
      const body = JSON.stringify(bodyFor(format, sku, true));
      const chunks: Buffer[] = [];
      const finished = new Promise<string>((resolve, reject) => {
        const req = http.request(
          { host: '127.0.0.1', port: Number(port), path: PATHS[format], method: 'POST', headers: { ...headersFor(format, router.key), 'content-length': Buffer.byteLength(body) } },
          (res) => {
            if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
            // Take the first chunk, then stop reading: the socket is no longer drained.
            res.once('data', (chunk: Buffer) => {
              chunks.push(chunk);
              res.pause();
              void backpressure.then(() => {
                releaseUpstream();
                res.on('data', (more: Buffer) => chunks.push(more));
                res.resume();
              });
            });
            res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(body);
      });

      const bytes = await within(backpressure, 20_000, 'backpressure at the upstream');
      expect(bytes).toBeGreaterThan(0);
      expect(bytes).toBeLessThan(CAP_BYTES);
      console.info(`${format}: the upstream met backpressure after ${(backpressureAt / 1024 / 1024).toFixed(1)} MiB while the client was not reading`);

      const text = await within(finished, 20_000, 'the rest of the stream');
      // Nothing was lost or duplicated on the way: every character the upstream sent arrives once.
      const frames = parseSse(text);
      let received = 0;
      for (const frame of frames) {
        if (frame.data === '[DONE]') continue;
        const data = JSON.parse(frame.data);
        if (format === 'chat') received += data.choices?.[0]?.delta?.content?.length ?? 0;
        if (format === 'messages' && data.type === 'content_block_delta') received += data.delta.text.length;
        if (format === 'responses' && data.type === 'response.output_text.delta') received += data.delta.length;
      }
      expect(received).toBe(sentChars);
      const last = frames.at(-1)!;
      if (format === 'chat') expect(last.data).toBe('[DONE]');
      if (format === 'messages') expect(last.event).toBe('message_stop');
      if (format === 'responses') expect(last.event).toBe('response.completed');
    });
  }
});
