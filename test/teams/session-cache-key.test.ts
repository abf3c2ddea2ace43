import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIChatUpstream, type OpenAIChatUpstream } from '../fakes/openai-chat-upstream.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { headersFor, PATHS, send, type ClientFormatName } from '../reliability/support.js';

/**
 * The upstream's prompt cache is per key (organisation) and per prompt_cache_key: a session keeps
 * both, so an agent routed through a key pool is billed as if it called the upstream directly.
 */

const POOLED = 'svc.intelligent-pro';
const DIRECT = 'svc.intelligent-basic';
const OTHER_FAMILY = 'svc.intelligent-lite';
const POOL = ['sk-cache-pool-key-1', 'sk-cache-pool-key-2', 'sk-cache-pool-key-3'];

let router: TestRouter;
let upstream: OpenAIChatUpstream;

beforeAll(async () => {
  upstream = await startOpenAIChatUpstream([{ text: 'Done.' }], { promptCache: true });
  router = await startRouter();
  router.config.update((settings) => {
    settings.backends.pooled = { type: 'openai-chat', baseUrl: upstream.url, keyPool: { strategy: 'round-robin', keys: POOL.map((apiKey) => ({ apiKey })) } };
    settings.backends.direct = { type: 'openai-chat', baseUrl: upstream.url, apiKey: 'sk-cache-direct-key' };
    settings.routes[POOLED] = ['pooled:gpt-4o-mini'];
    settings.routes[DIRECT] = ['direct:gpt-4o-mini'];
    settings.routes[OTHER_FAMILY] = ['direct:llama-3.3-70b'];
    settings.routing = { sessionHeader: 'x-team-session' };
  });
});
afterAll(async () => {
  await router.close();
  await upstream.close();
});

/** Sends one request; the body the upstream received for it. */
async function sent(format: ClientFormatName, body: Record<string, unknown>, headers: Record<string, string> = {}, key = router.key): Promise<Record<string, any>> {
  const before = upstream.requests.length;
  const reply = await send(router, PATHS[format], { headers: { ...headersFor(format, key), ...headers }, body });
  expect(reply.status, reply.text).toBe(200);
  expect(upstream.requests.length).toBe(before + 1);
  return upstream.requests.at(-1)!.body as Record<string, any>;
}

const messagesBody = (model: string) => ({ model, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
const chatBody = (model: string, fields: Record<string, unknown> = {}) => ({ model, messages: [{ role: 'user', content: 'hi' }], ...fields });

describe('prompt_cache_key reaches the upstreams that take one', () => {
  it('derived from a Claude Code session (caller and id hashed): the same every turn, its own per caller, never the id itself', async () => {
    const id = randomUUID();
    const first = await sent('messages', messagesBody(DIRECT), { 'x-claude-code-session-id': id });
    const second = await sent('messages', messagesBody(DIRECT), { 'x-claude-code-session-id': id });
    expect(first.prompt_cache_key).toMatch(/^svc-[\w-]{21}$/);
    expect(second.prompt_cache_key).toBe(first.prompt_cache_key);
    expect(JSON.stringify(first)).not.toContain(id);
    const bob = router.issueKey('bob');
    expect((await sent('messages', messagesBody(DIRECT), { 'x-claude-code-session-id': id }, bob)).prompt_cache_key).not.toBe(first.prompt_cache_key);
    expect((await sent('messages', messagesBody(DIRECT), { 'x-claude-code-session-id': randomUUID() })).prompt_cache_key).not.toBe(first.prompt_cache_key);
  });

  it("derived from a Gemini conversation's opening (Gemini's clients name no session): the same every turn, another per conversation and per caller", async () => {
    /** A Gemini client's request: the body the upstream received for it. */
    const gemini = async (contents: unknown[], key = router.key): Promise<Record<string, any>> => {
      const before = upstream.requests.length;
      const reply = await fetch(`${router.origin}/v1beta/models/${DIRECT}:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ contents }) });
      expect(reply.status, await reply.text()).toBe(200);
      expect(upstream.requests.length).toBe(before + 1);
      return upstream.requests.at(-1)!.body as Record<string, any>;
    };
    const opening = { role: 'user', parts: [{ text: `This is the Gemini CLI. Today is ${randomUUID()}.` }] };
    const first = await gemini([opening]);
    const second = await gemini([opening, { role: 'model', parts: [{ text: 'Done.' }] }, { role: 'user', parts: [{ text: 'Go on.' }] }]);
    expect(first.prompt_cache_key).toMatch(/^svc-[\w-]{21}$/);
    expect(second.prompt_cache_key).toBe(first.prompt_cache_key);
    expect((await gemini([{ role: 'user', parts: [{ text: `Another conversation ${randomUUID()}.` }] }])).prompt_cache_key).not.toBe(first.prompt_cache_key);
    expect((await gemini([opening], router.issueKey('carol'))).prompt_cache_key).not.toBe(first.prompt_cache_key);
  });

  it('as the client sent it, forwarded (Chat) or translated (a Codex Responses request to a Chat upstream)', async () => {
    expect((await sent('chat', chatBody(DIRECT, { prompt_cache_key: 'client-key-1' }), { 'x-team-session': 'team-1' })).prompt_cache_key).toBe('client-key-1');
    const codex = await sent('responses', { model: DIRECT, input: 'hi', prompt_cache_key: 'codex-key-1' }, { 'session-id': 'codex-session-1' });
    expect(codex.prompt_cache_key).toBe('codex-key-1');
  });

  it('derived for a forwarded Chat request whose session the configured header names', async () => {
    const body = await sent('chat', chatBody(DIRECT), { 'x-team-session': 'team-2' });
    expect(body.prompt_cache_key).toMatch(/^svc-[\w-]{21}$/);
    expect(JSON.stringify(body)).not.toContain('team-2');
  });

  it('and not to a model outside OpenAI’s families, whose servers may refuse the field; nor for a request naming no session', async () => {
    expect(await sent('chat', chatBody(OTHER_FAMILY), { 'x-team-session': 'team-3' })).not.toHaveProperty('prompt_cache_key');
    expect(await sent('messages', messagesBody(OTHER_FAMILY), { 'x-claude-code-session-id': randomUUID() })).not.toHaveProperty('prompt_cache_key');
    expect(await sent('chat', chatBody(DIRECT))).not.toHaveProperty('prompt_cache_key');
  });
});

describe('the same bill as going direct', () => {
  /** An agent's conversation: a long system prompt (above OpenAI's 1,024-token cache minimum) and a history that grows each turn. */
  function conversation(turns: number): Array<Record<string, unknown>> {
    const system = `You are a coding agent. ${'Follow the repository conventions and explain each change. '.repeat(120)}`;
    const messages: Array<Record<string, unknown>> = [];
    const bodies = [];
    for (let i = 0; i < turns; i++) {
      messages.push({ role: 'user', content: `Step ${i}: ${'look at the next file and report. '.repeat(20)}` });
      bodies.push({ model: '', max_tokens: 256, system, messages: [...messages] });
      messages.push({ role: 'assistant', content: 'Done.' });
    }
    return bodies;
  }

  it('a Claude Code session through a three-key round-robin pool reads the upstream cache on every turn, as one key called directly does', async () => {
    const cachedPerTurn = async (model: string): Promise<number[]> => {
      const session = randomUUID();
      const cached: number[] = [];
      for (const body of conversation(12)) {
        await sent('messages', { ...body, model }, { 'x-claude-code-session-id': session });
        cached.push(upstream.prompts.at(-1)!.cachedTokens);
      }
      return cached;
    };
    const direct = await cachedPerTurn(DIRECT);
    const pooled = await cachedPerTurn(POOLED);
    expect(direct[0]).toBe(0);
    expect(direct.slice(1).every((tokens) => tokens >= 1_024)).toBe(true);
    expect(pooled).toEqual(direct);
  });
});
