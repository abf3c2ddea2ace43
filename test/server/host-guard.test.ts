import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboard, type Dashboard } from '../../src/server/dashboard/dashboard.js';
import { HostGuard } from '../../src/server/host-guard.js';
import { RouterMetrics } from '../../src/server/metrics.js';
import { startRouter, type TestRouter } from '../helpers/router.js';

interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One request with the headers exactly as given (fetch will not send a Host of our choosing). */
function raw(router: TestRouter, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawReply> {
  const { port } = new URL(router.origin);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers ?? {}, setHost: options.headers?.host === undefined }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, text }));
    });
    request.setTimeout(10_000, () => request.destroy(new Error(`${path} did not answer within 10 s`)));
    request.on('error', reject);
    request.end(options.body);
  });
}

/** Everything a page on another site must not read: the dashboard, its API and stream, admin, metrics. */
const GUARDED = ['/ui', '/ui/', '/ui/api/overview', '/ui/api/sessions', '/ui/events', '/ui/dashboard.js', '/ui/format.js', '/admin/usage', '/admin/usage/', '/admin/sessions', '/metrics', '/metrics/'];

describe('the dashboard, /admin and /metrics answer only to the names of the address served', () => {
  let router: TestRouter;
  let ui: Dashboard;
  let port: string;
  const authorised = (headers: Record<string, string> = {}) => ({ authorization: `Bearer ${router.key}`, ...headers });

  beforeAll(async () => {
    ui = createDashboard();
    router = await startRouter({ http: { ui, requestLog: ui.feed, metrics: new RouterMetrics() } });
    // As serve does once it has bound loopback.
    ui.requireAdminKey = false;
    port = new URL(router.origin).port;
    router.config.update((settings) => {
      settings.backends.upstream = { type: 'openai-chat', baseUrl: 'http://upstream.internal:9/v1', apiKey: 'sk-upstream-secret-0123456789' };
    });
  });
  afterAll(async () => router?.close());

  const loopbackHosts = () => ['localhost', `localhost:${port}`, '127.0.0.1', `127.0.0.1:${port}`, '[::1]', `[::1]:${port}`, 'LOCALHOST', `LocalHost.:${port}`];

  it.each(['/ui/api/overview', '/admin/usage', '/metrics'])('%s answers 200 to every loopback name, with and without the port', async (path) => {
    for (const host of loopbackHosts()) {
      const reply = await raw(router, path, { headers: authorised({ host }) });
      expect(reply.status, `Host: ${host}`).toBe(200);
    }
  });

  it('answers a foreign Host with 403 and nothing of its data, on every guarded path and method', async () => {
    for (const path of GUARDED) {
      for (const method of ['GET', 'HEAD', 'POST']) {
        const reply = await raw(router, path, { method, headers: authorised({ host: `evil.example.com:${port}` }) });
        expect(reply.status, `${method} ${path}`).toBe(403);
        if (method !== 'HEAD') expect(JSON.parse(reply.text)).toEqual({ error: { message: expect.stringContaining('server.hosts'), type: 'permission_error', param: null, code: 'host_not_allowed' } });
        for (const leaked of ['alice', 'upstream.internal', 'svc_router_', 'usage']) expect(reply.text).not.toContain(leaked);
      }
    }
  });

  it('refuses any name that is not loopback, whatever its spelling, and never finds one through a prototype', async () => {
    const names = fc.oneof(
      fc.domain(),
      fc.ipV4().filter((ip) => !ip.startsWith('127.')),
      fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'localhost.evil.com', '127.0.0.1.nip.io', 'evil.com@localhost', 'localhost@evil.com', '', '[::2]', '[::]', '0.0.0.0', 'localhost:80:80', '[::1', '%6cocalhost'),
    );
    await fc.assert(
      fc.asyncProperty(names, fc.boolean(), async (name, withPort) => {
        const host = withPort ? `${name}:${port}` : name;
        const reply = await raw(router, '/ui/api/overview', { headers: { host } });
        // Node itself refuses a malformed header before the router sees it (400); the router refuses the rest.
        expect([400, 403], `Host: ${host}`).toContain(reply.status);
      }),
      { numRuns: 60 },
    );
  });

  it('answers to the names in server.hosts too, compared without case or port, from the next request on', async () => {
    expect((await raw(router, '/ui/api/overview', { headers: { host: 'router.example.com' } })).status).toBe(403);
    router.config.update((settings) => void (settings.server.hosts = ['router.example.com', '::ffff:10.0.0.5']));
    for (const host of ['router.example.com', 'ROUTER.Example.COM:443', 'router.example.com.', '[::ffff:a00:5]:8443']) {
      expect((await raw(router, '/ui/api/overview', { headers: { host } })).status, host).toBe(200);
    }
    expect((await raw(router, '/ui/api/overview', { headers: { host: 'other.example.com' } })).status).toBe(403);
    router.config.update((settings) => void (settings.server.hosts = []));
    expect((await raw(router, '/ui/api/overview', { headers: { host: 'router.example.com' } })).status).toBe(403);
  });

  it('leaves the model endpoints and the health check to any Host: API clients send whatever their base URL says', async () => {
    const host = 'api.example.com';
    expect((await raw(router, '/health', { headers: { host } })).status).toBe(200);
    expect((await raw(router, '/v1/models', { headers: authorised({ host }) })).status).toBe(200);
    const chat = await raw(router, '/v1/chat/completions', {
      method: 'POST',
      headers: authorised({ host, 'content-type': 'application/json' }),
      body: JSON.stringify({ model: 'svc.intelligent-lite', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(chat.status).toBe(200);
  });

  it('holds every request that changes something to its Origin: only a page of this very origin may send it', async () => {
    const host = `127.0.0.1:${port}`;
    const foreign = ['https://evil.example.com', `http://localhost:${Number(port) + 1}`, `https://127.0.0.1:${port}`, 'null', 'http://127.0.0.1', `http://127.0.0.1:${port}/ui`, 'not an origin'];
    for (const path of GUARDED) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
        for (const origin of foreign) {
          const reply = await raw(router, path, { method, headers: authorised({ host, origin, 'content-type': 'application/x-www-form-urlencoded' }), body: `key=${router.key}` });
          expect(reply.status, `${method} ${path} from ${origin}`).toBe(403);
          expect(JSON.parse(reply.text).error.code).toBe('origin_not_allowed');
        }
      }
    }
    // The login form, sent from the dashboard's own page (any spelling of its origin), and by a script that sends no Origin.
    for (const origin of [`http://127.0.0.1:${port}`, `HTTP://127.0.0.1:${port}`, undefined]) {
      const login = await raw(router, '/ui/session', { method: 'POST', headers: { host, 'content-type': 'application/x-www-form-urlencoded', ...(origin ? { origin } : {}) }, body: `key=${router.key}` });
      expect(login.status, String(origin)).toBe(303);
      expect(login.headers['set-cookie']?.[0]).toMatch(/; SameSite=Strict/);
    }
    // Reads are not held to it: a browser sends Origin on some GETs of its own pages.
    expect((await raw(router, '/ui/api/overview', { headers: { host, origin: 'https://evil.example.com' } })).status).toBe(200);
  });

  it('logs and counts a refused request like any other, so the dashboard and metrics show who knocked', async () => {
    const refusals = async (): Promise<number> => {
      const text = (await raw(router, '/metrics', { headers: { host: 'localhost' } })).text;
      return Number(/^svc_router_requests_total\{endpoint="other",status="403"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    const before = await refusals();
    const reply = await raw(router, '/metrics', { headers: { host: 'rebind.example.com' } });
    expect(reply.status).toBe(403);
    expect(await refusals()).toBe(before + 1);
    const logged = (ui.feed.recent() as Array<{ method: string; path: string; status: number; error?: string }>).at(-1)!;
    expect(logged).toMatchObject({ method: 'GET', path: '/metrics', status: 403 });
    expect(logged.error).toContain('Host');
  });
});

describe('which names an address answers to', () => {
  const guard = (address: string, hosts: string[] = []) => {
    const hostGuard = new HostGuard(() => hosts);
    hostGuard.listening({ address, family: address.includes(':') ? 'IPv6' : 'IPv4', port: 8787 });
    return hostGuard;
  };

  it('bound to loopback or to every interface: the loopback names and server.hosts', () => {
    for (const address of ['127.0.0.1', '::1', '0.0.0.0', '::']) {
      const names = guard(address, ['router.example.com']);
      for (const name of ['localhost', '127.0.0.1', '127.0.0.2', '[::1]', 'router.example.com']) expect(names.allows(name), `${address}: ${name}`).toBe(true);
      for (const name of ['example.com', '10.0.0.5', '[::]', '0.0.0.0']) expect(names.allows(name), `${address}: ${name}`).toBe(false);
    }
  });

  it('bound to one other address: that address and server.hosts, not the loopback names (they do not reach it)', () => {
    const names = guard('192.168.1.5', ['router.lan']);
    expect(names.allows('192.168.1.5')).toBe(true);
    expect(names.allows('router.lan')).toBe(true);
    expect(names.allows('localhost')).toBe(false);
    expect(names.allows('192.168.1.6')).toBe(false);
    const v6 = guard('fd00::5');
    expect(v6.allows('[fd00::5]')).toBe(true);
    expect(v6.allows('[fd00::6]')).toBe(false);
  });

  it('skips a configured entry that is not a host name (a hand-edited config), and every prototype name', () => {
    const names = guard('127.0.0.1', ['router.example.com:8080', 'http://x', 42 as unknown as string, '__proto__']);
    for (const name of ['router.example.com', 'x', 'constructor', 'toString', 'hasOwnProperty']) expect(names.allows(name), name).toBe(false);
    expect(names.allows('__proto__')).toBe(true);
  });
});
