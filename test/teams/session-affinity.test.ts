import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { KeyPoolSettings } from '../../src/config/settings.js';
import { createRequestLog, type StoredRequest } from '../../src/server/request-log.js';
import { startKeyedUpstream, type KeyedUpstream } from '../fakes/keyed-upstream.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { bodyFor, headersFor, PATHS, send, type ClientFormatName, type Reply } from '../reliability/support.js';

const WEIGHTED = 'svc.intelligent-basic';
const POOLED = 'svc.intelligent-pro';
const FALLBACK = 'svc.intelligent-lite';
const TURNS = 50;

let router: TestRouter;
let upstream: KeyedUpstream;
const logLines: string[] = [];
const requestLog = createRequestLog({ format: 'json', write: (text) => void logLines.push(...text.split('\n').filter(Boolean)) });

beforeAll(async () => {
  upstream = await startKeyedUpstream();
  router = await startRouter({ http: { requestLog } });
});
afterAll(async () => {
  await router.close();
  await upstream.close();
});

let run = 0;
/** Fresh backend keys per test (rests are shared by key): the key each request carried tells which backend, and which pooled key, served it. */
let keys: { heavy: string; light: string; first: string; second: string; pool: string[] };
beforeEach(() => {
  run++;
  keys = { heavy: `sk-heavy-${run}`, light: `sk-light-${run}`, first: `sk-first-${run}`, second: `sk-second-${run}`, pool: [1, 2, 3].map((n) => `sk-pool-${run}-${n}`) };
  configure({ weights: { heavy: 1, light: 1 }, pool: 'round-robin' });
});

function configure(options: { weights: Record<string, number>; pool: KeyPoolSettings['strategy']; sessionHeader?: string }): void {
  router.config.update((settings) => {
    for (const name of ['heavy', 'light', 'first', 'second'] as const) settings.backends[name] = { type: 'openai-chat', baseUrl: upstream.url, apiKey: keys[name] };
    settings.backends.pooled = { type: 'openai-chat', baseUrl: upstream.url, keyPool: { strategy: options.pool, keys: keys.pool.map((apiKey) => ({ apiKey })) } };
    settings.routes[WEIGHTED] = ['heavy:gpt-4o', 'light:gpt-4o'];
    settings.routePolicies[WEIGHTED] = { weights: Object.fromEntries(Object.entries(options.weights).map(([name, weight]) => [`${name}:gpt-4o`, weight])) };
    settings.routes[POOLED] = ['pooled:gpt-4o-mini'];
    settings.routes[FALLBACK] = ['first:gpt-4o', 'second:gpt-4o'];
    settings.routing = options.sessionHeader ? { sessionHeader: options.sessionHeader } : {};
  });
}

interface TurnOptions {
  format?: ClientFormatName;
  headers?: Record<string, string>;
  body?: Record<string, unknown>;
  stream?: boolean;
  key?: string;
}

/** One client request; the upstream key it reached (which backend or pooled key served it). */
async function turn(model: string, options: TurnOptions = {}): Promise<{ reply: Reply; servedWith: string }> {
  const format = options.format ?? 'messages';
  const reply = await send(router, PATHS[format], {
    headers: { ...headersFor(format, options.key ?? router.key), ...options.headers },
    body: { ...bodyFor(format, model, options.stream ?? false, 'next turn'), ...options.body },
  });
  expect(reply.status, reply.text).toBe(200);
  return { reply, servedWith: upstream.keysSeen.at(-1)! };
}

/** Each way a client names its session, as the agents send it: the request options that name session `id`. */
const SESSION_SOURCES: Array<[string, (id: string) => TurnOptions]> = [
  ['the header the config names (chat)', (id) => ({ format: 'chat', headers: { 'x-team-session': id } })],
  ["Claude Code's x-claude-code-session-id (messages)", (id) => ({ format: 'messages', headers: { 'x-claude-code-session-id': id } })],
  ["Codex's session-id (responses)", (id) => ({ format: 'responses', headers: { 'session-id': id } })],
  ['prompt_cache_key (chat)', (id) => ({ format: 'chat', body: { prompt_cache_key: id } })],
  ['metadata.user_id (messages)', (id) => ({ format: 'messages', body: { metadata: { user_id: JSON.stringify({ device_id: 'd', session_id: id }) } } })],
];

/** The request log's entry for a reply (the log is written on the next turn of the event loop: flushed first). */
function logged(reply: Reply): StoredRequest {
  requestLog.flush();
  const id = reply.headers.get('x-request-id');
  const entry = logLines.map((line) => JSON.parse(line) as StoredRequest).find((record) => record.request_id === id);
  expect(entry, `no log line for ${id}`).toBeDefined();
  return entry!;
}

describe('one session stays on one target of a weighted route', () => {
  it.each(SESSION_SOURCES)(`across ${TURNS} turns, streamed and not, named by %s`, async (_label, named) => {
    configure({ weights: { heavy: 1, light: 1 }, pool: 'round-robin', sessionHeader: 'x-team-session' });
    const options = named(randomUUID());
    const served = new Set<string>();
    for (let i = 0; i < TURNS; i++) served.add((await turn(WEIGHTED, { ...options, stream: i % 2 === 1 })).servedWith);
    expect(served.size).toBe(1);
    expect([keys.heavy, keys.light]).toContain([...served][0]);
  });

  it('reads the configured header before the agents’ own: turns sharing it stay together whatever else they name', async () => {
    configure({ weights: { heavy: 1, light: 1 }, pool: 'round-robin', sessionHeader: 'x-team-session' });
    const team = randomUUID();
    const served = new Set<string>();
    for (let i = 0; i < 10; i++) served.add((await turn(WEIGHTED, { headers: { 'x-team-session': team, 'x-claude-code-session-id': randomUUID() } })).servedWith);
    expect(served.size).toBe(1);
  });

  it('draws by weight once per new session, and per request for requests naming none', async () => {
    configure({ weights: { heavy: 3, light: 1 }, pool: 'round-robin' });
    const sessions = Array.from({ length: 8 }, () => randomUUID());
    const firstTurns: string[] = [];
    for (const session of sessions) firstTurns.push((await turn(WEIGHTED, { headers: { 'x-claude-code-session-id': session } })).servedWith);
    // Any 4 draws in a row of smooth weighted round-robin 3:1 hold 3 heavy and 1 light.
    expect(firstTurns.filter((key) => key === keys.heavy)).toHaveLength(6);
    expect(firstTurns.filter((key) => key === keys.light)).toHaveLength(2);
    // Later turns, interleaved across the sessions in another order each round, each stay where their session began.
    for (let round = 1; round <= 3; round++) {
      for (let step = 0; step < sessions.length; step++) {
        const index = (step + round) % sessions.length;
        expect((await turn(WEIGHTED, { headers: { 'x-claude-code-session-id': sessions[index]! } })).servedWith).toBe(firstTurns[index]);
      }
    }
    const sessionless: string[] = [];
    for (let i = 0; i < 8; i++) sessionless.push((await turn(WEIGHTED)).servedWith);
    expect(sessionless.filter((key) => key === keys.heavy)).toHaveLength(6);
    expect(sessionless.filter((key) => key === keys.light)).toHaveLength(2);
  });
});

describe('one session stays on one pooled key', () => {
  it(`across ${TURNS} turns; round-robin takes its turn per new session, and per request for requests naming none`, async () => {
    const session = randomUUID();
    const served = new Set<string>();
    for (let i = 0; i < TURNS; i++) served.add((await turn(POOLED, { headers: { 'x-claude-code-session-id': session }, stream: i % 2 === 0 })).servedWith);
    expect(served.size).toBe(1);
    const others = [];
    for (let i = 0; i < 2; i++) others.push((await turn(POOLED, { headers: { 'x-claude-code-session-id': randomUUID() } })).servedWith);
    expect(new Set([...served, ...others]).size).toBe(3);
    const sessionless = [];
    for (let i = 0; i < 3; i++) sessionless.push((await turn(POOLED)).servedWith);
    expect(new Set(sessionless).size).toBe(3);
  });

  it('moves to another key when its key is refused (429), says so in the log, and stays there', async () => {
    const session = { headers: { 'x-claude-code-session-id': randomUUID() } };
    const before = (await turn(POOLED, session)).servedWith;
    upstream.treat(before, { status: 429, headers: { 'retry-after': '60' } });
    const { reply, servedWith: after } = await turn(POOLED, session);
    expect(after).not.toBe(before);
    expect(reply.json.svc_meta.attempts).toBe(2);
    const from = keys.pool.indexOf(before) + 1;
    const to = keys.pool.indexOf(after) + 1;
    expect(logged(reply).session_moved).toBe(`pooled key ${from} → key ${to}`);
    for (let i = 0; i < 10; i++) expect((await turn(POOLED, session)).servedWith).toBe(after);
  });
});

describe('a failover moves the session', () => {
  it('to the target that answered, says so in the log, and keeps it there once the old target is healthy again', async () => {
    const session = { headers: { 'x-claude-code-session-id': randomUUID() } };
    expect((await turn(FALLBACK, session)).servedWith).toBe(keys.first);
    const quiet = logged((await turn(FALLBACK, session)).reply);
    expect(quiet.session_moved).toBeUndefined();
    upstream.treat(keys.first, { status: 429, headers: { 'retry-after': '60' } });
    const moved = await turn(FALLBACK, session);
    expect(moved.servedWith).toBe(keys.second);
    expect(logged(moved.reply).session_moved).toBe('first:gpt-4o → second:gpt-4o');
    // Healthy again (a request naming no session is served there), but moving back would lose the
    // session's cache a second time: the session stays.
    upstream.treat(keys.first, {});
    expect((await turn(FALLBACK)).servedWith).toBe(keys.first);
    for (let i = 0; i < 10; i++) {
      const next = await turn(FALLBACK, session);
      expect(next.servedWith).toBe(keys.second);
      expect(logged(next.reply).session_moved).toBeUndefined();
    }
    // A new session starts where the chain does.
    expect((await turn(FALLBACK, { headers: { 'x-claude-code-session-id': randomUUID() } })).servedWith).toBe(keys.first);
  });

  it('of one caller only: another caller naming the same session id is a session of its own', async () => {
    const bob = router.issueKey(`bob-${run}`);
    const id = randomUUID();
    const session = { headers: { 'x-claude-code-session-id': id } };
    expect((await turn(FALLBACK, session)).servedWith).toBe(keys.first);
    upstream.treat(keys.first, { status: 429, headers: { 'retry-after': '60' } });
    expect((await turn(FALLBACK, session)).servedWith).toBe(keys.second);
    upstream.treat(keys.first, {});
    expect((await turn(FALLBACK, { ...session, key: bob })).servedWith).toBe(keys.first);
    expect((await turn(FALLBACK, session)).servedWith).toBe(keys.second);
  });
});
