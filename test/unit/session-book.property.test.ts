import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../src/core/request.js';
import { CONVERSATIONS_KEPT, DROPS_KEPT, MODELS_KEPT, SessionBook, type SessionTurn } from '../../src/sessions/session-book.js';
import { firstChange, fingerprintPrompt, MAX_HASHED_ITEMS } from '../../src/sessions/prompt-fingerprint.js';
import { anthropicCache, anthropicPrompt } from '../fakes/anthropic-prompt-cache.js';
import { manualClock, MINUTE, PromptCache, type ManualClock } from '../fakes/prompt-cache.js';

/**
 * The sessions view (src/sessions/) against Anthropic's prompt cache as the cache-aware fake
 * models it: a conversation grows turn by turn; one turn breaks it in one way (a changed system
 * prompt, tool list or earlier message, another target or key, a pause past the cache's
 * lifetime); the cache says what that turn read, and the book must list that turn, and only that
 * one, with that reason.
 */

const MODEL = 'claude-sonnet-4-5';
/** Over Sonnet's 1,024-token minimum, so the first turn is cached. */
const SYSTEM = `You are a careful coding agent. ${'Read the files before you change them, and say why. '.repeat(90)}`;
const TOOLS = [{ name: 'read_file', description: 'Reads one file.', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }];

type Body = { model: string; max_tokens: number; system: string; tools: unknown[]; messages: Array<{ role: string; content: string }>; cache_control: Record<string, string> };

const canonical = (body: Record<string, unknown>, format: 'messages' | 'chat' | 'responses' = 'messages'): CanonicalRequest => ({
  model: 'svc.intelligent-pro',
  system: [],
  messages: [],
  tools: [],
  forwardBody: { format, body },
});

/** One session's conversation driven through the fake cache and into the book. */
class Driver {
  readonly store: PromptCache;
  readonly clock: ManualClock = manualClock();
  target = `anthropic:${MODEL}`;
  key = { index: 0, label: 'key 1' };
  apiKey = 'sk-ant-pool-key-1';
  body: Body;

  constructor(
    readonly book: SessionBook,
    readonly session = 'session-1',
    ttl?: '1h',
    /** The model the client asks for (Claude Code asks a small one for its side requests). */
    readonly model = 'svc.intelligent-pro',
  ) {
    this.store = new PromptCache({ clock: this.clock });
    this.body = { model: MODEL, max_tokens: 256, system: SYSTEM, tools: TOOLS, messages: [], cache_control: { type: 'ephemeral', ...(ttl ? { ttl } : {}) } };
  }

  /** One turn: the next user message, what the cache does with the prompt, the turn recorded; then the reply joins the history. */
  turn(step: number): void {
    this.body = { ...this.body, messages: [...this.body.messages, { role: 'user', content: `Step ${step}: ${'look at the next file and report what it does. '.repeat(12)}` }] };
    const record = anthropicCache(this.store, PromptCache.scope('anthropic', this.apiKey, MODEL), MODEL, anthropicPrompt(this.body));
    const startedAt = this.clock.now();
    const turn: SessionTurn = {
      session: this.session,
      caller: 'alice',
      format: 'messages',
      agent: 'claude-cli/2.1.3',
      model: this.model,
      route: this.model,
      target: this.target,
      backendType: 'anthropic',
      key: this.key,
      startedAt,
      endedAt: startedAt + 2_000,
      usage: { inputTokens: record.inputTokens, outputTokens: 40, cachedInputTokens: record.cachedTokens, cacheWriteInputTokens: record.cacheWriteTokens },
      costNanoUsd: 1_000_000,
      request: canonical(this.body),
    };
    this.book.record(turn);
    this.body = { ...this.body, messages: [...this.body.messages, { role: 'assistant', content: `Done with step ${step}.` }] };
    this.clock.advance(30_000);
  }
}

type Break =
  | { kind: 'system' }
  | { kind: 'tools' }
  | { kind: 'message'; at: number }
  | { kind: 'target' }
  | { kind: 'key' }
  | { kind: 'idle'; minutes: number; ttl?: '1h' };

/** What the book should say of the turn the break happens on: the reason's kind and part, or no drop at all. */
function expected(breaking: Break): { kind: string; part?: string } | undefined {
  switch (breaking.kind) {
    case 'system':
      return { kind: 'prefix', part: 'system' };
    case 'tools':
      return { kind: 'tools' };
    case 'message':
      return { kind: 'prefix', part: `messages[${breaking.at}]` };
    case 'target':
    case 'key':
      return { kind: 'moved' };
    case 'idle':
      // The turns are 30 s apart besides.
      return breaking.minutes * MINUTE + 30_000 > (breaking.ttl ? 60 : 5) * MINUTE ? { kind: 'lifetime' } : undefined;
  }
}

function apply(driver: Driver, breaking: Break): void {
  switch (breaking.kind) {
    case 'system':
      driver.body = { ...driver.body, system: `${SYSTEM} Today is a new day.` };
      return;
    case 'tools':
      driver.body = { ...driver.body, tools: [...TOOLS, { name: 'write_file', description: 'Writes one file.', input_schema: { type: 'object' } }] };
      return;
    case 'message': {
      const messages = driver.body.messages.slice();
      messages[breaking.at] = { ...messages[breaking.at]!, content: `${messages[breaking.at]!.content} (edited)` };
      driver.body = { ...driver.body, messages };
      return;
    }
    case 'target':
      // Another backend: another upstream, whose cache is its own (another scope in the fake).
      driver.target = `anthropic-eu:${MODEL}`;
      driver.apiKey = 'sk-ant-eu-key';
      return;
    case 'key':
      driver.key = { index: 1, label: 'key 2 ($ANTHROPIC_KEY_B)' };
      driver.apiKey = 'sk-ant-pool-key-2';
      return;
    case 'idle':
      driver.clock.advance(breaking.minutes * MINUTE);
      return;
  }
}

/** A break of a conversation whose previous turn sent `sent` messages (the reply to it, not yet sent, is no break). */
const aBreak = (sent: number): fc.Arbitrary<Break> =>
  fc.oneof(
    fc.constant<Break>({ kind: 'system' }),
    fc.constant<Break>({ kind: 'tools' }),
    fc.nat(sent - 1).map<Break>((at) => ({ kind: 'message', at })),
    fc.constant<Break>({ kind: 'target' }),
    fc.constant<Break>({ kind: 'key' }),
    fc.integer({ min: 6, max: 50 }).map<Break>((minutes) => ({ kind: 'idle', minutes })),
    fc.integer({ min: 6, max: 90 }).map<Break>((minutes) => ({ kind: 'idle', minutes, ttl: '1h' })),
  );

describe('the sessions view, against the provider cache it explains', () => {
  it('lists the one turn whose cache a break lost, with that break as its reason, and no other turn', () => {
    const scenario = fc.integer({ min: 2, max: 7 }).chain((breakAt) =>
      fc.record({ breakAt: fc.constant(breakAt), after: fc.integer({ min: 0, max: 3 }), breaking: aBreak(2 * (breakAt - 1) - 1) }),
    );
    fc.assert(
      fc.property(scenario, ({ breakAt, after, breaking }) => {
        const book = new SessionBook();
        const driver = new Driver(book, 'session-1', breaking.kind === 'idle' ? breaking.ttl : undefined);
        for (let step = 1; step < breakAt; step++) driver.turn(step);
        // The clock moved 30 s after the last turn; an idle break adds its minutes to that.
        apply(driver, breaking);
        for (let step = breakAt; step <= breakAt + after; step++) driver.turn(step);

        const [session, ...others] = book.report().sessions;
        expect(others).toEqual([]);
        expect(session!.turns).toBe(breakAt + after);
        const [model] = session!.models;
        const want = expected(breaking);
        if (!want) {
          expect(model!.drops).toEqual([]);
          return;
        }
        expect(session!.dropped_turns).toBe(1);
        expect(model!.dropped_turns).toBe(1);
        const [drop] = model!.drops;
        expect(drop!.turn).toBe(breakAt);
        expect(drop!.cached_tokens).toBeLessThan(drop!.cacheable_tokens);
        expect(drop!.reasons.map((reason) => ({ kind: reason.kind, ...(reason.part ? { part: reason.part } : {}) }))).toEqual([want]);
      }),
      { numRuns: 150 },
    );
  });

  it('says which target or key the session moved between, and how long it was idle against which lifetime', () => {
    const book = new SessionBook();
    const driver = new Driver(book);
    driver.turn(1);
    driver.turn(2);
    apply(driver, { kind: 'key' });
    driver.turn(3);
    apply(driver, { kind: 'idle', minutes: 7 });
    driver.turn(4);
    const [session] = book.report().sessions;
    const [model] = session!.models;
    expect(model!.drops.map((drop) => drop.reasons.map((reason) => reason.text))).toEqual([
      ['moved from key 1 to key 2 ($ANTHROPIC_KEY_B) of the pool (each key caches on its own)'],
      ["7 min since the previous turn, past Anthropic's 5-minute cache lifetime"],
    ]);
    expect(model!.key).toEqual({ index: 1, label: 'key 2 ($ANTHROPIC_KEY_B)' });
    expect(session!.cost_usd).toBeCloseTo(0.004, 9);
  });

  it("a subagent's turns between the main conversation's turns lose nothing of the main one's cache", () => {
    const book = new SessionBook();
    const main = new Driver(book);
    const subagent = new Driver(book);
    subagent.body = { ...subagent.body, system: `You are a subagent. ${SYSTEM}` };
    for (let step = 1; step <= 4; step++) {
      main.turn(step);
      subagent.turn(step);
    }
    const [session] = book.report().sessions;
    expect(session!.turns).toBe(8);
    // The subagent's first turn is a new prompt, compared with the main one: the one drop, at its system prompt.
    expect(session!.models[0]!.drops.map((drop) => [drop.turn, drop.reasons.map((reason) => reason.part)])).toEqual([[2, ['system']]]);
  });

  it('nor do several turns of one conversation in a row push the others out', () => {
    const book = new SessionBook();
    const [main, ...subagents] = Array.from({ length: CONVERSATIONS_KEPT }, () => new Driver(book));
    subagents.forEach((subagent, i) => (subagent.body = { ...subagent.body, system: `You are subagent ${i}. ${SYSTEM}` }));
    for (const driver of [main!, ...subagents]) driver.turn(1);
    for (let step = 2; step <= 6; step++) main!.turn(step);
    for (const subagent of subagents) subagent.turn(2);
    const [session] = book.report().sessions;
    // Only each subagent's first turn, a new prompt.
    expect(session!.models[0]!.drops.map((drop) => drop.turn)).toEqual(subagents.map((_, i) => i + 2));
  });

  it('keeps no word of a prompt, and no key', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 5 }), (words) => {
        const book = new SessionBook();
        const driver = new Driver(book);
        const marked = words.map((word, i) => `<<prompt ${i}: ${word}>>`);
        driver.body = { ...driver.body, system: `${SYSTEM} ${marked.join(' ')}`, messages: marked.map((content, i) => ({ role: i % 2 ? 'assistant' : 'user', content })) };
        driver.turn(1);
        driver.turn(2);
        const text = JSON.stringify(book.report());
        expect(text).not.toContain('<<prompt');
        expect(text).not.toContain(driver.apiKey);
      }),
      { numRuns: 30 },
    );
  });
});

describe('one session, several models', () => {
  const MODELS = ['svc.intelligent-pro', 'svc.intelligent-lite', 'claude-haiku-4-5'];
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

  it("is one entry however many models it asks, each model's turns, tokens and drops adding up to its totals", () => {
    const turn = fc.record({ session: fc.constantFrom('s1', 's2', 's3'), model: fc.constantFrom(...MODELS), fresh: fc.nat(5_000), cached: fc.nat(5_000), output: fc.nat(500), priced: fc.boolean() });
    fc.assert(
      fc.property(fc.array(turn, { minLength: 1, maxLength: 40 }), (turns) => {
        const book = new SessionBook();
        turns.forEach((one, i) => {
          const startedAt = 1_000_000 + i * 1_000;
          book.record({
            session: one.session,
            caller: 'alice',
            format: 'messages',
            model: one.model,
            route: one.model,
            target: `anthropic:${one.model}`,
            startedAt,
            endedAt: startedAt + 10,
            usage: { inputTokens: one.fresh + one.cached, cachedInputTokens: one.cached, outputTokens: one.output },
            ...(one.priced ? { costNanoUsd: 1_000 } : {}),
            request: canonical({ model: one.model, messages: [{ role: 'user', content: `turn ${i}` }] }),
          });
        });
        const { sessions } = book.report();
        expect(sessions.map((session) => session.id).sort()).toEqual([...new Set(turns.map((one) => one.session))].sort());
        for (const session of sessions) {
          const mine = turns.filter((one) => one.session === session.id);
          expect(session.turns).toBe(mine.length);
          expect(session.input_tokens).toBe(sum(mine.map((one) => one.fresh + one.cached)));
          expect(session.cached_tokens).toBe(sum(mine.map((one) => one.cached)));
          expect(session.output_tokens).toBe(sum(mine.map((one) => one.output)));
          expect(session.unpriced_turns).toBe(mine.filter((one) => !one.priced).length);
          // Each model once, in the order the session first asked for it.
          expect(session.models.map((model) => model.model)).toEqual([...new Set(mine.map((one) => one.model))]);
          for (const model of session.models) expect(model.turns).toBe(mine.filter((one) => one.model === model.model).length);
          for (const field of ['turns', 'input_tokens', 'cached_tokens', 'cache_write_tokens', 'output_tokens', 'unpriced_turns', 'dropped_turns'] as const) {
            expect(sum(session.models.map((model) => model[field])), field).toBe(session[field]);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it("compares a model's turns with that model's only, and numbers a drop by its place among all the session's turns", () => {
    const book = new SessionBook();
    const main = new Driver(book, 'claude-code');
    const side = new Driver(book, 'claude-code', undefined, 'svc.intelligent-lite');
    side.body = { ...side.body, system: 'Write a 5-word title for the conversation.', tools: [] };
    for (let step = 1; step <= 2; step++) {
      main.turn(step);
      side.turn(step);
    }
    apply(main, { kind: 'system' });
    main.turn(3);
    const { sessions } = book.report();
    expect(sessions).toHaveLength(1);
    const [session] = sessions;
    expect(session).toMatchObject({ id: 'claude-code', turns: 5, dropped_turns: 1 });
    expect(session!.models.map((model) => [model.model, model.turns, model.dropped_turns])).toEqual([
      ['svc.intelligent-pro', 3, 1],
      ['svc.intelligent-lite', 2, 0],
    ]);
    // The main conversation's third turn is the session's fifth request.
    expect(session!.models[0]!.drops.map((drop) => [drop.turn, drop.reasons.map((reason) => reason.part)])).toEqual([[5, ['system']]]);
  });

  it(`keeps at most ${MODELS_KEPT} models of a session apart, and counts every turn in its totals`, () => {
    const book = new SessionBook();
    const drivers = Array.from({ length: MODELS_KEPT + 3 }, (_, i) => new Driver(book, 'many', undefined, `model-${i}`));
    for (const driver of drivers.slice(0, MODELS_KEPT)) driver.turn(1);
    // The first is asked again (later than the others' turns), then three more models come.
    drivers[0]!.turn(2);
    for (const driver of drivers.slice(MODELS_KEPT)) driver.turn(1);
    const [session] = book.report().sessions;
    expect(session!.turns).toBe(MODELS_KEPT + 4);
    expect(session!.models).toHaveLength(MODELS_KEPT);
    // The least recently used left; the first, asked again, stayed.
    expect(session!.models.map((model) => model.model)).toEqual(['model-0', ...drivers.slice(4).map((driver) => driver.model)]);
  });
});

describe('prompt fingerprints', () => {
  it('name the part where the prompt first changed as the client wrote it, in every client format', () => {
    const chat = (messages: unknown[]) => fingerprintPrompt(canonical({ model: 'm', messages }, 'chat'));
    const a = [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }];
    expect(firstChange(chat(a), chat([...a, { role: 'user', content: 'more' }]))).toBeUndefined();
    expect(firstChange(chat(a), chat([{ role: 'system', content: 'be long' }, ...a.slice(1)]))).toEqual({ kind: 'part', part: 'messages[0]' });
    const responses = (instructions: string, input: unknown) => fingerprintPrompt(canonical({ model: 'm', instructions, input }, 'responses'));
    expect(firstChange(responses('x', 'hi'), responses('y', 'hi'))).toEqual({ kind: 'part', part: 'instructions' });
    expect(firstChange(responses('x', [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }]), responses('x', [{ role: 'user', content: 'a' }, { role: 'user', content: 'c' }]))).toEqual({
      kind: 'part',
      part: 'input[1]',
    });
    // No tools and an empty list are one prompt.
    expect(firstChange(chat(a), fingerprintPrompt(canonical({ model: 'm', messages: a, tools: [] }, 'chat')))).toBeUndefined();
    // A translated request without the client's body: the canonical parts.
    const plain = (text: string): CanonicalRequest => ({ model: 'm', system: [{ type: 'text', text }], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [] });
    expect(firstChange(fingerprintPrompt(plain('a')), fingerprintPrompt(plain('b')))).toEqual({ kind: 'part', part: 'system' });
  });

  it('read a part nested deeper than any stack, and tell it from another', () => {
    const nested = (depth: number, leaf: string): unknown => {
      let value: unknown = leaf;
      for (let i = 0; i < depth; i++) value = { items: value };
      return value;
    };
    const tools = (leaf: string) => fingerprintPrompt(canonical({ model: 'm', tools: [{ name: 't', input_schema: nested(200_000, leaf) }], messages: [] }));
    expect(firstChange(tools('a'), tools('a'))).toBeUndefined();
    expect(firstChange(tools('a'), fingerprintPrompt(canonical({ model: 'm', tools: [{ name: 't', input_schema: nested(40, 'a') }], messages: [] })))).toEqual({ kind: 'tools' });
  });

  it('take a property named like a prototype member as any other part', () => {
    const body = JSON.parse('{"model":"m","__proto__":{"x":1},"constructor":"y","messages":[{"role":"user","content":"hi"}]}') as Record<string, unknown>;
    expect(fingerprintPrompt(canonical(body, 'chat')).items.length).toBe(1);
  });
});

describe('bounds', () => {
  it('a flood of session ids keeps at most the capacity, the least recently active leaving first', () => {
    const capacity = 50;
    const book = new SessionBook(capacity);
    for (let i = 0; i < 40 * capacity; i++) new Driver(book, `flood-${i}`).turn(1);
    // A session that keeps talking stays.
    const busy = new Driver(book, 'busy');
    for (let step = 1; step <= 3; step++) {
      busy.turn(step);
      for (let i = 0; i < capacity / 2; i++) new Driver(book, `flood-again-${step}-${i}`).turn(1);
    }
    expect(book.size).toBe(capacity);
    const ids = book.report().sessions.map((session) => session.id);
    expect(ids).toHaveLength(capacity);
    expect(ids).toContain('busy');
    expect(ids).not.toContain('flood-0');
  });

  it('a conversation of any length keeps a bounded fingerprint, and a session a bounded list of drops', () => {
    const long = Array.from({ length: MAX_HASHED_ITEMS * 3 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i}` }));
    expect(fingerprintPrompt(canonical({ model: 'm', messages: long }, 'chat')).items.length).toBe(MAX_HASHED_ITEMS);

    const book = new SessionBook();
    const driver = new Driver(book);
    driver.turn(0);
    for (let step = 1; step <= DROPS_KEPT + CONVERSATIONS_KEPT + 10; step++) {
      apply(driver, { kind: 'idle', minutes: 6 });
      driver.turn(step);
    }
    const [session] = book.report().sessions;
    const [model] = session!.models;
    expect(session!.dropped_turns).toBe(DROPS_KEPT + CONVERSATIONS_KEPT + 10);
    expect(model!.drops).toHaveLength(DROPS_KEPT);
    expect(model!.drops.at(-1)!.turn).toBe(session!.turns);
  });
});
