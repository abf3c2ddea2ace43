import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import type { SessionsReport } from '../../src/sessions/session-book.js';
import { startAnthropicUpstream, type AnthropicUpstream } from '../fakes/anthropic-upstream.js';
import { closedPortUrl } from '../helpers/unused-port.js';
import { initHome, makeHome, removeHome, runCli, runCliJson, startServe, type ServeChild } from './run-cli.js';

/**
 * `svc-router sessions` asks the running serve (its state file says where) for GET /admin/sessions;
 * `svc-router logs --session ID` shows that session's requests from the request log.
 */

const UPSTREAM_KEY = 'sk-ant-cli-sessions-upstream-0001';
const SYSTEM = `You are a careful coding agent. ${'Read the files before you change them, and say why. '.repeat(90)}`;

let home: string;
let key: string;
let serve: ServeChild;
let upstream: AnthropicUpstream;

beforeAll(async () => {
  home = makeHome();
  key = await initHome(home);
  upstream = await startAnthropicUpstream([{ text: 'Done.' }], { apiKey: UPSTREAM_KEY, promptCache: true });
  new ConfigStore(home).update((settings) => {
    settings.backends.anthropic = { type: 'anthropic', baseUrl: upstream.url, apiKey: UPSTREAM_KEY };
    settings.routes['svc.intelligent-pro'] = ['anthropic:claude-sonnet-4-5'];
    settings.routes['svc.intelligent-lite'] = ['anthropic:claude-haiku-4-5'];
  });
  serve = await startServe(home);
});
afterAll(async () => {
  await serve?.kill();
  await upstream?.close();
  if (home) removeHome(home);
});

/**
 * Claude Code's turns: the history grows, the last block is the cache breakpoint; `breakAt` changes
 * the system prompt from that turn on; `sideEvery` sends every that-many-th turn to the small
 * route instead, as Claude Code sends its side requests (titles, summaries) to a small model.
 */
async function converse(session: string, turns: number, breakAt?: number, sideEvery?: number): Promise<void> {
  const messages: Array<{ role: string; content: string }> = [];
  for (let turn = 1; turn <= turns; turn++) {
    if (sideEvery !== undefined && turn % sideEvery === 0) {
      const side = await fetch(`${serve.origin}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'x-claude-code-session-id': session, 'user-agent': 'claude-cli/2.1.3 (external, cli)' },
        body: JSON.stringify({ model: 'svc.intelligent-lite', max_tokens: 16, system: 'Write a five-word title.', messages: [{ role: 'user', content: `Title for step ${turn}` }] }),
      });
      expect(side.status, await side.text()).toBe(200);
      continue;
    }
    messages.push({ role: 'user', content: `Step ${turn}: ${'look at the next file and report what it does. '.repeat(12)}` });
    const system = breakAt !== undefined && turn >= breakAt ? `${SYSTEM} It is ${turn} o'clock.` : SYSTEM;
    const response = await fetch(`${serve.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'x-claude-code-session-id': session, 'user-agent': 'claude-cli/2.1.3 (external, cli)' },
      body: JSON.stringify({ model: 'svc.intelligent-pro', max_tokens: 64, system, messages, cache_control: { type: 'ephemeral' } }),
    });
    expect(response.status, await response.text()).toBe(200);
    messages.push({ role: 'assistant', content: 'Done.' });
  }
}

const requestsFile = () => path.join(home, 'requests.jsonl');
/** Completions the request log holds so far. */
const storedCompletions = () =>
  fs.existsSync(requestsFile()) ? fs.readFileSync(requestsFile(), 'utf8').split('\n').filter((line) => line.includes('"path":"/v1/messages"')).length : 0;

describe('svc-router sessions', () => {
  it('says when the router has seen no session yet', async () => {
    const result = await runCli(['sessions'], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('No sessions yet');
  });

  it('shows each session, and the turn whose prefix broke with its reason', async () => {
    await converse(randomUUID(), 4, 3);
    const result = await runCli(['sessions'], { home });
    expect(result.code, result.stderr).toBe(0);
    const { sessions } = await runCliJson<SessionsReport>(['sessions', '--json'], { home });
    const [session] = sessions;
    expect(result.stdout).toContain(session!.id);
    expect(result.stdout).toContain('alice · messages · claude-cli/2.1.3');
    expect(result.stdout).toContain('svc.intelligent-pro → anthropic:claude-sonnet-4-5');
    expect(result.stdout).toMatch(/4 turn\(s\) over \d+s/);
    expect(result.stdout).toMatch(/turn 3 at \d\d:\d\d:\d\d: cached [\d.]+% → [\d.]+% \(read [\d,]+ of [\d,]+ cached by the turn before\): the prefix changed at system/);
    expect(result.stdout).not.toContain(key);
  });

  it('--json prints the report as GET /admin/sessions returns it', async () => {
    const report = await runCliJson<SessionsReport>(['sessions', '--json'], { home });
    expect(Object.keys(report).sort()).toEqual(['capacity', 'generated_at', 'sessions', 'unread_turns']);
    expect(report.unread_turns).toBe(0);
    expect(report.capacity).toBe(1_000);
    const [session] = report.sessions;
    expect(Object.keys(session!).sort()).toEqual(
      [
        'agent',
        'cache_write_tokens',
        'cached_share',
        'cached_tokens',
        'caller',
        'cost_usd',
        'dropped_turns',
        'duration_ms',
        'format',
        'id',
        'input_tokens',
        'last_at',
        'models',
        'output_tokens',
        'started_at',
        'turns',
        'unpriced_turns',
      ].sort(),
    );
    const [model] = session!.models;
    expect(Object.keys(model!).sort()).toEqual(
      ['cache_write_tokens', 'cached_share', 'cached_tokens', 'cost_usd', 'drops', 'dropped_turns', 'input_tokens', 'last_at', 'model', 'output_tokens', 'route', 'started_at', 'target', 'turns', 'unpriced_turns'].sort(),
    );
    const [drop] = model!.drops;
    expect(Object.keys(drop!).sort()).toEqual(['cacheable_tokens', 'cached_share', 'cached_tokens', 'input_tokens', 'previous_cached_share', 'reasons', 'target', 'time', 'turn']);
    expect(drop!.reasons).toEqual([{ kind: 'prefix', part: 'system', text: 'the prefix changed at system' }]);
  });

  it('shows a session that asked two routes once, both routes under it', async () => {
    const id = randomUUID();
    await converse(id, 3, undefined, 2);
    const { sessions } = await runCliJson<SessionsReport>(['sessions', '--json'], { home });
    expect(sessions).toHaveLength(2);
    const [latest] = sessions;
    expect(latest!.turns).toBe(3);
    expect(latest!.models.map((model) => [model.model, model.turns])).toEqual([
      ['svc.intelligent-pro', 2],
      ['svc.intelligent-lite', 1],
    ]);
    const result = await runCli(['sessions'], { home });
    expect(result.stdout).toContain('2 session(s) this router served');
    expect(result.stdout.split(latest!.id)).toHaveLength(2);
    const block = result.stdout.slice(result.stdout.indexOf(latest!.id)).split('\n\n')[0]!;
    expect(block).toMatch(/3 turn\(s\) over /);
    expect(block).toContain('svc.intelligent-pro → anthropic:claude-sonnet-4-5 · 2 turn(s)');
    expect(block).toContain('svc.intelligent-lite → anthropic:claude-haiku-4-5 · 1 turn(s)');
  });

  it('asks the router it is given, and says so when none answers', async () => {
    const other = makeHome();
    try {
      await initHome(other);
      const port = new URL(await closedPortUrl()).port;
      new ConfigStore(other).update((settings) => void (settings.server.port = Number(port)));
      const result = await runCli(['sessions'], { home: other });
      expect(result.code).toBe(4);
      expect(result.stderr).toContain(`cannot reach http://127.0.0.1:${port}`);
      // A key that is not an admin's is refused, as on GET /admin/usage.
      const bob = await runCliJson<{ key: string }>(['keys', 'issue', '--developer', 'bob', '--json'], { home });
      const refused = await runCli(['sessions', '--base-url', serve.origin, '--key', bob.key], { home: other });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('403');
    } finally {
      removeHome(other);
    }
  });
});

describe('svc-router logs --session', () => {
  it("shows one session's requests, by its id or the id's first characters", async () => {
    await converse(randomUUID(), 2);
    const { sessions } = await runCliJson<SessionsReport>(['sessions', '--json'], { home });
    expect(sessions).toHaveLength(3);
    await expect.poll(storedCompletions, { timeout: 10_000 }).toBe(9);
    for (const session of sessions) {
      for (const id of [session.id, session.id.slice(0, 6)]) {
        const result = await runCli(['logs', '--session', id, '--json'], { home });
        expect(result.code, result.stderr).toBe(0);
        const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { session?: string; path: string });
        expect(lines).toHaveLength(session.turns);
        expect(lines.every((line) => line.session === session.id && line.path === '/v1/messages')).toBe(true);
      }
    }
    const text = await runCli(['logs', '--session', sessions[0]!.id], { home });
    expect(text.stdout).toContain(`session=${sessions[0]!.id}`);
  });

  it('refuses an id that is no session id', async () => {
    const result = await runCli(['logs', '--session', 'not an id!'], { home });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--session');
  });
});
