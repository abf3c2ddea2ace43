import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrlForm, checkBaseUrl, REQUEST_PATH, type BaseUrlContext } from '../../src/cli/doctor/base-url.js';
import { DOCTOR_CLIENTS, type DoctorClient } from '../../src/cli/doctor/doctor-clients.js';
import type { ServerState } from '../../src/cli/server-state.js';
import { unusedPort } from '../helpers/unused-port.js';
import { initHome, makeHome, removeHome, runCli, startServe, type ServeChild } from './run-cli.js';

/**
 * Every base URL form doctor may be given, against a real serve: the two right ones (with and
 * without /v1, a trailing slash or not, any loopback name), and the wrong ones (/v1 twice, https
 * to a plain-HTTP serve, a port nothing of this directory listens on). A wrong form fails the
 * base-url check, and every address the check suggests passes it.
 */

interface Check {
  id: string;
  status: string;
  message: string;
  remedy?: string;
}

let home: string;
let serve: ServeChild;
let origin: string;
let port: number;

async function doctor(baseUrl: string, client?: string): Promise<Record<string, Check>> {
  const result = await runCli(['doctor', '--json', '--timeout', '2000', '--base-url', baseUrl, ...(client ? ['--client', client] : [])], { home, killAfterMs: 60_000 });
  if (result.stdout === '') throw new Error(`doctor ${baseUrl} printed nothing (exit ${result.code}): ${result.stderr}`);
  const report = JSON.parse(result.stdout) as { checks: Check[] };
  return Object.fromEntries(report.checks.map((check) => [check.id, check]));
}

describe('doctor --base-url, every form against the running serve', () => {
  beforeAll(async () => {
    home = makeHome();
    await initHome(home);
    serve = await startServe(home, ['--port', '0', '--quiet']);
    origin = serve.origin;
    port = Number(new URL(origin).port);
  }, 60_000);
  afterAll(async () => {
    await serve.kill();
    removeHome(home);
  });

  it('passes the right forms and fails the wrong ones, each naming the right addresses', async () => {
    const wrongPort = await unusedPort();
    const rows: Array<{ url: string; status: string; message?: string; whoami: string }> = [
      { url: origin, status: 'pass', whoami: 'pass' },
      { url: `${origin}/`, status: 'pass', whoami: 'pass' },
      { url: `${origin}/v1`, status: 'pass', whoami: 'pass' },
      { url: `${origin}/v1/`, status: 'pass', whoami: 'pass' },
      { url: `http://localhost:${port}/v1`, status: 'pass', whoami: 'pass' },
      { url: `${origin}/v1/v1`, status: 'fail', message: '/v1 twice', whoami: 'pass' },
      { url: `${origin}/v1/v1/`, status: 'fail', message: '/v1 twice', whoami: 'pass' },
      { url: `https://127.0.0.1:${port}/v1`, status: 'fail', message: 'speaks http, not https', whoami: 'fail' },
      { url: `http://127.0.0.1:${wrongPort}/v1`, status: 'fail', message: `listens on port ${port}, not ${wrongPort}`, whoami: 'skip' },
    ];
    const reports: Array<Record<string, Check>> = [];
    for (const row of rows) reports.push(await doctor(row.url));
    for (const [index, row] of rows.entries()) {
      const checks = reports[index]!;
      const base = checks['base-url']!;
      expect(base.status, `${row.url}: ${base.message}`).toBe(row.status);
      expect(checks.whoami!.status, row.url).toBe(row.whoami);
      if (row.status === 'pass') continue;
      expect(base.message).toContain(row.message);
      // Both forms, each right: the OpenAI one with /v1 once, the Anthropic one without.
      expect(base.remedy).toContain(`Use ${origin}/v1 for OpenAI-style clients (chat, responses) and ${origin} for Anthropic-style and Gemini ones.`);
    }
  }, 120_000);

  it('with a client, /v1 twice names only the form that client takes', async () => {
    const [claude, codex] = await Promise.all([doctor(`${origin}/v1/v1`, 'claude'), doctor(`${origin}/v1/v1`, 'codex')]);
    expect(claude['base-url']).toMatchObject({ status: 'fail', remedy: `Use ${origin} for claude.` });
    expect(codex['base-url']).toMatchObject({ status: 'fail', remedy: `Use ${origin}/v1 for codex.` });
  }, 30_000);

  it('gemini takes the origin alone: /v1 and /v1beta (which Gemini clients add themselves) each fail, naming the origin', async () => {
    const [bare, v1, v1beta, slash] = await Promise.all([doctor(origin, 'gemini'), doctor(`${origin}/v1`, 'gemini'), doctor(`${origin}/v1beta`, 'gemini'), doctor(`${origin}/`, 'gemini')]);
    expect(bare['base-url']!.status).toBe('pass');
    expect(slash['base-url']!.status).toBe('pass');
    expect(v1['base-url']).toMatchObject({ status: 'fail', remedy: `Use ${origin} (without /v1) for Gemini clients (GOOGLE_GEMINI_BASE_URL).` });
    expect(v1['base-url']!.message).toContain('gets 404 on /v1/v1beta/models/svc.intelligent-pro:streamGenerateContent');
    expect(v1beta['base-url']).toMatchObject({ status: 'fail', remedy: `Use ${origin} for gemini.` });
    expect(v1beta['base-url']!.message).toContain('gets 404 on /v1beta/v1beta/models/');
  }, 30_000);
});

describe('the path doctor says a client gets 404 on', () => {
  beforeAll(async () => {
    home = makeHome();
    await initHome(home);
    serve = await startServe(home, ['--port', '0', '--quiet']);
    origin = serve.origin;
  }, 60_000);
  afterAll(async () => {
    await serve.kill();
    removeHome(home);
  });

  it('is the path that client requests, and the router answers it 404', async () => {
    const wrong: Record<DoctorClient, string[]> = {
      openai: [origin, `${origin}/v1/v1`],
      codex: [origin, `${origin}/v1/v1`],
      anthropic: [`${origin}/v1`, `${origin}/v1/v1`],
      claude: [`${origin}/v1`, `${origin}/v1/v1`],
      gemini: [`${origin}/v1`, `${origin}/v1beta`, `${origin}/v1/v1beta`],
    };
    const cases = Object.entries(wrong).flatMap(([client, urls]) => urls.map((url) => ({ client: client as DoctorClient, url })));
    for (const { client, url } of cases) {
      const base = (await doctor(url, client))['base-url']!;
      const path = /gets 404 on (\S+)/.exec(base.message)?.[1];
      expect(path, `${client} ${url}: ${base.message}`).toBe(`${new URL(url).pathname.replace(/\/+$/, '')}${REQUEST_PATH[client]}`);
      // Codex speaks the Responses API: its failing path is /responses, never chat completions.
      if (client === 'codex') expect(path).toMatch(/\/responses$/);
      const answer = await fetch(`${origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      // 404, or (where the router recognises the doubled /v1) 400 naming the base URL mistake.
      expect([400, 404], `${client}: POST ${path}`).toContain(answer.status);
    }
  }, 120_000);
});

describe('the base-url check as a rule', () => {
  const SERVE: ServerState = { pid: 4242, host: '127.0.0.1', port: 8787, url: 'http://127.0.0.1:8787', usageStore: 'file', startedAt: '2026-01-01T00:00:00.000Z' };
  const context = (url: string, client: DoctorClient | undefined): BaseUrlContext => {
    const given = new URL(url);
    // A router answers exactly where the serve listens.
    const answered = given.protocol === 'http:' && (given.port || '80') === '8787';
    return { given: true, serve: SERVE, answered, ...(client ? { client } : {}) };
  };
  const addresses = (remedy: string | undefined): string[] => [...(remedy ?? '').matchAll(/https?:\/\/\S+/g)].map((match) => match[0].replace(/[.)]+$/, ''));

  it('fails exactly the wrong forms, and every address it suggests passes', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('http', 'https'),
        fc.constantFrom('127.0.0.1', 'localhost', '[::1]'),
        fc.constantFrom(8787, 9000),
        fc.array(fc.constantFrom('/v1', '/v1beta'), { maxLength: 4 }),
        fc.integer({ min: 0, max: 2 }),
        fc.option(fc.constantFrom(...DOCTOR_CLIENTS), { nil: undefined }),
        (scheme, host, urlPort, versions, slashes, client) => {
          const url = `${scheme}://${host}:${urlPort}${versions.join('')}${'/'.repeat(slashes)}`;
          const result = checkBaseUrl(url, context(url, client));
          // /v1beta is never a base URL's end: every Gemini client adds it.
          const v1s = versions.includes('/v1beta') ? Infinity : versions.length;
          const formFits = client === undefined ? v1s <= 1 : client === 'openai' || client === 'codex' ? v1s === 1 : v1s === 0;
          const atServe = scheme === 'http' && urlPort === 8787;
          expect(result.status === 'fail', `${url} ${client}: ${result.message}`).toBe(!(formFits && atServe));
          expect(baseUrlForm(url).root).toBe(`${scheme}://${host}:${urlPort}`);
          if (result.status !== 'fail') return;
          const suggested = addresses(result.remedy);
          expect(suggested.length, result.remedy).toBeGreaterThan(0);
          for (const address of suggested) {
            expect(address).not.toContain('/v1/v1');
            const again = checkBaseUrl(address, context(address, client));
            // Without a client each suggested address is one of the two right forms.
            expect(again.status, `${url} → ${address}: ${again.message}`).toBe('pass');
          }
        },
      ),
    );
  });
});
