import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicUpstream } from '../fakes/anthropic-upstream.js';
import { OPENAI_CACHE_STEP, OPENAI_MINIMUM_TOKENS } from '../fakes/automatic-prompt-cache.js';
import type { FakeUpstream } from '../fakes/fake-server.js';
import { startOpenAIChatUpstream } from '../fakes/openai-chat-upstream.js';
import { PromptCache, cachedShare, type PromptRecord } from '../fakes/prompt-cache.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { CLAUDE_CODE_TURNS, claudeCodeSession } from './agent-sessions/claude-code.js';
import { CODEX_SESSION_ID, CODEX_TURNS, codexSession } from './agent-sessions/codex.js';
import { SKU, UPSTREAM_KEY } from './support.js';

/**
 * The same bill as going direct: an agent session through the router to an upstream of another
 * format, whose fake caches prompts as that provider does. Going direct, each turn reads the whole
 * of the turn before from the cache (the client's own provider caches its growing prefix, or its
 * breakpoint on the newest block marks it); through the router it must too, from turn 2 on.
 */

let router: TestRouter;
const open: FakeUpstream[] = [];

beforeAll(async () => {
  router = await startRouter({ capTokens: 1e12 });
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((fake) => fake.close()));
});
afterAll(() => router.close());

/** Routes the SKU to one backend of the type, as `backends add` would store it. */
function route(type: 'anthropic' | 'openai-chat', url: string, model: string, cacheControl = false): void {
  router.config.update((settings) => {
    settings.backends.session = { type, baseUrl: url, apiKey: UPSTREAM_KEY, ...(cacheControl ? { cacheControl: true } : {}) };
    settings.routes[SKU] = [`session:${model}`];
  });
}

/** The turns of a session, the user speaking after each answer that calls nothing (but the last). */
async function play(turns: number, send: (nextUserText?: string) => Promise<void>): Promise<void> {
  for (let index = 0; index < turns; index++) await send(index === 3 ? 'Good. Now finish up.' : undefined);
}

/** Each turn from the second reads at least `read(previous)` cached tokens. */
function expectEachTurnReads(prompts: PromptRecord[], turns: number, read: (previous: PromptRecord) => number): void {
  expect(prompts).toHaveLength(turns);
  const short = prompts.slice(1).flatMap((prompt, index) => {
    const direct = read(prompts[index]!);
    return prompt.cachedTokens >= direct ? [] : [`turn ${index + 2} read ${prompt.cachedTokens} cached tokens of the ${prompts[index]!.inputTokens} it repeats; going direct reads ${direct}`];
  });
  expect(short).toEqual([]);
}

/** Anthropic reads up to where the turn before wrote: all of it. */
const wholePrompt = (previous: PromptRecord): number => previous.inputTokens;
/** OpenAI serves the shared prefix in steps of 128 tokens, from 1,024. */
const openAIRead = (previous: PromptRecord): number => (previous.inputTokens < OPENAI_MINIMUM_TOKENS ? 0 : Math.floor(previous.inputTokens / OPENAI_CACHE_STEP) * OPENAI_CACHE_STEP);

describe('a Codex session (Responses) routed to another format', () => {
  it('on an anthropic upstream: the router’s breakpoints read the whole of each turn before from turn 2, thinking replayed sealed', async () => {
    const fake = await startAnthropicUpstream(CODEX_TURNS, { apiKey: UPSTREAM_KEY, promptCache: new PromptCache() });
    open.push(fake);
    route('anthropic', fake.url, 'claude-sonnet-4-5');
    const session = codexSession(router, { effort: 'high' });
    await play(CODEX_TURNS.length, (next) => session.turn(next));
    expectEachTurnReads(fake.prompts, CODEX_TURNS.length, wholePrompt);
    expect(fake.requests.every((request) => request.body.thinking?.type === 'enabled')).toBe(true);
    expect(cachedShare(fake.prompts)).toBeGreaterThan(0.75);
  });

  it('on an openai-chat upstream serving Claude that takes cache_control: the router places the breakpoints there too', async () => {
    const fake = await startOpenAIChatUpstream(CODEX_TURNS, { apiKey: UPSTREAM_KEY, promptCache: new PromptCache(), promptCacheRules: 'breakpoints' });
    open.push(fake);
    route('openai-chat', fake.url, 'anthropic/claude-sonnet-4.5', true);
    const session = codexSession(router);
    await play(CODEX_TURNS.length, (next) => session.turn(next));
    expectEachTurnReads(fake.prompts, CODEX_TURNS.length, wholePrompt);
  });

  it('on an openai-chat upstream serving OpenAI’s models: its prompt_cache_key and retention reach it, and each turn reads the one before', async () => {
    const fake = await startOpenAIChatUpstream(CODEX_TURNS, { apiKey: UPSTREAM_KEY, promptCache: new PromptCache() });
    open.push(fake);
    route('openai-chat', fake.url, 'gpt-4.1');
    const session = codexSession(router, { retention: '24h' });
    await play(CODEX_TURNS.length, (next) => session.turn(next));
    expect(fake.requests.map((request) => [request.body.prompt_cache_key, request.body.prompt_cache_retention])).toEqual(CODEX_TURNS.map(() => [CODEX_SESSION_ID, '24h']));
    expectEachTurnReads(fake.prompts, CODEX_TURNS.length, openAIRead);
  });
});

describe('a Claude Code session (Messages) with hooks’ system messages, routed to openai-chat', () => {
  it('each turn reads the whole of the turn before, and no system message follows the first (chat templates refuse one)', async () => {
    const fake = await startOpenAIChatUpstream(CLAUDE_CODE_TURNS, { apiKey: UPSTREAM_KEY, promptCache: new PromptCache() });
    open.push(fake);
    route('openai-chat', fake.url, 'qwen3-coder');
    const session = claudeCodeSession(router);
    await play(CLAUDE_CODE_TURNS.length, (next) => session.turn(next));
    expectEachTurnReads(fake.prompts, CLAUDE_CODE_TURNS.length, openAIRead);
    for (const request of fake.requests) expect(request.body.messages.slice(1).map((message: { role: string }) => message.role)).not.toContain('system');
    expect(cachedShare(fake.prompts)).toBeGreaterThan(0.75);
  });

  it('on an upstream serving Claude that takes cache_control: its own breakpoints reach it, TTLs and all, and read each turn before', async () => {
    const fake = await startOpenAIChatUpstream(CLAUDE_CODE_TURNS, { apiKey: UPSTREAM_KEY, promptCache: new PromptCache(), promptCacheRules: 'breakpoints' });
    open.push(fake);
    route('openai-chat', fake.url, 'anthropic/claude-sonnet-4.5', true);
    const session = claudeCodeSession(router, { systemTtl: '1h' });
    await play(CLAUDE_CODE_TURNS.length, (next) => session.turn(next));
    expectEachTurnReads(fake.prompts, CLAUDE_CODE_TURNS.length, wholePrompt);
    const system = fake.requests[0]!.body.messages[0];
    // Claude Code's attribution line is Anthropic's alone (formats/messages/system-attribution.ts): the system prompt comes first.
    expect(system.content[0]).toEqual({ type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: { type: 'ephemeral', ttl: '1h' } });
  });
});
