import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { addRoutes, bodyFor, closingFrames, headersFor, openingFrames, PATHS, startEventStream, startFaultUpstream, textFrame, type FaultUpstream } from './support.js';

/**
 * A client that reads a long stream in small sips makes the router wait for `drain` again and
 * again. Each wait must leave nothing behind on the response: listeners that pile up are memory
 * held per stream for as long as it lasts (and Node warns past ten).
 */

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

it('a slow reader of a long stream leaves no listeners piling up on the response', async () => {
  addRoutes(router, [{ sku: 'svc.sipping', backend: 'sipping', type: 'openai-chat', baseUrl: upstream.url, upstreamModel: 'sipping' }]);
  const FRAMES = 600;
  upstream.serve('sipping', async ({ res }) => {
    startEventStream(res);
    res.write(openingFrames('openai-chat', 'x'));
    const frame = textFrame('openai-chat', 'y'.repeat(16 * 1024));
    for (let i = 0; i < FRAMES; i++) {
      if (!res.write(frame)) await new Promise((resolve) => res.once('drain', resolve));
    }
    res.end(closingFrames('openai-chat'));
  });

  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
  process.on('warning', onWarning);
  try {
    const { port } = new URL(router.origin);
    const body = JSON.stringify(bodyFor('chat', 'svc.sipping', true));
    const received = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: Number(port), path: PATHS.chat, method: 'POST', headers: { ...headersFor('chat', router.key), 'content-length': Buffer.byteLength(body) } },
        (res) => {
          let bytes = 0;
          // One chunk, then a pause until the next turn of the event loop: the router's writes
          // keep meeting a full socket.
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            res.pause();
            setImmediate(() => res.resume());
          });
          res.on('end', () => resolve(bytes));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(received).toBeGreaterThan(FRAMES * 16 * 1024);
    // Warnings are emitted on the next tick after the listener that crossed the limit.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((text) => text.startsWith('MaxListenersExceededWarning'))).toEqual([]);
  } finally {
    process.off('warning', onWarning);
  }
});
