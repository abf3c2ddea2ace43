import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import type { SessionsReport } from '../../src/sessions/session-book.js';
import { startAnthropicUpstream, type AnthropicUpstream } from '../fakes/anthropic-upstream.js';
import { initHome, makeHome, removeHome, ROOT, runCli, runCliJson, startServe, type ServeChild } from '../cli/run-cli.js';

/** Debian's `chromium` package (CI installs it); CHROMIUM_PATH points elsewhere. */
const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((file) => file && fs.existsSync(file));
if (!CHROMIUM) console.warn('skipping the dashboard sessions suite: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)');

/** Where the screenshot and the CLI's listing are left for whoever reads the run (ignored by git). */
const ARTEFACTS = path.join(ROOT, 'test-results');
const UPSTREAM_KEY = 'sk-ant-dashboard-sessions-0001';
const SYSTEM = `You are a careful coding agent. ${'Read the files before you change them, and say why. '.repeat(90)}`;

describe.skipIf(!CHROMIUM)('the sessions panel in a real Chromium', () => {
  let home: string;
  let key: string;
  let serve: ServeChild;
  let upstream: AnthropicUpstream;
  let browser: Browser;

  beforeAll(async () => {
    home = makeHome();
    key = await initHome(home);
    upstream = await startAnthropicUpstream([{ text: 'Done.' }], { apiKey: UPSTREAM_KEY, promptCache: true });
    new ConfigStore(home).update((settings) => {
      settings.backends.anthropic = { type: 'anthropic', baseUrl: upstream.url, apiKey: UPSTREAM_KEY };
      settings.routes['svc.intelligent-pro'] = ['anthropic:claude-sonnet-4-5'];
      settings.routes['svc.intelligent-lite'] = ['anthropic:claude-haiku-4-5'];
    });
    serve = await startServe(home, ['--port', '0', '--ui']);
    browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--disable-gpu'] });
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.kill();
    await upstream?.close();
    if (home) removeHome(home);
  });

  /**
   * A Claude Code conversation of `turns` turns whose system prompt changes at turn `breakAt`;
   * with `side`, a side request to the small route after each turn, as Claude Code sends titles.
   */
  async function converse(turns: number, breakAt: number, side = false): Promise<void> {
    const session = randomUUID();
    const messages: Array<{ role: string; content: string }> = [];
    for (let turn = 1; turn <= turns; turn++) {
      if (side && turn > 1) {
        const title = await fetch(`${serve.origin}/v1/messages`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'x-claude-code-session-id': session, 'user-agent': 'claude-cli/2.1.3 (external, cli)' },
          body: JSON.stringify({ model: 'svc.intelligent-lite', max_tokens: 16, system: 'Write a five-word title.', messages: [{ role: 'user', content: `Title after step ${turn - 1}` }] }),
        });
        expect(title.status, await title.text()).toBe(200);
      }
      messages.push({ role: 'user', content: `Step ${turn}: ${'look at the next file and report what it does. '.repeat(12)}` });
      // Each conversation its own prompt: another's would already be in the upstream's cache.
      const system = `${SYSTEM} Conversation ${session}.${turn >= breakAt ? ' The date is now in the prompt.' : ''}`;
      const response = await fetch(`${serve.origin}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'x-claude-code-session-id': session, 'user-agent': 'claude-cli/2.1.3 (external, cli)' },
        body: JSON.stringify({ model: 'svc.intelligent-pro', max_tokens: 64, system, messages, cache_control: { type: 'ephemeral' } }),
      });
      expect(response.status, await response.text()).toBe(200);
      messages.push({ role: 'assistant', content: 'Done.' });
    }
  }

  it('shows a session live, with the turn whose prefix broke and why, as svc-router sessions does', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${serve.origin}/ui`);
    await page.waitForSelector('#live.on');
    expect(await page.locator('#sessions-section').isHidden()).toBe(true);
    await converse(4, 3);
    const { sessions } = await runCliJson<SessionsReport>(['sessions', '--json'], { home });
    const id = sessions[0]!.id;
    const row = page.locator(`#sessions tr[data-session-id="${id}"]`);
    await row.waitFor();
    // Under the session's row, each turn whose cached share dropped.
    const drop = page.locator(`#sessions tr[data-drops-of="${id}"] .drop`);
    await expect.poll(() => drop.count()).toBe(1);
    expect(await drop.getAttribute('data-turn')).toBe('3');
    expect(await drop.textContent()).toMatch(/^turn 3: [\d.]+% → [\d.]+%: the prefix changed at system$/);
    const cells = await row.locator('td').allTextContents();
    expect(cells.slice(0, 4)).toEqual([id.slice(0, 10), 'alice · messages · claude-cli/2.1.3', 'svc.intelligent-pro → anthropic:claude-sonnet-4-5', '4']);
    expect(cells.at(-1)).toBe('1');
    expect(await page.locator('#sessions').textContent()).not.toContain(key);

    fs.mkdirSync(ARTEFACTS, { recursive: true });
    await page.locator('#sessions-section').screenshot({ path: path.join(ARTEFACTS, 'dashboard-sessions.png') });
    const listing = await runCli(['sessions'], { home });
    expect(listing.stdout).toContain('turn 3 at ');
    expect(listing.stdout).toContain('the prefix changed at system');
    fs.writeFileSync(path.join(ARTEFACTS, 'sessions.txt'), listing.stdout);
    await page.close();
  });

  it('shows a session that asked two routes as one row, each route on a line of its own, its drops numbered among all its turns', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${serve.origin}/ui`);
    await page.waitForSelector('#live.on');
    await converse(3, 3, true);
    const { sessions } = await runCliJson<SessionsReport>(['sessions', '--json'], { home });
    const id = sessions[0]!.id;
    const rows = page.locator(`#sessions tr[data-session-id="${id}"]`);
    // Polled: the panel refreshes shortly after the session's last request.
    await expect
      .poll(() => rows.locator('.model').allTextContents())
      .toEqual(['svc.intelligent-pro → anthropic:claude-sonnet-4-5 · 3 turns', 'svc.intelligent-lite → anthropic:claude-haiku-4-5 · 2 turns']);
    expect(await rows.count()).toBe(1);
    expect((await rows.locator('td').allTextContents())[3]).toBe('5');
    // The main conversation's third turn is the session's fifth request.
    const drop = page.locator(`#sessions tr[data-drops-of="${id}"] .drop`);
    await expect.poll(() => drop.count()).toBe(1);
    expect(await drop.textContent()).toMatch(/^turn 5 \(svc\.intelligent-pro\): [\d.]+% → [\d.]+%: the prefix changed at system$/);
    await page.close();
  });
});
