import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequestLog, type StoredRequest } from '../../src/server/request-log.js';
import { SessionBook, type SessionsReport, type SessionView } from '../../src/sessions/session-book.js';
import { startAnthropicUpstream, type AnthropicUpstream } from '../fakes/anthropic-upstream.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { send } from '../helpers/send.js';

/**
 * GET /admin/sessions over HTTP, on a real router in front of a fake Anthropic upstream that caches
 * prompts as Anthropic does: each session's totals, where it went, and each turn whose cache
 * dropped, with the reason the router saw. Admin keys only, as /admin/usage.
 */

const UPSTREAM_KEY = 'sk-ant-sessions-upstream-key-0001';
const POOL = ['sk-ant-sessions-pool-key-0001', 'sk-ant-sessions-pool-key-0002'];
const DIRECT = 'svc.intelligent-pro';
const POOLED = 'svc.intelligent-basic';
/** Where Claude Code's side requests (titles, summaries) go: another route of the same session. */
const SMALL = 'svc.intelligent-lite';
const SYSTEM = `You are a careful coding agent. ${'Read the files before you change them, and say why. '.repeat(90)}`;
const AGENT = 'claude-cli/2.1.3 (external, cli)';

let router: TestRouter;
let upstream: AnthropicUpstream;
let pooled: AnthropicUpstream;
const logLines: string[] = [];
const requestLog = createRequestLog({ format: 'json', write: (text) => void logLines.push(...text.split('\n').filter(Boolean)) });

beforeAll(async () => {
  upstream = await startAnthropicUpstream([{ text: 'Done.' }], { apiKey: UPSTREAM_KEY, promptCache: true });
  // The session's first key is refused once (its 4th call): the key rests, the session moves to the next.
  pooled = await startAnthropicUpstream((_body, index) => (index === 3 ? { status: 429, headers: { 'retry-after': '30' } } : { text: 'Done.' }), { promptCache: true });
  router = await startRouter({ http: { requestLog }, sessions: new SessionBook(8) });
  router.config.update((settings) => {
    settings.backends.anthropic = { type: 'anthropic', baseUrl: upstream.url, apiKey: UPSTREAM_KEY };
    settings.backends.pool = { type: 'anthropic', baseUrl: pooled.url, keyPool: { strategy: 'round-robin', keys: POOL.map((apiKey) => ({ apiKey })) } };
    settings.routes[DIRECT] = ['anthropic:claude-sonnet-4-5'];
    settings.routes[POOLED] = ['pool:claude-sonnet-4-5'];
    settings.routes[SMALL] = ['anthropic:claude-haiku-4-5'];
  });
});
afterAll(async () => {
  await router.close();
  await upstream.close();
  await pooled.close();
});

const admin = () => ({ authorization: `Bearer ${router.key}` });

async function sessions(): Promise<SessionsReport> {
  const reply = await send(router, '/admin/sessions', { headers: admin() });
  expect(reply.status, reply.text).toBe(200);
  return reply.json as SessionsReport;
}

/** A Claude Code conversation: automatic caching (the last block is the breakpoint), a history that grows each turn. */
class Conversation {
  system = SYSTEM;
  messages: Array<{ role: string; content: string }> = [];
  step = 0;

  constructor(
    readonly model: string,
    readonly id: string = randomUUID(),
  ) {}

  async turn(options: { stream?: boolean } = {}): Promise<void> {
    this.step++;
    this.messages.push({ role: 'user', content: `Step ${this.step}: ${'look at the next file and report what it does. '.repeat(12)}` });
    const reply = await send(router, '/v1/messages', {
      headers: { ...admin(), 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'x-claude-code-session-id': this.id, 'user-agent': AGENT },
      body: { model: this.model, max_tokens: 64, system: this.system, messages: this.messages, cache_control: { type: 'ephemeral' }, ...(options.stream ? { stream: true } : {}) },
    });
    expect(reply.status, reply.text).toBe(200);
    this.messages.push({ role: 'assistant', content: 'Done.' });
  }
}

/** The session a request log line names, by the log's `session` field. */
async function loggedSession(): Promise<string> {
  requestLog.flush();
  const line = JSON.parse(logLines.at(-1)!) as StoredRequest;
  expect(line.session).toMatch(/^[\w-]{22}$/);
  return line.session!;
}

const reasonsOf = (session: SessionView) => session.models.flatMap((model) => model.drops.map((drop) => [drop.turn, drop.reasons.map((reason) => reason.text)]));

describe('GET /admin/sessions', () => {
  it('answers only an admin key, as /admin/usage does', async () => {
    expect((await send(router, '/admin/sessions')).status).toBe(401);
    const bob = router.issueKey('bob');
    const refused = await send(router, '/admin/sessions', { headers: { authorization: `Bearer ${bob}` } });
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe('admin_key_required');
    const ops = router.issueKey('ops', { tier: 'admin' });
    expect((await send(router, '/admin/sessions', { headers: { authorization: `Bearer ${ops}` } })).status).toBe(200);
    const posted = await send(router, '/admin/sessions', { method: 'POST', headers: admin(), body: {} });
    expect(posted.status).toBe(405);
  });

  it('shows a session’s client, route, target, turns, tokens and cost, and the turn whose prefix broke with where', async () => {
    const conversation = new Conversation(DIRECT);
    await conversation.turn();
    await conversation.turn({ stream: true });
    // Deliberately broken: the system prompt changes under a running conversation.
    conversation.system = `${SYSTEM} Today is a new day.`;
    await conversation.turn();
    await conversation.turn({ stream: true });
    // And an earlier message is rewritten.
    conversation.messages[2] = { role: 'user', content: 'Step 2, said otherwise.' };
    await conversation.turn();
    const id = await loggedSession();

    const session = (await sessions()).sessions.find((candidate) => candidate.id === id)!;
    expect(session).toMatchObject({ caller: 'alice', format: 'messages', agent: 'claude-cli/2.1.3', turns: 5, dropped_turns: 2 });
    expect(session.models).toEqual([expect.objectContaining({ model: DIRECT, route: DIRECT, target: 'anthropic:claude-sonnet-4-5', turns: 5, dropped_turns: 2 })]);
    expect(session.models[0]!.key).toBeUndefined();
    expect(reasonsOf(session)).toEqual([
      [3, ['the prefix changed at system']],
      [5, ['the prefix changed at messages[2]']],
    ]);
    // The totals are the upstream's own counts, summed.
    const prompts = upstream.prompts.slice(-5);
    expect(session.input_tokens).toBe(prompts.reduce((sum, prompt) => sum + prompt.inputTokens, 0));
    expect(session.cached_tokens).toBe(prompts.reduce((sum, prompt) => sum + prompt.cachedTokens, 0));
    expect(session.cache_write_tokens).toBe(prompts.reduce((sum, prompt) => sum + prompt.cacheWriteTokens, 0));
    expect(session.cached_share).toBeCloseTo(session.cached_tokens / session.input_tokens, 9);
    expect(session.cost_usd).toBeGreaterThan(0);
    expect(session.models[0]!.drops[0]).toMatchObject({ cached_tokens: prompts[2]!.cachedTokens, cacheable_tokens: prompts[1]!.cachedTokens + prompts[1]!.cacheWriteTokens });

    // Never the session's own id, a word of the prompt, or a key.
    const text = JSON.stringify(await sessions());
    for (const secret of [conversation.id, 'Today is a new day', 'look at the next file', UPSTREAM_KEY, router.key]) expect(text).not.toContain(secret);
  });

  it('names the pooled key a session moved from and to, never the key', async () => {
    const conversation = new Conversation(POOLED);
    for (let i = 0; i < 4; i++) await conversation.turn();
    const id = await loggedSession();
    const session = (await sessions()).sessions.find((candidate) => candidate.id === id)!;
    expect(session.models[0]!.key).toEqual({ index: 1, label: 'key 2' });
    expect(reasonsOf(session)).toEqual([[4, ['moved from key 1 to key 2 of the pool (each key caches on its own)']]]);
    const text = JSON.stringify(session);
    for (const key of POOL) expect(text).not.toContain(key);
  });

  it("shows a Claude Code session that asked two routes once, with both routes under it", async () => {
    const main = new Conversation(DIRECT);
    const side = new Conversation(SMALL, main.id);
    side.system = 'Summarise the conversation in a five-word title.';
    await main.turn();
    await side.turn();
    await main.turn({ stream: true });
    await side.turn();
    await main.turn();
    const id = await loggedSession();

    const report = await sessions();
    const rows = report.sessions.filter((candidate) => candidate.id === id);
    expect(rows).toHaveLength(1);
    expect(new Set(report.sessions.map((session) => session.id)).size).toBe(report.sessions.length);
    const [session] = rows;
    expect(session).toMatchObject({ turns: 5, dropped_turns: 0 });
    expect(session!.models.map((model) => [model.model, model.route, model.target, model.turns])).toEqual([
      [DIRECT, DIRECT, 'anthropic:claude-sonnet-4-5', 3],
      [SMALL, SMALL, 'anthropic:claude-haiku-4-5', 2],
    ]);
    // The session's totals are its routes' together, as the upstream counted them.
    const prompts = upstream.prompts.slice(-5);
    expect(session!.input_tokens).toBe(prompts.reduce((sum, prompt) => sum + prompt.inputTokens, 0));
    expect(session!.models[0]!.input_tokens + session!.models[1]!.input_tokens).toBe(session!.input_tokens);
  });

  it('keeps at most its capacity of sessions however many ids arrive', async () => {
    for (let i = 0; i < 20; i++) await new Conversation(DIRECT).turn();
    const report = await sessions();
    expect(report.capacity).toBe(8);
    expect(report.sessions).toHaveLength(8);
  });
});
