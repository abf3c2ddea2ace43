import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/server/endpoints.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { refusedUpgrade } from '../helpers/responses-socket.js';

/**
 * A message that names the router's address names the one the client reached, never a fixed one:
 * after `serve --port 9000` (or on port 0, as here) a hint naming 8787 would send the user to
 * whatever else listens there. The request's Host is used only when it is one of the router's own
 * names; any other is the client's word, and the connection's own address is named instead.
 */

let router: TestRouter;
let port: number;
beforeAll(async () => {
  router = await startRouter();
  port = Number(new URL(router.origin).port);
  router.config.update((settings) => void (settings.server.hosts = ['router.example.com']));
});
afterAll(() => router.close());

/** The paths a client with a wrong base URL asks for: every endpoint without its /v1, with /v1 twice, and behind another prefix. */
const EXACT = Object.keys(ENDPOINTS).filter((path) => path.startsWith('/v1/') && !path.includes('{'));
const MISTAKES = EXACT.flatMap((path) => [path.slice(3), `/v1${path}`, `/api${path}`]);

/** One raw request with the Host given (fetch does not let a caller set it); its status, error message ('' when none) and body. */
function ask(path: string, options: { method?: string; host?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; message: string; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, path, method: options.method ?? 'POST', headers: { host: options.host ?? `127.0.0.1:${port}`, 'content-type': 'application/json', ...options.headers } },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          // A path that is served (GET /v1/models) answers without an error.
          let message = '';
          try {
            message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? '';
          } catch {
            // Not JSON: the text alone is checked.
          }
          resolve({ status: response.statusCode ?? 0, message, text });
        });
      },
    );
    request.on('error', reject);
    request.end(options.method === 'GET' ? undefined : '{}');
  });
}

/** Every http(s) URL a message holds. */
const urlsIn = (text: string): string[] => text.match(/https?:\/\/[^\s),]+/g) ?? [];

describe("the router's address in messages", () => {
  it('every base-URL hint names the address the client reached, on every endpoint and mistake', async () => {
    for (const path of MISTAKES) {
      const { message } = await ask(path, { headers: { authorization: `Bearer ${router.key}` } });
      expect(message, path).toContain(router.origin);
      expect(message, path).not.toMatch(/\b8787\b/);
      for (const url of urlsIn(message)) expect(url.startsWith(router.origin), `${path}: ${url}`).toBe(true);
    }
  });

  it('no answer to any path names another address than the real one', async () => {
    const segment = fc.constantFrom('v1', 'v1beta', 'messages', 'chat', 'completions', 'responses', 'models', 'api', 'ui', 'metrics', 'admin', 'x');
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.constantFrom('GET', 'POST'), async (segments, method) => {
        const path = `/${segments.join('/')}`;
        const { text } = await ask(path, { method, headers: { authorization: `Bearer ${router.key}`, 'x-api-key': router.key, 'anthropic-version': '2023-06-01' } });
        if (port !== 8787) expect(text).not.toContain('8787');
        for (const url of urlsIn(text)) expect(url.startsWith(router.origin), `${method} ${path}: ${url}`).toBe(true);
      }),
      { numRuns: 120 },
    );
  });

  it("takes the Host only when it is one of the router's names", async () => {
    const hinted = async (host: string) => /Include \/v1 in the base URL \(([^)]+)\/v1\)/.exec((await ask('/chat/completions', { host })).message)?.[1];
    expect(await hinted(`localhost:${port}`)).toBe(`http://localhost:${port}`);
    expect(await hinted(`[::1]:${port}`)).toBe(`http://[::1]:${port}`);
    // A loopback name without its port is still this machine, on the port the connection came in on.
    expect(await hinted('localhost')).toBe(`http://localhost:${port}`);
    // A name in server.hosts is a proxy's: the Host as sent.
    expect(await hinted('router.example.com')).toBe('http://router.example.com');
    // Anything else is not echoed: the connection's own address instead.
    expect(await hinted('evil.example.com')).toBe(router.origin);
    expect(await hinted(`evil.example.com:${port}`)).toBe(router.origin);
  });

  it('a WebSocket opened on the path without /v1 is told the real address too', async () => {
    const refused = await refusedUpgrade(router, { authorization: `Bearer ${router.key}` }, '/responses');
    expect(refused.status).toBe(404);
    expect(refused.body.error.message).toContain(`${router.origin}/v1`);
  });
});
