import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import type { FakeUpstream } from '../fakes/fake-server.js';
import { closedPortUrl } from '../helpers/unused-port.js';
import { startUpstream, UPSTREAM_KEY } from '../integration/support.js';
import { BIN, cliEnv, initHome, makeHome, removeHome, runCli, runCliJson, startServe, type ServeChild } from './run-cli.js';

/**
 * The built CLI against a real `serve`: a fallback whose first target refuses connections, a priced
 * upstream, another developer, a bad key. `logs` and `usage` read what serve recorded.
 */
describe('svc-router logs and usage', () => {
  let home: string;
  let key: string;
  let bobKey: string;
  let serve: ServeChild;
  let fake: FakeUpstream;

  const chat = async (model: string, as: string): Promise<{ status: number; id: string; meta: any }> => {
    const response = await fetch(`${serve.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const body = (await response.json()) as { svc_meta?: unknown };
    return { status: response.status, id: response.headers.get('x-request-id')!, meta: body.svc_meta };
  };

  beforeAll(async () => {
    home = makeHome();
    key = await initHome(home);
    bobKey = (await runCliJson<{ key: string }>(['keys', 'issue', '--developer', 'bob', '--json'], { home })).key;
    fake = await startUpstream('openai-chat', [{ text: 'ok', usage: { input: 2_000, output: 100, cached: 0 } }]);
    const down = await closedPortUrl();
    new ConfigStore(home).update((settings) => {
      settings.backends.openai = { type: 'openai-chat', baseUrl: fake.url, apiKey: UPSTREAM_KEY };
      settings.backends.flaky = { type: 'openai-chat', baseUrl: down, apiKey: UPSTREAM_KEY };
      settings.routes['svc.intelligent-basic'] = ['flaky:gpt-4.1', 'openai:gpt-4.1'];
      settings.routes['svc.intelligent-lite'] = ['flaky:gpt-4.1'];
    });
    serve = await startServe(home);
  });

  afterAll(async () => {
    await serve?.kill();
    await fake?.close();
    if (home) removeHome(home);
  });

  it('records each request with the targets it tried, and filters by caller, status and time', async () => {
    const fallback = await chat('svc.intelligent-basic', key);
    expect(fallback.status).toBe(200);
    const failed = await chat('svc.intelligent-lite', bobKey);
    expect(failed.status).toBe(502);
    const offline = await chat('svc.intelligent-pro', bobKey);
    // Written on the next turn of serve's event loop: wait for the three lines.
    const file = path.join(home, 'requests.jsonl');
    await expect.poll(() => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').length : 0), { timeout: 5_000 }).toBe(3);

    const all = await runCli(['logs', '--json'], { home });
    expect(all.code).toBe(0);
    const records = all.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(records.map((record) => record.request_id)).toEqual([fallback.id, failed.id, offline.id]);
    // The fallback's first target failed and it shows: 502 from flaky, then ok from openai.
    expect(records[0].targets.map((target: any) => [target.backend, target.outcome])).toEqual([
      ['flaky', 502],
      ['openai', 'ok'],
    ]);
    expect(records[0].cost_usd).toBe(fallback.meta.cost_usd);
    expect(records[1]).toMatchObject({ status: 502, caller: 'bob' });
    expect(records[1].error).toBeTruthy();

    const text = await runCli(['logs'], { home });
    expect(text.stdout).toContain(`id=${fallback.id}`);
    expect(text.stdout).toMatch(/targets=flaky:gpt-4\.1\/502\/\d+ms,openai:gpt-4\.1\/ok\/\d+ms$/m);

    const bob = await runCli(['logs', '--caller', 'bob', '--json'], { home });
    expect(bob.stdout.trim().split('\n').map((line) => JSON.parse(line).request_id)).toEqual([failed.id, offline.id]);
    const errors = await runCli(['logs', '--status', '5xx', '--json'], { home });
    expect(errors.stdout.trim().split('\n').map((line) => JSON.parse(line).request_id)).toEqual([failed.id]);
    const future = await runCli(['logs', '--since', '2999-01-01', '--json'], { home });
    expect(future.stdout).toBe('');
    const recent = await runCli(['logs', '--since', '10m', '--json'], { home });
    expect(recent.stdout.trim().split('\n')).toHaveLength(3);
  });

  it('refuses a bad filter with a usage error', async () => {
    const since = await runCli(['logs', '--since', 'yesterday-ish'], { home });
    expect(since.code).toBe(2);
    expect(since.stderr).toContain('--since');
    const status = await runCli(['logs', '--status', 'bad'], { home });
    expect(status.code).toBe(2);
  });

  it('follows new requests as they finish', async () => {
    const follower = spawn(process.execPath, [BIN, 'logs', '--follow', '--json', '--limit', '1'], { cwd: home, env: cliEnv(home), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    follower.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    try {
      // --follow prints what finishes from when it starts: send until one shows (the first may finish before it runs).
      const seen = await (async () => {
        for (let tries = 0; tries < 20; tries++) {
          const next = await chat('svc.intelligent-pro', key);
          const deadline = Date.now() + 1_000;
          while (Date.now() < deadline) {
            if (out.includes(next.id)) return next.id;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }
        return undefined;
      })();
      expect(seen, `follower printed:\n${out}`).toBeDefined();
      expect(JSON.parse(out.trim().split('\n').at(-1)!).request_id).toBe(seen);
    } finally {
      follower.kill('SIGKILL');
    }
  });

  it('usage prints the totals, each slice and bars, and --json matches the requests made', async () => {
    const report = await runCliJson(['usage', '--json'], { home });
    expect(report.by_key.map((slice: any) => slice.name).sort()).toEqual(['alice', 'bob']);
    expect(report.by_upstream_model.find((slice: any) => slice.name === 'openai:gpt-4.1')).toMatchObject({ requests: 1, cost_usd: (2_000 * 2 + 100 * 8) / 1e6 });
    const text = await runCli(['usage'], { home });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^Usage since \\d{4}-\\d{2}-\\d{2} \\(30 days\\): ${report.totals.requests} requests`));
    expect(text.stdout).toMatch(/By upstream model\n(?:.*\n)*\s+openai:gpt-4\.1\s+1 req.*\$0\.0048\s+█+/);
    // Bob is no admin: usage with his key is refused, with the server's reason.
    const refused = await runCli(['usage'], { home, env: { SVC_ROUTER_KEY: bobKey } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('admin key');
  });

  it('keys list shows each key’s usage over the window', async () => {
    const rows = await runCliJson<Array<{ developer: string; usage: { requests: number; cost_usd: number | null } }>>(['keys', 'list', '--json'], { home });
    const bob = rows.find((row) => row.developer === 'bob')!;
    expect(bob.usage.requests).toBe(1);
  });
});
