import fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runBackendsAdd } from '../../src/cli/commands/backends.js';
import { ConfigStore } from '../../src/config/store.js';
import { startRouter, tempHome, type TestRouter } from '../helpers/router.js';
import {
  addRoutes,
  bodyFor,
  callFormat,
  chatCompletionBody,
  CLIENT_FORMATS,
  closingFrames,
  expectErrorReply,
  expectSuccess,
  HEALTHY_SKU,
  openingFrames,
  startEventStream,
  startFaultUpstream,
  textFrame,
  type FaultUpstream,
  type UpstreamCall,
} from './support.js';

/** Pieces of an answer, and the pause between them: each pause well inside the idle timeout, all of them well past the total. */
const PIECES = 12;
const PAUSE_MS = 100;
const TIMEOUTS = { firstByteMs: 1_000, idleMs: 1_000, totalMs: 300 };

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Writes `pieces` one at a time, `PAUSE_MS` apart, and ends; stops if the router hangs up. Resolves true when everything was sent. */
async function drip(res: ServerResponse, pieces: string[]): Promise<boolean> {
  for (const [i, piece] of pieces.entries()) {
    if (res.destroyed) return false;
    if (i === pieces.length - 1) {
      res.end(piece);
      return true;
    }
    res.write(piece);
    await pause(PAUSE_MS);
  }
  return true;
}

/** Splits `text` into `count` pieces of about the same length. */
const split = (text: string, count: number): string[] => {
  const size = Math.ceil(text.length / count);
  return Array.from({ length: count }, (_, i) => text.slice(i * size, (i + 1) * size));
};

describe('total timeout', () => {
  let router: TestRouter;
  let upstream: FaultUpstream;
  /** Per upstream call: whether the upstream got to send its whole answer. */
  const finished: Promise<boolean>[] = [];
  const slowJson = (call: UpstreamCall) => {
    call.res.writeHead(200, { 'content-type': 'application/json' });
    call.res.flushHeaders();
    finished.push(drip(call.res, split(JSON.stringify(chatCompletionBody('slowly, piece by piece')), PIECES)));
  };

  beforeAll(async () => {
    router = await startRouter();
    upstream = await startFaultUpstream();
    upstream.serve('slow-json', slowJson);
    upstream.serve('slow-stream', (call) => {
      startEventStream(call.res);
      const frames = [openingFrames('openai-chat'), ...Array.from({ length: PIECES - 2 }, (_, i) => textFrame('openai-chat', ` ${i}`)), closingFrames('openai-chat')];
      finished.push(drip(call.res, frames));
    });
    upstream.serve('fast-json', ({ res }) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(chatCompletionBody('quick')));
    });
    addRoutes(router, [
      { sku: 'svc.slow-json', backend: 'slowjson', type: 'openai-chat', baseUrl: upstream.url, upstreamModel: 'slow-json', timeouts: TIMEOUTS },
      { sku: 'svc.slow-stream', backend: 'slowstream', type: 'openai-chat', baseUrl: upstream.url, upstreamModel: 'slow-stream', timeouts: TIMEOUTS },
      { sku: 'svc.fast-json', backend: 'fastjson', type: 'openai-chat', baseUrl: upstream.url, upstreamModel: 'fast-json', timeouts: TIMEOUTS },
    ]);
  });

  afterAll(async () => {
    await router?.close();
    await upstream?.close();
  });

  for (const format of CLIENT_FORMATS) {
    it(`ends a non-streamed answer that drips past it with a 504 in the ${format} format, and aborts the upstream request`, async () => {
      const before = finished.length;
      const reply = await callFormat(router, format, bodyFor(format, 'svc.slow-json', false));
      expectErrorReply(format, reply, 504, 'upstream', 'upstream_timeout');
      expect(reply.json.error.message).toMatch(/did not finish its answer within 300 ms/);
      // The route has one target: exactly one upstream call, and the router hung up on it.
      expect(finished.length).toBe(before + 1);
      expect(await finished[before]).toBe(false);
      // The router is still fine.
      expectSuccess(format, await callFormat(router, format, bodyFor(format, HEALTHY_SKU, false)), false);
    });
  }

  it('does not bound a stream whose chunks keep coming: the idle timeout does', async () => {
    const before = finished.length;
    const replies = await Promise.all(CLIENT_FORMATS.map((format) => callFormat(router, format, bodyFor(format, 'svc.slow-stream', true))));
    CLIENT_FORMATS.forEach((format, i) => expectSuccess(format, replies[i]!, true));
    expect(await Promise.all(finished.slice(before))).toEqual([true, true, true]);
  });

  it('lets a non-streamed answer that comes in time through', async () => {
    for (const format of CLIENT_FORMATS) expectSuccess(format, await callFormat(router, format, bodyFor(format, 'svc.fast-json', false)), false);
  });
});

describe('backends add --total-timeout', () => {
  it('stores the total timeout with the others, and refuses a value that is not a positive whole number', async () => {
    const home = tempHome();
    vi.stubEnv('SVC_ROUTER_HOME', home);
    const print = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await runBackendsAdd('slow', { type: 'openai-chat', baseUrl: 'http://127.0.0.1:9/v1', firstByteTimeout: '1000', totalTimeout: '300' });
      expect(new ConfigStore(home).read().backends.slow?.timeouts).toEqual({ firstByteMs: 1000, totalMs: 300 });
      await expect(runBackendsAdd('slow', { type: 'openai-chat', baseUrl: 'http://127.0.0.1:9/v1', totalTimeout: '0' })).rejects.toThrow(/--total-timeout/);
    } finally {
      print.mockRestore();
      vi.unstubAllEnvs();
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
