import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstream, UPSTREAM_KEY, type UpstreamKind } from '../integration/support.js';
import type { FakeUpstream } from '../fakes/fake-server.js';
import { bodyFor, CLIENT_FORMATS, expectErrorReply, headersFor, parseSse, PATHS, send, type ClientFormatName, type Reply } from '../reliability/support.js';
import { redisAvailable, startRouters, startTestRedis, type RouterGroup, type RouterInstance } from './support.js';

/**
 * The per-session cap (`limits.session`) on real routers in front of fake upstreams that bill each
 * request 50 input and 2 output tokens: every client format refuses a session past its cap with a
 * 429 of its own shape that names the session and how to raise the cap; a request that names no
 * session, or another caller's session of the same name, is not capped by it; concurrent requests
 * of one session end within one request's use of the cap, in one router's memory and across two
 * routers sharing Redis; and a dollar cap counts prices, naming what it cannot price.
 */

const SKU = 'svc.intelligent-basic';
/** What each fake upstream bills a request. */
const USAGE = { input: 50, output: 2 };
const PER_REQUEST = USAGE.input + USAGE.output;
/** The upstream that speaks each format (its reply is forwarded). */
const UPSTREAM_OF: Record<ClientFormatName, UpstreamKind> = { chat: 'openai-chat', messages: 'anthropic', responses: 'openai-responses' };

/** The session's name as the router keeps it: a hash of the caller and the client's id (src/routing/session-key.ts). */
const sessionHash = (developer: string, id: string): string => createHash('sha256').update(developer).update('\0').update(id).digest('base64url').slice(0, 22);

/** svc_meta of a JSON reply, or of the stream's frame that carries it. */
function metaOf(reply: Reply, stream: boolean): any {
  if (!stream) return reply.json.svc_meta;
  const frames = parseSse(reply.text).filter((frame) => frame.data.includes('svc_meta'));
  // A Messages stream carries svc_meta only when it has warnings.
  if (!frames.length) return undefined;
  const last = JSON.parse(frames.at(-1)!.data);
  return last.svc_meta ?? last.response?.svc_meta;
}

interface Setup {
  group: RouterGroup;
  upstreams: Record<UpstreamKind, FakeUpstream>;
  close(): Promise<void>;
}

async function setUp(count: number, store: string): Promise<Setup> {
  const group = await startRouters(count, store);
  const upstreams = {} as Record<UpstreamKind, FakeUpstream>;
  for (const kind of ['openai-chat', 'anthropic', 'openai-responses'] as const) upstreams[kind] = await startUpstream(kind, [{ text: 'done', usage: USAGE }]);
  group.config.update((settings) => {
    for (const [kind, upstream] of Object.entries(upstreams)) settings.backends[kind] = { type: kind as UpstreamKind, baseUrl: upstream.url, apiKey: UPSTREAM_KEY };
  });
  return {
    group,
    upstreams,
    async close() {
      await group.close();
      await Promise.all(Object.values(upstreams).map((upstream) => upstream.close()));
    },
  };
}

function ask(router: RouterInstance, key: string, format: ClientFormatName, options: { session?: string; stream?: boolean; text?: string; maxTokens?: number } = {}): Promise<Reply> {
  const body = { ...bodyFor(format, SKU, options.stream ?? false, options.text ?? 'hello session'), ...(options.maxTokens ? { [format === 'responses' ? 'max_output_tokens' : 'max_tokens']: options.maxTokens } : {}) };
  return send(router, PATHS[format], { headers: { ...headersFor(format, key), ...(options.session ? { 'x-claude-code-session-id': options.session } : {}) }, body });
}

describe('the session cap in each client format', () => {
  let setup: Setup;
  let router: RouterInstance;
  beforeAll(async () => {
    setup = await setUp(1, 'file');
    router = setup.group.routers[0]!;
    setup.group.config.update((settings) => {
      settings.limits.session = { tokens: 3 * PER_REQUEST - 10 };
    });
  });
  afterAll(() => setup?.close());

  for (const format of CLIENT_FORMATS) {
    for (const stream of [false, true]) {
      it(`refuses a ${format} session past its tokens with the format's own 429, naming the session and the setting (${stream ? 'stream' : 'JSON'})`, async () => {
        setup.group.config.update((settings) => {
          settings.routes[SKU] = [`${UPSTREAM_OF[format]}:upstream-model`];
        });
        const developer = `cap-${format}-${stream ? 's' : 'j'}`;
        const key = setup.group.issueKey(developer, { capTokens: 1e9 });
        const session = randomUUID();
        // 42 tokens are left before the third, which its input fits: it is let through, and the session ends 10 over.
        for (let i = 0; i < 3; i++) {
          const reply = await ask(router, key, format, { session, stream });
          expect(reply.status, reply.text).toBe(200);
          expect(metaOf(reply, stream)?.warnings ?? []).toEqual([]);
        }
        const upstream = setup.upstreams[UPSTREAM_OF[format]];
        const sent = upstream.requests.length;
        const refused = await ask(router, key, format, { session, stream });
        // Refused before any upstream saw it.
        expect(upstream.requests.length).toBe(sent);
        expectErrorReply(format, refused, 429, 'rate_limit', 'session_cap_exceeded');
        const message: string = refused.json.error.message;
        expect(message).toContain(`session ${sessionHash(developer, session)}`);
        expect(message).toContain(`has used ${3 * PER_REQUEST} of its ${3 * PER_REQUEST - 10} tokens`);
        expect(message).toContain('svc-router config set limits.session.tokens TOKENS');
        // The client's own id is not echoed: the router speaks of the session by its hash.
        expect(message).not.toContain(session);

        // A request naming no session is not capped by it; another session of the same caller starts at nothing.
        expect((await ask(router, key, format, { stream })).status).toBe(200);
        expect((await ask(router, key, format, { session: randomUUID(), stream })).status).toBe(200);
      });
    }
  }

  it("keeps each caller's sessions apart: another key naming the same session id starts at nothing", async () => {
    setup.group.config.update((settings) => {
      settings.routes[SKU] = ['openai-chat:upstream-model'];
    });
    const session = randomUUID();
    const first = setup.group.issueKey('apart-one', { capTokens: 1e9 });
    const second = setup.group.issueKey('apart-two', { capTokens: 1e9 });
    for (let i = 0; i < 3; i++) expect((await ask(router, first, 'chat', { session })).status).toBe(200);
    expect((await ask(router, first, 'chat', { session })).status).toBe(429);
    expect((await ask(router, second, 'chat', { session })).status).toBe(200);
  });

  it('caps dollars at the prices usage is billed at, and names a request it cannot price instead of leaving it out quietly', async () => {
    const key = setup.group.issueKey('dollars', { capTokens: 1e9 });
    setup.group.config.update((settings) => {
      delete settings.limits.session;
      settings.limits.session = { usd: 0.12 };
      // $1,000 per million tokens: each request's 52 tokens cost $0.052.
      settings.prices['priced-model'] = { input: 1_000, output: 1_000 };
      settings.routes[SKU] = ['openai-chat:priced-model'];
    });
    try {
      const session = randomUUID();
      // About 50 input tokens, estimated as the upstream bills them: each holds $0.05 before it is sent.
      const text = 'x'.repeat(196);
      for (let i = 0; i < 2; i++) {
        const reply = await ask(router, key, 'chat', { session, text, maxTokens: 2 });
        expect(reply.status, reply.text).toBe(200);
        expect(reply.json.svc_meta.cost_usd).toBeCloseTo(0.052, 9);
      }
      const refused = await ask(router, key, 'chat', { session, text, maxTokens: 2 });
      expectErrorReply('chat', refused, 429, 'rate_limit', 'session_cap_exceeded');
      expect(refused.json.error.message).toMatch(/but only \$0\.016 of session \S+ .*\$0\.12 remain/);
      expect(refused.json.error.message).toContain('svc-router config set limits.session.usd DOLLARS');

      setup.group.config.update((settings) => {
        settings.routes[SKU] = ['openai-chat:model-without-a-price'];
      });
      const unpriced = await ask(router, key, 'chat', { session: randomUUID() });
      expect(unpriced.status, unpriced.text).toBe(200);
      expect(unpriced.json.svc_meta.cost_usd).toBeNull();
      expect(unpriced.json.svc_meta.warnings).toEqual([expect.stringMatching(/cost is not known .* does not count toward the session's US dollar cap/)]);
    } finally {
      setup.group.config.update((settings) => {
        settings.limits.session = { tokens: 3 * PER_REQUEST - 10 };
        delete settings.prices['priced-model'];
      });
    }
  });
});

const stores: Array<[string, number, () => Promise<{ store: string; dispose(): Promise<void> }>]> = [
  ['one router, in its memory', 1, async () => ({ store: 'file', dispose: async () => undefined })],
];
if (redisAvailable) {
  stores.push([
    'two routers sharing Redis',
    2,
    async () => {
      const redis = await startTestRedis();
      return { store: redis.url, dispose: () => redis.dispose() };
    },
  ]);
} else {
  console.warn("skipping the Redis half of the session cap suite: 'redis-server' is not installed (apt-get install redis-server)");
}

describe.each(stores)('concurrent requests of one session, %s', (_name, count, open) => {
  const CAP = 300;
  let setup: Setup;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    const opened = await open();
    dispose = opened.dispose;
    setup = await setUp(count, opened.store);
    setup.group.config.update((settings) => {
      settings.limits.session = { tokens: CAP };
      settings.routes[SKU] = ['openai-chat:upstream-model'];
    });
  });
  afterAll(async () => {
    await setup?.close();
    await dispose?.();
  });

  it('end within one request’s use of the cap: each holds its input and max output before it is sent', async () => {
    const key = setup.group.issueKey(`concurrent-${count}`, { capTokens: 1e9 });
    const session = randomUUID();
    const routers = setup.group.routers;
    // Inputs estimated at about the 50 tokens the upstream bills, and 2 tokens of output each.
    const replies = await Promise.all(
      Array.from({ length: 16 }, (_, i) => ask(routers[i % routers.length]!, key, 'chat', { session, stream: i % 4 >= 2, text: `${i} ${'y'.repeat(190)}`, maxTokens: 2 })),
    );
    const served = replies.filter((reply) => reply.status === 200);
    for (const reply of replies) if (reply.status !== 200) expectErrorReply('chat', reply, 429, 'rate_limit', 'session_cap_exceeded');
    // Without holds every one of them would find the session empty and be sent: 16 × 52 = 832 tokens.
    expect(served.length).toBeGreaterThan(0);
    expect(served.length).toBeLessThan(replies.length);
    expect(served.length * PER_REQUEST).toBeLessThanOrEqual(CAP + PER_REQUEST);
    // Settled, the session's next request, on the other router too, finds exactly what the served ones used.
    const used = served.length * PER_REQUEST;
    const next = await ask(routers[routers.length - 1]!, key, 'chat', { session, text: 'z'.repeat(196), maxTokens: 2 });
    expectErrorReply('chat', next, 429, 'rate_limit', 'session_cap_exceeded');
    expect(next.json.error.message).toContain(used >= CAP ? `has used ${used} of its ${CAP} tokens` : `only ${CAP - used} tokens of session`);
  });
});
