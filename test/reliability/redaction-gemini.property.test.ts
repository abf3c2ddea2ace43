import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startFakeServer } from '../fakes/fake-server.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { expectNoKey, upstreamTextArb } from './key-texts.js';
import { bodyFor, callFormat, CLIENT_FORMATS } from './support.js';

/**
 * The same rule as redaction.property.test.ts, for a Gemini upstream, whose errors have their own
 * shape (`{"error":{"code","message","status"}}`) and whose stream has no terminal event: whatever
 * Gemini says in an error, no client body or stream event holds the backend's key.
 */

const SKU = 'svc.redact-gemini';
type Path = 'status-4xx' | 'status-5xx' | 'ok-with-error' | 'mid-stream';
const PATHS: Path[] = ['status-4xx', 'status-5xx', 'ok-with-error', 'mid-stream'];

let router: TestRouter;
let upstream: Awaited<ReturnType<typeof startFakeServer>>;
let scenario: { path: Path; text: string; status: number };

beforeAll(async () => {
  upstream = await startFakeServer(async (request, res) => {
    const { path, text, status } = scenario;
    const error = { error: { code: status, message: text, status: text } };
    const json = (code: number, payload: unknown) => res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
    if (path === 'status-4xx' || path === 'status-5xx') return void json(status, error);
    if (path === 'ok-with-error' || !request.path.includes(':streamGenerateContent')) return void json(200, error);
    // One good chunk, then the error as the next SSE event (how Gemini reports a failure mid-stream).
    const chunk = { candidates: [{ content: { role: 'model', parts: [{ text: 'Hello' }] }, index: 0 }] };
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`data: ${JSON.stringify(chunk)}\r\n\r\ndata: ${JSON.stringify(error)}\r\n\r\n`);
  });
  router = await startRouter();
  router.config.update((settings) => {
    settings.backends['redact-gemini'] = { type: 'gemini', baseUrl: upstream.origin };
    settings.routes[SKU] = ['redact-gemini:gemini-test'];
  });
});
afterAll(async () => {
  await router?.close();
  await upstream?.close();
});

describe('a Gemini upstream\'s key never reaches a client', () => {
  for (const path of PATHS) {
    it(`gemini upstream, ${path}`, { timeout: 120_000 }, async () => {
      await fc.assert(
        fc.asyncProperty(
          upstreamTextArb,
          path === 'status-4xx' ? fc.constantFrom(400, 403, 404, 429) : fc.constantFrom(500, 503, 504),
          fc.boolean(),
          async ({ key, text }, status, stream) => {
            router.config.update((settings) => {
              settings.backends['redact-gemini']!.apiKey = key;
            });
            scenario = { path, text, status };
            for (const format of CLIENT_FORMATS) {
              const raw = await callFormat(router, format, bodyFor(format, SKU, path === 'mid-stream' || stream, 'hi'), 10_000);
              expectNoKey(JSON.stringify(raw), key, `${format} client`);
            }
          },
        ),
        { numRuns: 15 },
      );
    });
  }
});
