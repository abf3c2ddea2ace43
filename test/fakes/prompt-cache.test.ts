import { describe, expect, it } from 'vitest';
import { anthropicCache, anthropicMinimumTokens, anthropicPrompt } from './anthropic-prompt-cache.js';
import { automaticCache, geminiMinimumTokens, geminiRules, openAIRules } from './automatic-prompt-cache.js';
import { HOUR, MINUTE, PromptCache, cachedShare, firstChangedPart, manualClock, part, prefixChange, tokensOf, type PromptPart } from './prompt-cache.js';
import { openAIChatParts } from './prompt-parts.js';

/** Text of exactly `tokens` tokens under the fakes' tokenizer, distinct per seed. */
const text = (tokens: number, seed = 'a') => (seed + '.'.repeat(4 * tokens)).slice(0, 4 * tokens);
const message = (tokens: number, seed = 'a') => part('message', seed, text(tokens, seed));

function openAI(options: { clock?: ReturnType<typeof manualClock> } = {}) {
  const clock = options.clock ?? manualClock();
  const store = new PromptCache({ clock });
  const ask = (parts: PromptPart[], { key = 'sk-org-1', model = 'gpt-4.1', cacheKey, retention }: { key?: string; model?: string; cacheKey?: string; retention?: string } = {}) =>
    automaticCache(store, PromptCache.scope('openai', key, model, cacheKey), model, parts, openAIRules(retention), cacheKey);
  return { clock, store, ask };
}

describe('the tokenizer', () => {
  it('counts about four characters a token, rounding up', () => {
    expect([tokensOf(''), tokensOf('a'), tokensOf('abcd'), tokensOf('abcde')]).toEqual([0, 1, 1, 2]);
    expect(tokensOf(text(1000))).toBe(1000);
  });
});

describe('OpenAI automatic caching (exact prefix, 1,024 tokens minimum, 128-token steps)', () => {
  it('never caches a prompt under 1,024 tokens, however often it is sent', () => {
    const { ask } = openAI();
    const prompt = [message(1000)];
    expect([ask(prompt).cachedTokens, ask(prompt).cachedTokens, ask(prompt).cachedTokens]).toEqual([0, 0, 0]);
  });

  it('caches a repeated 2,000-token prompt as 1,920 tokens: the 128-step floor of the shared prefix', () => {
    const { ask } = openAI();
    const prompt = [message(2000)];
    const first = ask(prompt);
    const second = ask(prompt);
    expect(first).toMatchObject({ inputTokens: 2000, cachedTokens: 0 });
    expect(second).toMatchObject({ inputTokens: 2000, cachedTokens: 1920 });
  });

  it('reports the first hit at 1,024 and then whole steps of 128', () => {
    const { ask } = openAI();
    const shared = message(1100, 's');
    ask([shared, message(500, 'x')]);
    // 1,100 shared tokens: 1,024 cached, not 1,100 nor 1,152.
    expect(ask([shared, message(500, 'y')]).cachedTokens).toBe(1024);
    const longer = message(1300, 'l');
    ask([longer, message(500, 'x')]);
    expect(ask([longer, message(500, 'y')]).cachedTokens).toBe(1280);
  });

  it('keeps caches apart by prompt_cache_key, by organisation and by model', () => {
    const { ask } = openAI();
    const prompt = [message(3000)];
    ask(prompt, { cacheKey: 'session-a' });
    expect(ask(prompt, { cacheKey: 'session-b' }).cachedTokens).toBe(0);
    expect(ask(prompt).cachedTokens, 'no key is a scope of its own').toBe(0);
    expect(ask(prompt, { cacheKey: 'session-a', key: 'sk-other-org' }).cachedTokens).toBe(0);
    expect(ask(prompt, { cacheKey: 'session-a', model: 'gpt-4o' }).cachedTokens).toBe(0);
    expect(ask(prompt, { cacheKey: 'session-a' }).cachedTokens).toBe(2944);
  });

  it('changing message 3 caches only the prefix before it (down to the token where it changed)', () => {
    const { ask } = openAI();
    const history = [message(1000, 'm0'), message(500, 'm1'), message(500, 'm2')];
    const first = ask([...history, message(600, 'm3'), message(400, 'm4')]);
    const rewritten = ask([...history, message(600, 'M3'), message(400, 'm4')]);
    expect(rewritten.cachedTokens).toBe(1920); // 2,000 shared tokens, floored to 128
    expect(rewritten.cachedParts, 'messages 0 and 1 whole; 1,920 tokens end inside message 2').toBe(2);
    expect(firstChangedPart(first, rewritten)).toBe(3);
    expect(prefixChange(first, rewritten), 'named by the new prompt').toBe('M3');
    expect(prefixChange(first, first)).toBeUndefined();
    // A change at the end of message 3 keeps the part of it before the change.
    const edited = { ...message(600, 'm3'), text: text(600, 'm3').slice(0, -1) + '!' };
    expect(ask([...history, edited, message(400, 'm4')]).cachedTokens).toBe(Math.floor((2000 + 599) / 128) * 128);
  });

  it('puts tools first: a changed tool breaks the whole prompt', () => {
    const { ask } = openAI();
    const body = (description: string) => ({
      model: 'gpt-4.1',
      tools: [{ type: 'function', function: { name: 'run', description, parameters: { type: 'object', properties: {} } } }],
      messages: [{ role: 'system', content: text(1500) }, { role: 'user', content: 'hi' }],
    });
    ask(openAIChatParts(body('Runs a command.')));
    expect(ask(openAIChatParts(body('Runs a command.'))).cachedTokens).toBeGreaterThanOrEqual(1408);
    expect(ask(openAIChatParts(body('Runs a shell command.'))).cachedTokens).toBe(0);
  });

  it('reads a content part’s cache_control (OpenRouter’s breakpoint) as no part of the prompt', () => {
    const chat = (marked: boolean) => ({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', ...(marked ? { cache_control: { type: 'ephemeral' } } : {}) }] }] });
    expect(openAIChatParts(chat(true))).toEqual(openAIChatParts(chat(false)));
  });

  it('grows with a conversation: each turn reads the whole of the turn before', () => {
    const { ask } = openAI();
    const turns = [message(1500, 's')];
    let previous = ask(turns);
    for (let turn = 1; turn <= 3; turn++) {
      turns.push(message(300, `q${turn}`), message(200, `a${turn}`));
      const next = ask(turns);
      expect(next.cachedTokens).toBe(Math.floor(previous.inputTokens / 128) * 128);
      previous = next;
    }
    const session = [ask([message(1500, 'z')]), ask([message(1500, 'z'), message(500, 'w')])];
    expect(cachedShare(session)).toBe(1408 / 3500);
    expect(cachedShare([])).toBe(0);
  });

  it('forgets an in-memory prefix after 5 idle minutes, keeps a 24h one for a day', () => {
    const { ask, clock } = openAI();
    const memory = [message(2000, 'mem')];
    const extended = [message(2000, 'ext')];
    ask(memory);
    ask(extended, { retention: '24h' });
    clock.advance(4 * MINUTE);
    expect(ask(memory).cachedTokens, 'a hit keeps it alive').toBe(1920);
    clock.advance(4 * MINUTE);
    expect(ask(memory).cachedTokens).toBe(1920);
    clock.advance(5 * MINUTE);
    expect(ask(memory).cachedTokens).toBe(0);
    expect(ask(extended, { retention: '24h' }).cachedTokens).toBe(1920);
    clock.advance(23 * HOUR);
    expect(ask(extended, { retention: '24h' }).cachedTokens).toBe(1920);
    clock.advance(24 * HOUR);
    expect(ask(extended, { retention: '24h' }).cachedTokens).toBe(0);
  });

  it('keeps the store bounded', () => {
    const store = new PromptCache({ clock: manualClock(), maxEntries: 3 });
    for (let i = 0; i < 10; i++) automaticCache(store, PromptCache.scope('openai', 'k', 'm'), 'm', [message(1100, `p${i}`)], openAIRules(undefined));
    expect(store.size).toBe(3);
  });
});

describe('Gemini implicit caching', () => {
  it('applies from 2,048 tokens on Gemini 2.5, 4,096 on Gemini 3, never before 2.5', () => {
    expect(geminiMinimumTokens('gemini-2.5-flash')).toBe(2048);
    expect(geminiMinimumTokens('gemini-2.5-pro')).toBe(2048);
    expect(geminiMinimumTokens('gemini-3-pro-preview')).toBe(4096);
    expect(geminiMinimumTokens('gemini-3.1-pro-preview')).toBe(4096);
    expect(geminiMinimumTokens('gemini-2.0-flash')).toBe(Infinity);
  });

  it('reads the shared prefix exactly, without steps, above the minimum only', () => {
    const store = new PromptCache({ clock: manualClock() });
    const ask = (model: string, parts: PromptPart[]) => automaticCache(store, PromptCache.scope('gemini', 'k', model), model, parts, geminiRules(model));
    const shared = message(2100, 'doc');
    ask('gemini-2.5-flash', [shared, message(100, 'q1')]);
    expect(ask('gemini-2.5-flash', [shared, message(100, 'q2')]).cachedTokens).toBe(2100);
    const short = message(2000, 'short');
    ask('gemini-2.5-flash', [short, message(100, 'q1')]);
    expect(ask('gemini-2.5-flash', [short, message(100, 'q2')]).cachedTokens, 'under 2,048 shared').toBe(0);
    ask('gemini-2.0-flash', [shared, message(100, 'q1')]);
    expect(ask('gemini-2.0-flash', [shared, message(100, 'q2')]).cachedTokens).toBe(0);
  });
});

/** An Anthropic request body: a 10-token tool, the system blocks, the messages. */
function anthropicBody(options: { system?: any[]; messages?: any[]; model?: string; topLevel?: unknown; toolChoice?: unknown } = {}) {
  return {
    model: options.model ?? 'claude-sonnet-4-5',
    max_tokens: 100,
    tools: [{ name: 'run', description: 'Runs.', input_schema: { type: 'object' } }],
    system: options.system ?? [{ type: 'text', text: text(2000, 'sys') }],
    messages: options.messages ?? [{ role: 'user', content: [{ type: 'text', text: text(300, 'q') }] }],
    ...(options.topLevel ? { cache_control: options.topLevel } : {}),
    ...(options.toolChoice ? { tool_choice: options.toolChoice } : {}),
  };
}

const EPHEMERAL = { type: 'ephemeral' } as const;
const HOUR_LONG = { type: 'ephemeral', ttl: '1h' } as const;
const block = (tokens: number, seed: string, cache?: object) => ({ type: 'text', text: text(tokens, seed), ...(cache ? { cache_control: cache } : {}) });

function anthropic() {
  const clock = manualClock();
  const store = new PromptCache({ clock });
  const ask = (body: Record<string, any>, key = 'sk-ant-1') => {
    const prompt = anthropicPrompt(body);
    if (prompt.problem) throw new Error(prompt.problem);
    const record = anthropicCache(store, PromptCache.scope('anthropic', key, body.model), body.model, prompt);
    return { ...record, uncached: record.inputTokens - record.cachedTokens - record.cacheWriteTokens };
  };
  /** Tokens of the prompt through the part labelled so. */
  const through = (body: Record<string, any>, label: string) => {
    const parts = anthropicPrompt(body).parts;
    return parts.slice(0, parts.findIndex((p) => p.label === label) + 1).reduce((sum, p) => sum + p.tokens, 0);
  };
  return { clock, store, ask, through };
}

describe('Anthropic breakpoint caching', () => {
  it('caches nothing without cache_control', () => {
    const { ask } = anthropic();
    const body = anthropicBody();
    ask(body);
    expect(ask(body)).toMatchObject({ cachedTokens: 0, cacheWriteTokens: 0 });
  });

  it('with one breakpoint on the system block writes tools + system, then reads them', () => {
    const { ask, through } = anthropic();
    const body = anthropicBody({ system: [block(2000, 'sys', EPHEMERAL)] });
    const cachedPrefix = through(body, 'system[0]');
    const first = ask(body);
    expect(first).toMatchObject({ cachedTokens: 0, cacheWriteTokens: cachedPrefix, cacheWriteByTtl: { '5m': cachedPrefix, '1h': 0 } });
    expect(first.uncached).toBe(first.inputTokens - cachedPrefix);
    const second = ask(anthropicBody({ system: [block(2000, 'sys', EPHEMERAL)], messages: [{ role: 'user', content: 'another question' }] }));
    expect(second).toMatchObject({ cachedTokens: cachedPrefix, cacheWriteTokens: 0, cachedParts: 2 });
  });

  it("writes nothing below the model's minimum cacheable length", () => {
    const { ask } = anthropic();
    expect([anthropicMinimumTokens('claude-sonnet-4-5'), anthropicMinimumTokens('claude-opus-4-1-20250805'), anthropicMinimumTokens('claude-opus-4-20250514')]).toEqual([1024, 1024, 1024]);
    expect([anthropicMinimumTokens('claude-opus-4-5-20251101'), anthropicMinimumTokens('claude-opus-4-6'), anthropicMinimumTokens('claude-haiku-4-5')]).toEqual([4096, 4096, 4096]);
    expect([anthropicMinimumTokens('claude-3-5-haiku-20241022'), anthropicMinimumTokens('claude-3-haiku-20240307')]).toEqual([2048, 2048]);
    const short = anthropicBody({ system: [block(900, 'sys', EPHEMERAL)] });
    ask(short);
    expect(ask(short)).toMatchObject({ cachedTokens: 0, cacheWriteTokens: 0 });
    const midSized = (model: string) => anthropicBody({ model, system: [block(3000, 'sys', EPHEMERAL)] });
    expect(ask(midSized('claude-haiku-4-5')).cacheWriteTokens).toBe(0);
    expect(ask(midSized('claude-sonnet-4-5')).cacheWriteTokens).toBeGreaterThan(3000);
  });

  it('refuses a fifth breakpoint, counting a top-level cache_control as one', () => {
    const four = [block(10, 'a', EPHEMERAL), block(10, 'b', EPHEMERAL), block(10, 'c', EPHEMERAL), block(10, 'd', EPHEMERAL)];
    expect(anthropicPrompt(anthropicBody({ system: four })).problem).toBeUndefined();
    expect(anthropicPrompt(anthropicBody({ system: [...four, block(10, 'e', EPHEMERAL)] })).problem).toBe('A maximum of 4 blocks with cache_control may be provided. Found 5.');
    expect(anthropicPrompt(anthropicBody({ system: four, topLevel: EPHEMERAL })).problem).toBe('A maximum of 4 blocks with cache_control may be provided. Found 5.');
  });

  it('refuses a 1h breakpoint after a 5m one, in tools, system, messages order', () => {
    const body = anthropicBody({ system: [block(10, 'a', EPHEMERAL)], messages: [{ role: 'user', content: [block(10, 'q', HOUR_LONG)] }] });
    expect(anthropicPrompt(body).problem).toBe(
      "messages.0.content.0.cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. Note that blocks are processed in the following order: `tools`, `system`, `messages`.",
    );
    expect(anthropicPrompt(anthropicBody({ system: [block(10, 'a', HOUR_LONG)], messages: [{ role: 'user', content: [block(10, 'q', EPHEMERAL)] }] })).problem).toBeUndefined();
  });

  it('lets a 5-minute entry expire with the clock, not a 1-hour one', () => {
    const { ask, clock } = anthropic();
    const fiveMinutes = anthropicBody({ system: [block(2000, 'five', EPHEMERAL)] });
    const oneHour = anthropicBody({ system: [block(2000, 'hour', HOUR_LONG)] });
    ask(fiveMinutes);
    ask(oneHour);
    clock.advance(5 * MINUTE);
    expect(ask(fiveMinutes)).toMatchObject({ cachedTokens: 0 });
    expect(ask(oneHour).cachedTokens).toBeGreaterThan(2000);
    clock.advance(59 * MINUTE);
    expect(ask(oneHour).cachedTokens, 'the read at 5 minutes refreshed it for another hour').toBeGreaterThan(2000);
    clock.advance(HOUR);
    expect(ask(oneHour).cachedTokens).toBe(0);
  });

  it('refreshes an entry on every read', () => {
    const { ask, clock } = anthropic();
    const body = anthropicBody({ system: [block(2000, 'sys', EPHEMERAL)] });
    ask(body);
    for (let step = 0; step < 4; step++) {
      clock.advance(4 * MINUTE);
      expect(ask(body).cachedTokens).toBeGreaterThan(2000);
    }
  });

  it('refreshes an entry found by looking back, though no breakpoint marks it any more', () => {
    const { ask, clock, through } = anthropic();
    const question = { role: 'user', content: [block(500, 'q', EPHEMERAL)] };
    const first = anthropicBody({ messages: [question] });
    ask(first);
    const moved = (answer: string) =>
      anthropicBody({ messages: [{ role: 'user', content: [block(500, 'q')] }, { role: 'assistant', content: [block(50, answer, EPHEMERAL)] }] });
    clock.advance(4 * MINUTE);
    expect(ask(moved('a1')).cachedTokens).toBe(through(first, 'messages[0].content[0]'));
    clock.advance(4 * MINUTE);
    expect(ask(moved('a2')).cachedTokens, 'alive 8 minutes after it was written').toBe(through(first, 'messages[0].content[0]'));
  });

  it('splits cache creation by lifetime: up to the last 1h breakpoint, then 5m', () => {
    const { ask, through } = anthropic();
    const body = anthropicBody({ system: [block(2000, 'sys', HOUR_LONG)], messages: [{ role: 'user', content: [block(500, 'q', EPHEMERAL), block(50, 'tail')] }] });
    const hour = through(body, 'system[0]');
    const all = through(body, 'messages[0].content[0]');
    expect(ask(body)).toMatchObject({ cachedTokens: 0, cacheWriteTokens: all, cacheWriteByTtl: { '1h': hour, '5m': all - hour } });
    const next = anthropicBody({ system: [block(2000, 'sys', HOUR_LONG)], messages: [{ role: 'user', content: [block(500, 'other', EPHEMERAL)] }] });
    expect(ask(next)).toMatchObject({ cachedTokens: hour, cacheWriteByTtl: { '1h': 0, '5m': through(next, 'messages[0].content[0]') - hour } });
  });

  it('finds an earlier entry within 20 blocks of a breakpoint, not beyond', () => {
    const { ask, through } = anthropic();
    const history = (blocks: number) => Array.from({ length: blocks }, (_, i) => block(20, `b${i}`));
    const turn = (blocks: number) => [{ role: 'user', content: [block(100, 'q')] }, { role: 'assistant', content: [...history(blocks - 1), block(20, 'last', EPHEMERAL)] }];
    const first = anthropicBody({ messages: [{ role: 'user', content: [block(100, 'q', EPHEMERAL)] }] });
    const read = through(first, 'messages[0].content[0]');
    ask(first);
    // The breakpoint moved 19 blocks on: the entry is the 20th block it checks, its own included.
    expect(ask(anthropicBody({ messages: turn(19) })).cachedTokens).toBe(read);
    // 21 blocks past it (and no other entry in reach): a miss, everything is written anew.
    const { ask: askFresh } = anthropic();
    askFresh(first);
    expect(askFresh(anthropicBody({ messages: turn(20) })).cachedTokens).toBe(0);
    // tool_choice and thinking are no block: 19 message blocks after the system one, it is the 20th check.
    const { ask: askSystem } = anthropic();
    const withSystem = anthropicBody({ system: [block(2000, 'sys', EPHEMERAL)] });
    askSystem(withSystem);
    const blocks = Array.from({ length: 19 }, (_, i) => block(20, `m${i}`, i === 18 ? EPHEMERAL : undefined));
    expect(askSystem(anthropicBody({ messages: [{ role: 'user', content: blocks }] })).cachedTokens).toBe(through(withSystem, 'system[0]'));
  });

  it('caches automatically with a top-level cache_control, moving the breakpoint to the last block', () => {
    const { ask, through } = anthropic();
    const first = anthropicBody({ topLevel: EPHEMERAL, messages: [{ role: 'user', content: [block(300, 'q1')] }] });
    ask(first);
    const second = anthropicBody({ topLevel: EPHEMERAL, messages: [{ role: 'user', content: [block(300, 'q1')] }, { role: 'assistant', content: [block(50, 'a1')] }, { role: 'user', content: [block(30, 'q2')] }] });
    expect(ask(second)).toMatchObject({ cachedTokens: through(first, 'messages[0].content[0]'), uncached: 0 });
  });

  it('drops the messages from the cache when tool_choice changes, keeping tools and system', () => {
    const { ask, through } = anthropic();
    const body = (toolChoice?: unknown) => anthropicBody({ toolChoice, system: [block(2000, 'sys', EPHEMERAL)], messages: [{ role: 'user', content: [block(500, 'q', EPHEMERAL)] }] });
    ask(body());
    expect(ask(body()).cachedTokens).toBe(through(body(), 'messages[0].content[0]'));
    expect(ask(body({ type: 'any' })).cachedTokens).toBe(through(body(), 'system[0]'));
  });

  it('keeps cache_control out of the cached bytes, so a breakpoint that moves on still matches', () => {
    const marked = anthropicPrompt(anthropicBody({ system: [block(10, 's', EPHEMERAL)] }));
    const plain = anthropicPrompt(anthropicBody({ system: [block(10, 's')] }));
    expect(marked.parts.map((p) => p.text)).toEqual(plain.parts.map((p) => p.text));
  });

  it('caches a string content as the one text block it stands for', () => {
    const asString = anthropicPrompt({ model: 'claude-sonnet-4-6', system: 'Rules.', messages: [{ role: 'user', content: 'hi' }] });
    const asBlocks = anthropicPrompt({ model: 'claude-sonnet-4-6', system: [{ type: 'text', text: 'Rules.' }], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: EPHEMERAL }] }] });
    expect(asString.parts).toEqual(asBlocks.parts);
  });

  it('keeps organisations apart', () => {
    const { ask } = anthropic();
    const body = anthropicBody({ system: [block(2000, 'sys', EPHEMERAL)] });
    ask(body, 'sk-ant-1');
    expect(ask(body, 'sk-ant-2').cachedTokens).toBe(0);
  });
});
