import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskRule } from '../../src/config/settings.js';
import { createRequestLog } from '../../src/server/request-log.js';
import { WeightedChoice } from '../../src/routing/weighted-choice.js';
import { startKeyedUpstream, type KeyedUpstream } from '../fakes/keyed-upstream.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { closedPortUrl } from '../helpers/unused-port.js';
import { callFormat, headersFor, parseSse, send } from '../reliability/support.js';

/** A tiny PNG, as a client would attach it. */
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const RULES: TaskRule[] = [
  { name: 'long-context', when: { contextAbove: 2_000 }, targets: ['long:gpt-4.1'] },
  { name: 'background', when: { background: true }, targets: ['small:gpt-4o-mini'] },
  { name: 'web-search', when: { webSearch: true }, targets: ['search:gpt-4o-search-preview'] },
  { name: 'thinking', when: { thinking: true }, targets: ['think:o3'] },
  { name: 'image', when: { image: true }, targets: ['vision:gpt-4o'] },
];

let router: TestRouter;
let upstream: KeyedUpstream;
const logLines: string[] = [];

beforeAll(async () => {
  upstream = await startKeyedUpstream();
  const requestLog = createRequestLog({ format: 'json', write: (text) => void logLines.push(...text.split('\n').filter(Boolean)) });
  router = await startRouter({ http: { requestLog } });
  const dead = await closedPortUrl();
  router.config.update((settings) => {
    for (const name of ['main', 'long', 'small', 'search', 'think', 'vision', 'heavy', 'light']) {
      settings.backends[name] = { type: 'openai-chat', baseUrl: upstream.url, apiKey: `sk-${name}` };
    }
    settings.backends.dead = { type: 'openai-chat', baseUrl: dead, apiKey: 'sk-dead' };
    settings.routes['claude-*'] = ['main:gpt-4o'];
    settings.routes['svc.intelligent-pro'] = ['main:gpt-4o'];
    // The search chain's upstream has no search of its own: the route names where searches run
    // (never reached here, as the model answers without searching).
    settings.backends.searcher = { type: 'gemini', baseUrl: dead, apiKey: 'sk-searcher' };
    settings.routePolicies['claude-*'] = { rules: RULES, search: 'searcher:gemini-2.5-flash' };
    settings.routePolicies['svc.intelligent-pro'] = { rules: RULES, search: 'searcher:gemini-2.5-flash' };
    settings.routes['svc.intelligent-basic'] = ['heavy', 'light'];
    settings.routePolicies['svc.intelligent-basic'] = { weights: { heavy: 3, light: 1 } };
    settings.routes['svc.intelligent-lite'] = ['dead', 'light'];
    settings.routePolicies['svc.intelligent-lite'] = { weights: { dead: 1, light: 1 } };
  });
});
afterAll(async () => {
  await router.close();
  await upstream.close();
});

const messages = (body: Record<string, unknown>) => callFormat(router, 'messages', { model: 'claude-sonnet-4-5', max_tokens: 2_048, messages: [{ role: 'user', content: 'hi' }], ...body });

/** Which backend served, and the rule svc_meta names. */
function served(reply: { status: number; text: string; json: any }): { backend: string; rule: string | undefined } {
  expect(reply.status, reply.text).toBe(200);
  return { backend: reply.json.svc_meta.backend, rule: reply.json.svc_meta.rule };
}

describe('task rules pick the chain by what the request is', () => {
  it('serves a request no rule matches from the route’s own targets, and names no rule', async () => {
    expect(served(await messages({}))).toEqual({ backend: 'main', rule: undefined });
  });

  it('sends a small-model (background) request to the background chain', async () => {
    expect(served(await messages({ model: 'claude-haiku-4-5' }))).toEqual({ backend: 'small', rule: 'background' });
  });

  it('sends a request with thinking on to the thinking chain', async () => {
    expect(served(await messages({ thinking: { type: 'enabled', budget_tokens: 1_024 } }))).toEqual({ backend: 'think', rule: 'thinking' });
    expect(served(await callFormat(router, 'chat', { model: 'svc.intelligent-pro', reasoning_effort: 'high', messages: [{ role: 'user', content: 'hi' }] }))).toEqual({
      backend: 'think',
      rule: 'thinking',
    });
  });

  it('sends a request whose context is estimated above the threshold to the long-context chain', async () => {
    expect(served(await messages({ messages: [{ role: 'user', content: 'long '.repeat(2_000) }] }))).toEqual({ backend: 'long', rule: 'long-context' });
    // Just under the threshold: the route's own targets.
    expect(served(await messages({ messages: [{ role: 'user', content: 'x'.repeat(7_990) }] }))).toEqual({ backend: 'main', rule: undefined });
  });

  it('sends a request with an image, anywhere in the conversation, to the image chain', async () => {
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL } };
    expect(served(await messages({ messages: [{ role: 'user', content: [image, { type: 'text', text: 'what is this?' }] }] }))).toEqual({ backend: 'vision', rule: 'image' });
  });

  it('sends a request offering web search to the search chain, in each format’s own way of offering it', async () => {
    expect(served(await messages({ tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }] }))).toEqual({ backend: 'search', rule: 'web-search' });
    expect(served(await callFormat(router, 'responses', { model: 'svc.intelligent-pro', input: 'news?', tools: [{ type: 'web_search' }] }))).toEqual({
      backend: 'search',
      rule: 'web-search',
    });
    expect(
      served(await callFormat(router, 'chat', { model: 'svc.intelligent-pro', web_search_options: {}, messages: [{ role: 'user', content: 'news?' }] })),
    ).toEqual({ backend: 'search', rule: 'web-search' });
  });

  it('takes the first matching rule in the order configured', async () => {
    // Background and long context at once: long-context comes first in the list.
    expect(served(await messages({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'long '.repeat(2_000) }] }))).toEqual({
      backend: 'long',
      rule: 'long-context',
    });
  });

  it('names the rule in a streamed reply’s svc_meta and in the request log', async () => {
    const reply = await callFormat(router, 'chat', { model: 'svc.intelligent-pro', stream: true, reasoning_effort: 'high', messages: [{ role: 'user', content: 'hi' }] });
    expect(reply.status).toBe(200);
    const last = parseSse(reply.text).filter((frame) => frame.data !== '[DONE]').at(-1)!;
    expect(JSON.parse(last.data).svc_meta.rule).toBe('thinking');
    const id = reply.headers.get('x-request-id');
    await send(router, '/health');
    const entry = logLines.map((line) => JSON.parse(line)).find((logged) => logged.request_id === id);
    expect(entry).toMatchObject({ rule: 'thinking', backend: 'think' });
  });
});

describe('weights balance which target leads a chain', () => {
  it('leads with each weighted target in proportion to its weight', async () => {
    const backends: string[] = [];
    for (let i = 0; i < 8; i++) {
      const reply = await callFormat(router, 'chat', { model: 'svc.intelligent-basic', messages: [{ role: 'user', content: 'hi' }] });
      backends.push(served(reply).backend);
    }
    expect(backends.filter((name) => name === 'heavy')).toHaveLength(6);
    expect(backends.filter((name) => name === 'light')).toHaveLength(2);
  });

  it('keeps the other targets as fallbacks behind the one drawn', async () => {
    for (let i = 0; i < 4; i++) {
      const reply = await callFormat(router, 'chat', { model: 'svc.intelligent-lite', messages: [{ role: 'user', content: 'hi' }] });
      // Whoever leads, the healthy target answers: directly, or after the dead one failed.
      expect(served(reply).backend).toBe('light');
    }
    const whoami = await send(router, '/whoami', { headers: headersFor('chat', router.key) });
    expect(whoami.status).toBe(200);
  });

  it('over any whole round, picks each target exactly its weight’s times (smooth weighted round-robin)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 3 }), (weights, rounds) => {
        const choice = new WeightedChoice();
        const table = weights.map((weight, i) => [`t${i}`, weight] as const);
        const total = weights.reduce((sum, weight) => sum + weight, 0);
        const counts = new Map<string, number>();
        for (let i = 0; i < total * rounds; i++) {
          const picked = choice.pick('chain', table)!;
          counts.set(picked, (counts.get(picked) ?? 0) + 1);
        }
        for (const [target, weight] of table) expect(counts.get(target)).toBe(weight * rounds);
      }),
    );
  });
});
