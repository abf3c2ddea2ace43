import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import { formatCount, formatUsd } from '../../src/core/format-numbers.js';
import type { FakeUpstream } from '../fakes/fake-server.js';
import { closedPortUrl } from '../helpers/unused-port.js';
import { startUpstream, UPSTREAM_KEY } from '../integration/support.js';
import { initHome, makeHome, removeHome, ROOT, runCli, runCliJson, startServe, type ServeChild } from '../cli/run-cli.js';

/** Debian's `chromium` package (CI installs it); CHROMIUM_PATH points elsewhere. */
const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((file) => file && fs.existsSync(file));
if (!CHROMIUM) console.warn('skipping the dashboard layout suite: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)');

/** Where screenshots are left for whoever reads the run (ignored by git). */
const ARTEFACTS = path.join(ROOT, 'test-results');

/** An upstream error as long as real ones get (a provider's explanation and a documentation URL), with no space to break at in its URL. */
const LONG_ERROR = `The model gpt-4.1-mini is overloaded in this region right now and cannot take more requests; retry with exponential backoff or pick another deployment. See https://platform.example.com/docs/guides/error-codes/overloaded-deployments-and-how-to-retry-them-safely-with-backoff-${'x'.repeat(80)} for details.`;

describe.skipIf(!CHROMIUM)('the dashboard, read at a phone width and a laptop width', () => {
  let home: string;
  let key: string;
  let serve: ServeChild;
  let browser: Browser;
  const fakes: FakeUpstream[] = [];
  const probeIds: Record<string, string> = {};

  beforeAll(async () => {
    home = makeHome();
    key = await initHome(home);
    const anthropic = await startUpstream('anthropic', [{ text: 'Hello from Anthropic.', usage: { input: 12_000, output: 800 } }]);
    // A local model nobody priced: its requests have tokens and no cost.
    const local = await startUpstream('openai-chat', [{ text: 'Hello from a local model.', usage: { input: 300_000, output: 40_000 } }]);
    const broken = await startUpstream('openai-chat', [{ status: 500, errorBody: { error: { message: LONG_ERROR, type: 'server_error' } } }]);
    fakes.push(anthropic, local, broken);
    const down = await closedPortUrl();
    new ConfigStore(home).update((settings) => {
      settings.backends.anthropic = { type: 'anthropic', baseUrl: anthropic.url, apiKey: UPSTREAM_KEY };
      settings.backends.local = { type: 'openai-chat', baseUrl: local.url, apiKey: UPSTREAM_KEY };
      settings.backends.broken = { type: 'openai-chat', baseUrl: broken.url, apiKey: UPSTREAM_KEY };
      settings.backends.flaky = { type: 'openai-chat', baseUrl: down, apiKey: UPSTREAM_KEY };
      settings.routes['svc.intelligent-pro'] = ['flaky:claude-sonnet-4-5', 'anthropic:claude-sonnet-4-5'];
      settings.routes['svc.intelligent-basic'] = ['broken:gpt-4.1-mini'];
      settings.routes['svc.intelligent-lite'] = ['local:llama-3.1-8b-local'];
    });
    // The config says no dashboard and no metrics: the flags turn them on.
    serve = await startServe(home, ['--port', '0', '--ui', '--metrics']);
    for (const model of ['svc.intelligent-pro', 'svc.intelligent-pro', 'svc.intelligent-basic', 'svc.intelligent-basic', 'svc.intelligent-basic', 'svc.intelligent-lite']) {
      const response = await fetch(`${serve.origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
      });
      await response.text();
    }
    // What a client's reachability probe and a wrong base URL leave in the log.
    for (const [method, route] of [
      ['HEAD', '/api/hello'],
      ['GET', '/chat/completions'],
    ] as const) {
      const response = await fetch(`${serve.origin}${route}`, { method, headers: { authorization: `Bearer ${key}` } });
      await response.text();
      probeIds[`${method} ${route}`] = response.headers.get('x-request-id')!;
    }
    browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--disable-gpu'] });
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.kill();
    await Promise.all(fakes.map((fake) => fake.close()));
    if (home) removeHome(home);
  });

  /** The dashboard at a width, once its overview has been drawn. */
  async function open(width: number, height = 900): Promise<Page> {
    const page = await browser.newPage({ viewport: { width, height } });
    await page.goto(`${serve.origin}/ui`);
    await page.waitForSelector('#config-section:not([hidden])');
    await page.waitForSelector('#chart-model text');
    return page;
  }

  async function screenshot(page: Page, name: string): Promise<void> {
    fs.mkdirSync(ARTEFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTEFACTS, name), fullPage: true });
  }

  it('names the method and path of every request, so probes and 404s are not blank rows', async () => {
    const page = await open(1400);
    for (const [request, id] of Object.entries(probeIds)) expect(await page.locator(`#requests tr[data-request-id="${id}"]`).textContent()).toContain(request);
    // Model requests too: the path tells chat from messages from responses.
    expect(await page.locator('#requests tbody tr').last().textContent()).toContain('POST /v1/chat/completions');
    await page.close();
    // And so does the table the server renders for a browser without JavaScript.
    const context = await browser.newContext({ javaScriptEnabled: false });
    const plain = await context.newPage();
    await plain.goto(`${serve.origin}/ui`);
    const text = await plain.locator('#requests tbody').textContent();
    for (const request of Object.keys(probeIds)) expect(text).toContain(request);
    await context.close();
  });

  it('keeps every table within the page at 1,400 px, a long error wrapping inside its cell', async () => {
    const page = await open(1400);
    await screenshot(page, 'dashboard-1400.png');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1400);
    for (const section of await page.locator('main section').all()) {
      const overflow = await section.evaluate((element) => element.scrollWidth - element.clientWidth);
      expect(overflow, (await section.locator('h2').textContent()) ?? '').toBeLessThanOrEqual(0);
    }
    const error = page.locator('#requests td.error', { hasText: 'overloaded' }).first();
    const box = (await error.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(1400);
    await page.close();
  });

  it('shows the settings in force, flags included: --ui and --metrics are on, the port is the one bound', async () => {
    const page = await open(1400);
    const config = JSON.parse((await page.locator('#config').textContent())!) as { server: Record<string, unknown> };
    expect(config.server).toMatchObject({ ui: true, metrics: true, port: Number(new URL(serve.origin).port) });
    await page.close();
  });

  it("groups a backend's repeated errors: one line per distinct error, with how often it happened", async () => {
    const page = await open(1400);
    const row = page.locator('#backends tbody tr', { hasText: 'broken' });
    const errors = row.locator('.error-group');
    expect(await errors.count()).toBe(1);
    expect(await errors.first().textContent()).toMatch(/^3×/);
    expect(await errors.first().textContent()).toContain('overloaded');
    expect(await page.locator('#backends tbody tr', { hasText: 'flaky' }).locator('.error-group').first().textContent()).toMatch(/^2×.*refused the connection/);
    await page.close();
  });

  it('offers tokens as the charts\' measure, so an unpriced local model gets a bar', async () => {
    const page = await open(1400);
    expect(await page.locator('#chart-model rect').count()).toBe(1);
    await page.locator('#measure-tokens').click();
    await expect.poll(() => page.locator('#chart-model rect').count()).toBe(2);
    expect(await page.locator('#chart-model rect[data-name="local:llama-3.1-8b-local"]').count()).toBe(1);
    await screenshot(page, 'dashboard-tokens.png');
    await page.locator('#measure-cost').click();
    await expect.poll(() => page.locator('#chart-model rect').count()).toBe(1);
    // In the cost view the unpriced model is still named, and said to be unpriced.
    expect(await page.locator('#chart-model').textContent()).toContain('unpriced');
    await page.close();
  });

  /**
   * What sticks out at this width: every element whose box reaches past the viewport's sides, and
   * every section that scrolls sideways (its content is wider than it), each named for the reader.
   * Written as page script text: the test's own compilation has no DOM types.
   */
  const OVERFLOW_SCRIPT = `(viewport) => {
    const name = (element) => element.tagName.toLowerCase() + (element.id ? '#' + element.id : '') + [...element.classList].map((name) => '.' + name).join('') + ' "' + (element.textContent || '').trim().slice(0, 40) + '"';
    const out = [];
    if (document.documentElement.scrollWidth > viewport) out.push('the page is ' + document.documentElement.scrollWidth + ' px wide');
    for (const element of document.body.querySelectorAll('*')) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      if (box.left < -0.5 || box.right > viewport + 0.5) out.push(name(element) + ' spans ' + Math.round(box.left) + '–' + Math.round(box.right) + ' px');
    }
    for (const section of document.querySelectorAll('main section')) {
      if (section.scrollWidth > section.clientWidth) out.push(name(section) + ' scrolls sideways: ' + section.scrollWidth + ' px of content in ' + section.clientWidth);
    }
    return out;
  }`;

  const overflowAt = (page: Page, width: number): Promise<string[]> => page.evaluate(`(${OVERFLOW_SCRIPT})(${width})`);

  it.each([900, 600])('lays every element out within the page at %i px: no table, cell or chart past its edge', async (width) => {
    const page = await open(width);
    await screenshot(page, `dashboard-${width}.png`);
    expect(await overflowAt(page, width)).toEqual([]);
    await page.close();
  });

  it('lays the tables out again when the window is resized: cards when narrow, columns when wide', async () => {
    const page = await open(1400);
    const cards = () => page.locator('#requests').evaluate((table) => table.classList.contains('cards'));
    expect(await cards()).toBe(false);
    await page.setViewportSize({ width: 900, height: 900 });
    await expect.poll(cards).toBe(true);
    expect(await overflowAt(page, 900)).toEqual([]);
    await page.setViewportSize({ width: 1400, height: 900 });
    await expect.poll(cards).toBe(false);
    expect(await overflowAt(page, 1400)).toEqual([]);
    await page.close();
  });

  it("shows the header's totals whole at 390 px", async () => {
    const page = await open(390, 844);
    await screenshot(page, 'dashboard-390.png');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    for (const value of await page.locator('#totals dd').all()) {
      const box = (await value.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      expect(await value.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
    }
    await page.close();
  });

  it('writes tokens and dollars as the CLI does: the header reads what `svc-router usage` and `whoami` print', async () => {
    const page = await open(1400);
    const totals = Object.fromEntries(
      await Promise.all((await page.locator('#totals div').all()).map(async (item) => [await item.locator('dt').textContent(), await item.locator('dd').textContent()] as const)),
    ) as Record<string, string>;
    const report = await runCliJson<{ totals: { total_tokens: number; cost_usd: number | null; requests: number } }>(['usage', '--json'], { home });
    expect(totals.tokens).toBe(formatCount(report.totals.total_tokens));
    expect(totals.requests).toBe(formatCount(report.totals.requests));
    expect(totals.cost).toContain(formatUsd(report.totals.cost_usd));
    const usage = await runCli(['usage'], { home });
    expect(usage.stdout).toContain(`${totals.tokens} tokens`);
    expect(usage.stdout).toContain(`cost ${formatUsd(report.totals.cost_usd)}`);
    const whoami = await runCli(['whoami'], { home });
    expect(whoami.stdout).toContain(`usage: ${totals.tokens} of 200,000,000 tokens`);
    expect(whoami.stdout).toContain(`cost: ${formatUsd(report.totals.cost_usd)}`);
    const keys = await runCli(['keys', 'list'], { home });
    const aliceRow = keys.stdout.split('\n').find((line) => line.startsWith('alice (local)'))!;
    expect(aliceRow.split(/\s{2,}/)).toEqual(expect.arrayContaining([totals.tokens, formatUsd(report.totals.cost_usd)]));
    // A row's tokens and cost, as the request log's JSON has them, written by the same functions.
    const row = page.locator('#requests tbody tr', { hasText: 'llama-3.1-8b-local' }).first();
    expect(await row.textContent()).toContain(`${formatCount(300_000)}+${formatCount(40_000)}`);
    await page.close();
  });
});
