import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPortUrl } from '../helpers/unused-port.js';
import { bodyFor, callFormat, expectErrorReply, headersFor, parseSse, send, type Reply } from '../reliability/support.js';
import { redisAvailable, startRouters, startTestRedis, type RouterGroup, type RouterInstance } from './support.js';

const SKU = 'svc.intelligent-basic';
const CAP = 500;
/** Every request asks for at most this much output: the bound the docs state is one request's max output. */
const MAX_OUTPUT = 8;

let prompts = 0;
/** 40 characters: an input estimate of 10 tokens, so each request is 10 + up to 8 tokens. */
const prompt = (): string => `cap ceiling request ${String(++prompts).padStart(20, '0')}`;

async function chat(router: RouterInstance, key: string, stream: boolean, maxTokens = MAX_OUTPUT): Promise<{ reply: Reply; total: number }> {
  const body = { ...bodyFor('chat', SKU, stream, prompt()), max_tokens: maxTokens };
  const reply = await callFormat({ origin: router.origin, key }, 'chat', body);
  if (reply.status !== 200) return { reply, total: 0 };
  const meta = stream ? JSON.parse(parseSse(reply.text).filter((frame) => frame.data !== '[DONE]').at(-1)!.data).svc_meta : reply.json.svc_meta;
  return { reply, total: meta.usage.total_tokens };
}

async function tokensUsed(router: RouterInstance, key: string): Promise<number> {
  const reply = await send(router, '/whoami', { headers: headersFor('chat', key) });
  expect(reply.status, reply.text).toBe(200);
  return reply.json.usage.tokens_used;
}

const stores: Array<[string, () => Promise<{ store: string; dispose(): Promise<void> }>]> = [
  ['the file ledger', async () => ({ store: 'file', dispose: async () => undefined })],
];
if (redisAvailable) {
  stores.push([
    'the Redis ledger',
    async () => {
      const redis = await startTestRedis();
      return { store: redis.url, dispose: () => redis.dispose() };
    },
  ]);
} else {
  console.warn(`skipping the Redis half of the cap suite: 'redis-server' is not installed (apt-get install redis-server)`);
}

describe.each(stores)('the usage cap is a ceiling on %s, shared by two routers', (_name, open) => {
  let group: RouterGroup;
  let dispose: () => Promise<void>;
  let developers = 0;

  beforeAll(async () => {
    const opened = await open();
    dispose = opened.dispose;
    group = await startRouters(2, opened.store);
  });
  afterAll(async () => {
    await group?.close();
    await dispose?.();
  });

  it.each([
    { seeded: 300, concurrent: 16 },
    { seeded: 0, concurrent: 48 },
    { seeded: CAP - 12, concurrent: 16 },
  ])('$concurrent concurrent requests over $seeded tokens already used end within one request’s max output of the cap', async ({ seeded, concurrent }) => {
    const developer = `ceiling${++developers}`;
    const key = group.issueKey(developer, { capTokens: CAP });
    const [a, b] = group.routers as [RouterInstance, RouterInstance];
    if (seeded) a.app.ledger.record({ ts: Date.now(), developer, inputTokens: seeded, outputTokens: 0, requests: 1, requestId: `req_seed_${developer}` });

    const results = await Promise.all(Array.from({ length: concurrent }, (_, i) => chat(i % 2 ? b : a, key, i % 4 >= 2)));
    const served = results.filter(({ reply }) => reply.status === 200);
    for (const { reply } of results) {
      if (reply.status !== 200) expectErrorReply('chat', reply, 429, 'rate_limit', 'usage_cap_exceeded');
    }
    const total = seeded + served.reduce((sum, { total: tokens }) => sum + tokens, 0);
    // The cap let some through and turned the rest away: the test exercises the edge, not one side of it.
    expect(served.length).toBeGreaterThan(0);
    expect(served.length).toBeLessThan(concurrent);
    expect(total).toBeLessThanOrEqual(CAP + MAX_OUTPUT);
    // Nothing served went unrecorded, and both routers see the same total.
    expect(await tokensUsed(a, key)).toBe(total);
    expect(await tokensUsed(b, key)).toBe(total);
  });

  it('gives a failed request’s reservation back, so failures never eat the cap', async () => {
    const developer = `ceiling${++developers}`;
    const key = group.issueKey(developer, { capTokens: 100 });
    const dead = await closedPortUrl();
    group.config.update((settings) => {
      settings.backends.dead = { type: 'openai-chat', baseUrl: dead, apiKey: 'sk-dead' };
      settings.routes['svc.intelligent-pro'] = ['dead'];
    });
    try {
      const [a, b] = group.routers as [RouterInstance, RouterInstance];
      for (const router of [a, b, a, b]) {
        const reply = await callFormat({ origin: router.origin, key }, 'chat', { ...bodyFor('chat', 'svc.intelligent-pro', false, prompt()), max_tokens: 80 });
        expect(reply.status, reply.text).toBe(502);
      }
      // Four reservations of 90 would have held the whole cap; released, the cap is whole again.
      const { reply } = await chat(b, key, false, 80);
      expect(reply.status, reply.text).toBe(200);
    } finally {
      group.config.update((settings) => {
        delete settings.routes['svc.intelligent-pro'];
        delete settings.backends.dead;
      });
    }
  });
});
