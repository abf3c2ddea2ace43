import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import type { FakeUpstream } from '../fakes/fake-server.js';
import { closedPortUrl } from '../helpers/unused-port.js';
import { startUpstream, UPSTREAM_KEY } from '../integration/support.js';
import { initHome, makeHome, removeHome, ROOT, runCli, startServe, type ServeChild } from '../cli/run-cli.js';

/** Debian's `chromium` package (CI installs it); CHROMIUM_PATH points elsewhere. */
const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((file) => file && fs.existsSync(file));
if (!CHROMIUM) console.warn('skipping the dashboard browser suite: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)');

/** Where the screenshot is left for whoever reads the run (ignored by git). */
const ARTEFACTS = path.join(ROOT, 'test-results');

describe.skipIf(!CHROMIUM)('the dashboard in a real Chromium', () => {
  let home: string;
  let key: string;
  let serve: ServeChild;
  let browser: Browser;
  const fakes: FakeUpstream[] = [];

  beforeAll(async () => {
    home = makeHome();
    key = await initHome(home);
    const anthropic = await startUpstream('anthropic', [{ text: 'Hello from the fake Anthropic upstream.', usage: { input: 12_000, output: 800, cached: 9_000, cacheWrite: 1_000 } }]);
    const openai = await startUpstream('openai-chat', [{ text: 'Hello from the fake OpenAI upstream.', usage: { input: 3_000, output: 400, cached: 1_000 } }]);
    fakes.push(anthropic, openai);
    const config = new ConfigStore(home);
    const down = await closedPortUrl();
    config.update((settings) => {
      settings.backends.anthropic = { type: 'anthropic', baseUrl: anthropic.url, apiKey: UPSTREAM_KEY };
      settings.backends.openai = { type: 'openai-chat', baseUrl: openai.url, apiKey: UPSTREAM_KEY };
      // A backend that refuses connections: the first target of a fallback chain, failing first.
      settings.backends.flaky = { type: 'openai-chat', baseUrl: down, apiKey: UPSTREAM_KEY };
      settings.routes['svc.intelligent-pro'] = ['anthropic:claude-sonnet-4-5'];
      settings.routes['svc.intelligent-basic'] = ['flaky:gpt-4.1-mini', 'openai:gpt-4.1-mini'];
    });
    serve = await startServe(home, ['--port', '0', '--ui']);
    browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--disable-gpu'] });
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.kill();
    await Promise.all(fakes.map((fake) => fake.close()));
    if (home) removeHome(home);
  });

  const chat = async (model: string): Promise<string> => {
    const response = await fetch(`${serve.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    await response.text();
    return response.headers.get('x-request-id')!;
  };

  it('shows requests live as they finish, a failed fallback target included, with non-empty charts', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.goto(`${serve.origin}/ui`);
    await page.waitForSelector('#live.on');
    const ids = [await chat('svc.intelligent-pro'), await chat('svc.intelligent-basic'), await chat('svc.intelligent-pro')];
    for (const id of ids) await page.waitForSelector(`#requests tr[data-request-id="${id}"]`);
    // The fallback's first target failed: the row says so, the chain goes on to the one that answered.
    const fallback = page.locator(`#requests tr[data-request-id="${ids[1]}"] .target`);
    await expect.poll(() => fallback.count()).toBe(2);
    expect(await fallback.first().getAttribute('class')).toContain('failed');
    expect(await fallback.last().textContent()).toContain('openai:gpt-4.1-mini ok');
    // Charts are drawn from the ledger: one bar per day with traffic, per upstream model, per key.
    for (const chart of ['#chart-day', '#chart-model', '#chart-key']) await page.waitForSelector(`${chart} rect`);
    // A refresh may have drawn the charts between the requests: the second model's bar comes with the next.
    await expect.poll(() => page.locator('#chart-model rect').count()).toBe(2);
    expect(await page.locator('#measure-cost').getAttribute('aria-pressed')).toBe('true');
    await page.waitForSelector('#routes tbody tr');
    expect(await page.locator('#backends tbody').textContent()).toContain('flaky');
    expect(await page.locator('#config').textContent()).not.toContain(key);
    fs.mkdirSync(ARTEFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTEFACTS, 'dashboard.png'), fullPage: true });
    expect(fs.statSync(path.join(ARTEFACTS, 'dashboard.png')).size).toBeGreaterThan(10_000);
    // The same run as `svc-router usage` prints it, beside the screenshot.
    const usage = await runCli(['usage'], { home });
    expect(usage.stdout).toContain('anthropic:claude-sonnet-4-5');
    fs.writeFileSync(path.join(ARTEFACTS, 'usage.txt'), usage.stdout);
    await page.close();
  });

  it('loads from a warm server quickly (reported, not asserted: speed lives in the bench)', async () => {
    const page = await browser.newPage();
    await page.goto(`${serve.origin}/ui`);
    await page.reload({ waitUntil: 'load' });
    const timing = await page.evaluate(() => {
      // Runs in the page: the browser's navigation timing entry.
      const [navigation] = (performance.getEntriesByType as unknown as (type: string) => Array<Record<string, number>>)('navigation');
      return { responseEnd: navigation!.responseEnd!, domContentLoaded: navigation!.domContentLoadedEventEnd!, load: navigation!.loadEventEnd! };
    });
    console.log(`dashboard page, warm server: response ${timing.responseEnd.toFixed(1)} ms, DOMContentLoaded ${timing.domContentLoaded.toFixed(1)} ms, load ${timing.load.toFixed(1)} ms`);
    expect(timing.load).toBeGreaterThan(0);
    await page.close();
  });

  it('is a plain table of recent requests without JavaScript', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${serve.origin}/ui`);
    const rows = page.locator('#requests tbody tr');
    expect(await rows.count()).toBeGreaterThanOrEqual(3);
    expect(await rows.first().textContent()).toContain('svc.intelligent-pro');
    await context.close();
  });
});
