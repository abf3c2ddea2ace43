import fs from 'node:fs';
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboard } from '../../src/server/dashboard/dashboard.js';
import { RouterMetrics } from '../../src/server/metrics.js';
import { startRouter, type TestRouter } from '../helpers/router.js';

/** Debian's `chromium` package (CI installs it); CHROMIUM_PATH points elsewhere. */
const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((file) => file && fs.existsSync(file));
if (!CHROMIUM) console.warn('skipping the dashboard origins suite: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)');

/** Names a hostile site and a browser app would have; the browser resolves them to this machine. */
const EVIL = 'evil.example.com';
const APP = 'app.example.com';

/** What a page reads of a URL: its status and body, or that the browser would not let it. */
type Read = { status: number; text: string } | { blocked: string };

async function read(page: Page, url: string, init: Record<string, unknown> = {}): Promise<Read> {
  return page.evaluate(
    async ([target, options]) => {
      try {
        const response = await fetch(target as string, options as RequestInit);
        return { status: response.status, text: await response.text() };
      } catch (error) {
        return { blocked: String(error) };
      }
    },
    [url, init] as const,
  );
}

describe.skipIf(!CHROMIUM)('what a page of another site can read of the router, in a real Chromium', () => {
  let router: TestRouter;
  let routerPort: number;
  let site: http.Server;
  let sitePort: number;
  let browser: Browser;

  beforeAll(async () => {
    const ui = createDashboard();
    router = await startRouter({ http: { ui, requestLog: ui.feed, metrics: new RouterMetrics() } });
    ui.requireAdminKey = false;
    routerPort = Number(new URL(router.origin).port);
    // The hostile site, and the browser app a team wrote: plain pages from a server of their own.
    site = http.createServer((req, res) => {
      const page =
        req.url === '/login'
          ? `<form id="f" method="post" action="http://127.0.0.1:${routerPort}/ui/session"><input name="key" value="${router.key}"></form><script>document.getElementById('f').submit()</script>`
          : '<p>a page</p>';
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page);
    });
    site.listen(0, '127.0.0.1');
    await once(site, 'listening');
    sitePort = (site.address() as AddressInfo).port;
    browser = await chromium.launch({
      executablePath: CHROMIUM!,
      // The names resolve to this machine, as a rebinding DNS server or a team's DNS would make them.
      args: ['--no-sandbox', '--disable-gpu', `--host-resolver-rules=MAP ${EVIL} 127.0.0.1, MAP ${APP} 127.0.0.1, MAP other.example.com 127.0.0.1`],
    });
  });

  afterAll(async () => {
    await browser?.close();
    site?.closeAllConnections();
    await new Promise((resolve) => site?.close(resolve));
    await router?.close();
  });

  it('a page whose name was rebound to this machine reads nothing of the dashboard, its API, /admin or /metrics', async () => {
    const page = await browser.newPage();
    // The hostile page was fetched while its name still pointed at the attacker; now the name points
    // here. Any document of that origin will do to run the attacker's script in: the router's own /health.
    const origin = `http://${EVIL}:${routerPort}`;
    await page.goto(`${origin}/health`);
    expect(await page.evaluate('location.origin')).toBe(origin);
    for (const path of ['/ui', '/ui/api/overview', '/ui/events', '/admin/usage', '/metrics']) {
      // Same-origin to the browser: only the router can refuse.
      const result = await read(page, path);
      expect(result, path).toMatchObject({ status: 403 });
      expect((result as { text: string }).text, path).not.toContain('alice');
    }
    // The model endpoints still answer (they need a key the page does not have).
    expect(await read(page, '/health')).toMatchObject({ status: 200 });
    await page.close();
  });

  it('a page of another origin cannot read them either, nor log the browser in with its own key', async () => {
    const page = await browser.newPage();
    await page.goto(`http://localhost:${sitePort}/`);
    for (const path of ['/ui/api/overview', '/admin/usage', '/metrics']) {
      expect(await read(page, `http://127.0.0.1:${routerPort}${path}`), path).toHaveProperty('blocked');
    }
    // localhost:OTHER is the same site as 127.0.0.1's? No, but localhost:OTHER and localhost:PORT are: SameSite alone would not stop this form.
    const [response] = await Promise.all([page.waitForResponse(`http://127.0.0.1:${routerPort}/ui/session`), page.goto(`http://localhost:${sitePort}/login`)]);
    expect(response.status()).toBe(403);
    const cookies = await page.context().cookies(`http://127.0.0.1:${routerPort}/ui`);
    expect(cookies).toEqual([]);
    await page.close();
  });

  it('a browser app of an origin in server.cors calls the model endpoints; any other origin cannot read them', async () => {
    const appOrigin = `http://${APP}:${sitePort}`;
    router.config.update((settings) => void (settings.server.cors = [appOrigin]));
    try {
      const request = {
        method: 'POST',
        headers: { authorization: `Bearer ${router.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'svc.intelligent-lite', messages: [{ role: 'user', content: 'hi' }] }),
      };
      const app = await browser.newPage();
      await app.goto(`${appOrigin}/`);
      const answer = await read(app, `http://127.0.0.1:${routerPort}/v1/chat/completions`, request);
      expect(answer).toMatchObject({ status: 200 });
      expect(JSON.parse((answer as { text: string }).text).object).toBe('chat.completion');
      const headers = await app.evaluate(async (url) => (await fetch(url)).headers.get('x-request-id'), `http://127.0.0.1:${routerPort}/health`);
      expect(headers).toMatch(/^req_/);
      const other = await browser.newPage();
      await other.goto(`http://other.example.com:${sitePort}/`);
      expect(await read(other, `http://127.0.0.1:${routerPort}/v1/chat/completions`, request)).toHaveProperty('blocked');
      await Promise.all([app.close(), other.close()]);
    } finally {
      router.config.update((settings) => void (settings.server.cors = []));
    }
  });

  it('without server.cors, no browser app can read the model endpoints', async () => {
    const app = await browser.newPage();
    await app.goto(`http://${APP}:${sitePort}/`);
    expect(await read(app, `http://127.0.0.1:${routerPort}/v1/models`, { headers: { authorization: `Bearer ${router.key}` } })).toHaveProperty('blocked');
    await app.close();
  });
});
