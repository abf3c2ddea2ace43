import fs from 'node:fs';
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTING_KEYS } from '../../src/cli/commands/config.js';
import { exportDeclarative } from '../../src/config/declarative/overlay.js';
import { validateText } from '../../src/config/declarative/validate.js';
import { DEFAULT_SETTINGS, withDefaults } from '../../src/config/settings.js';
import { createRequestLog } from '../../src/server/request-log.js';
import { FileClaims } from '../../src/shared-state/once-claims.js';
import { tempHome } from '../helpers/router.js';
import type { FakeUpstream } from '../fakes/fake-server.js';
import { startUpstream, UPSTREAM_KEY, type UpstreamKind } from '../integration/support.js';
import { bodyFor, CLIENT_FORMATS, expectErrorReply, headersFor, parseSse, PATHS, send, type ClientFormatName, type Reply } from '../reliability/support.js';
import { redisAvailable, startRouters, startTestRedis, type RouterGroup, type RouterInstance } from './support.js';

/**
 * Budget notices on real routers in front of fake upstreams that bill each request 52 tokens:
 * a key past 50, 80 and 100 % of its 30-day cap is told so in every client format (the
 * `x-svc-usage-warning` header, svc_meta.warnings, the request log's note), and each crossing is
 * POSTed once to a real webhook receiver that fails twice before it accepts: exactly one delivery
 * per threshold per key, retried, with no request waiting for it, across two routers sharing the
 * file ledger's home or Redis; the body holds no key and the URL's token is never printed.
 */

const SKU = 'svc.intelligent-basic';
const USAGE = { input: 50, output: 2 };
const PER_REQUEST = USAGE.input + USAGE.output;
const CAP = 1_000;
const UPSTREAM_OF: Record<ClientFormatName, UpstreamKind> = { chat: 'openai-chat', messages: 'anthropic', responses: 'openai-responses' };
/** The part of the webhook URL that is its token: it must never be printed. */
const TOKEN_PATH = '/hooks/T0KEN-4b1f9c2e7d/secret';
const RETRIES = { retryDelaysMs: [5, 5, 5, 5] };

interface Attempt {
  body: any;
  raw: string;
  idempotencyKey: string | undefined;
  status: number;
}

/**
 * A webhook receiver on a real socket: each notice (by its id) is answered 500 twice, then 204.
 * `holdFirst` keeps the very first attempt unanswered until `release()`.
 */
async function startReceiver(options: { holdFirst?: boolean; alwaysFail?: boolean } = {}) {
  const attempts: Attempt[] = [];
  const seen = new Map<string, number>();
  let answered = 0;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let arrived: () => void = () => undefined;
  const firstArrived = new Promise<void>((resolve) => (arrived = resolve));
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const body = JSON.parse(raw);
    const tries = (seen.get(body.id) ?? 0) + 1;
    seen.set(body.id, tries);
    const status = options.alwaysFail ? 503 : tries <= 2 ? 500 : 204;
    const first = attempts.length === 0;
    attempts.push({ body, raw, idempotencyKey: req.headers['idempotency-key'] as string | undefined, status });
    if (first) {
      arrived();
      if (options.holdFirst) await released;
    }
    answered++;
    res.writeHead(status).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: `${origin}${TOKEN_PATH}?token=abc123`,
    attempts,
    get answered() {
      return answered;
    },
    firstArrived,
    release,
    /** The notices accepted, as `developer@threshold`. */
    delivered: () => attempts.filter((attempt) => attempt.status === 204).map((attempt) => `${attempt.body.developer}@${attempt.body.threshold_percent}`),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** svc_meta.warnings of a JSON reply, or of the stream frame that carries svc_meta (none when a Messages stream has none). */
function warningsOf(reply: Reply, stream: boolean): string[] {
  if (!stream) return reply.json.svc_meta?.warnings ?? [];
  const frames = parseSse(reply.text).filter((frame) => frame.data.includes('svc_meta'));
  if (!frames.length) return [];
  const last = JSON.parse(frames.at(-1)!.data);
  return (last.svc_meta ?? last.response?.svc_meta)?.warnings ?? [];
}

async function upstreamsFor(group: RouterGroup): Promise<FakeUpstream[]> {
  const upstreams: FakeUpstream[] = [];
  for (const kind of ['openai-chat', 'anthropic', 'openai-responses'] as const) {
    const upstream = await startUpstream(kind, [{ text: 'done', usage: USAGE }]);
    upstreams.push(upstream);
    group.config.update((settings) => {
      settings.backends[kind] = { type: kind, baseUrl: upstream.url, apiKey: UPSTREAM_KEY };
    });
  }
  return upstreams;
}

function ask(router: RouterInstance, key: string, format: ClientFormatName, stream = false): Promise<Reply> {
  return send(router, PATHS[format], { headers: headersFor(format, key), body: bodyFor(format, SKU, stream, 'hi') });
}

/** Adds usage to a developer's 30-day window, as other requests would have. */
function seed(router: RouterInstance, developer: string, tokens: number): void {
  router.app.ledger.record({ ts: Date.now(), developer, inputTokens: tokens, outputTokens: 0, requests: 1, requestId: `seed-${developer}-${tokens}-${Math.random()}` });
}

describe('budget notices in each client format', () => {
  let group: RouterGroup;
  let router: RouterInstance;
  let upstreams: FakeUpstream[];
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const logged: any[] = [];
  const reported: string[] = [];

  beforeAll(async () => {
    receiver = await startReceiver({ holdFirst: true });
    const requestLog = createRequestLog({ format: 'json', write: (text) => void logged.push(...text.split('\n').filter(Boolean).map((line) => JSON.parse(line))) });
    group = await startRouters(1, 'file', { app: { notify: { ...RETRIES, report: (message) => void reported.push(message) } }, http: { requestLog } });
    router = group.routers[0]!;
    upstreams = await upstreamsFor(group);
    group.config.update((settings) => {
      settings.notify.webhook = receiver.url;
    });
  });
  afterAll(async () => {
    receiver?.release();
    await group?.close();
    await Promise.all((upstreams ?? []).map((upstream) => upstream.close()));
    await receiver?.close();
  });

  let first = true;
  for (const format of CLIENT_FORMATS) {
    for (const stream of [false, true]) {
      it(`tells a ${format} client at 50, 80 and 100 %, and the webhook once per threshold (${stream ? 'stream' : 'JSON'})`, async () => {
        group.config.update((settings) => {
          settings.routes[SKU] = [`${UPSTREAM_OF[format]}:upstream-model`];
        });
        const developer = `notice-${format}-${stream ? 's' : 'j'}`;
        const key = group.issueKey(developer, { capTokens: CAP });
        seed(router, developer, 460);

        // 460 + 52: this request crosses 50 %. Its reply says so where svc_meta is written after
        // the usage is known; a forwarded Messages stream wrote its svc_meta before.
        const crossing = await ask(router, key, format, stream);
        expect(crossing.status, crossing.text).toBe(200);
        if (first) {
          // The reply did not wait for the webhook: its first attempt is still unanswered.
          expect(receiver.answered).toBe(0);
          await receiver.firstArrived;
          receiver.release();
          first = false;
        }
        expect(crossing.headers.get('x-svc-usage-warning')).toBeNull();
        const crossed = 'This request took this key past 50% of its 30-day usage cap (51%: 512 of 1,000 tokens).';
        expect(warningsOf(crossing, stream)).toEqual(format === 'messages' && stream ? [] : [crossed]);

        const past = await ask(router, key, format, stream);
        expect(past.status, past.text).toBe(200);
        const standing = 'This key is past 50% of its 30-day usage cap (51%: 512 of 1,000 tokens).';
        expect(past.headers.get('x-svc-usage-warning')).toBe(standing);
        expect(past.headers.get('x-svc-warning')).toBe(standing);
        expect(warningsOf(past, stream)).toEqual([standing]);

        // Past 80 % by other usage: the next request is told, and the webhook hears of 80 %.
        seed(router, developer, 250);
        const eighty = await ask(router, key, format, stream);
        expect(eighty.headers.get('x-svc-usage-warning')).toBe('This key is past 80% of its 30-day usage cap (81%: 814 of 1,000 tokens).');
        // 866, 918, 970, then 1,022: the request that reaches the cap is let through (its input fit) and says what follows.
        for (let i = 0; i < 2; i++) expect((await ask(router, key, format, stream)).status).toBe(200);
        const hundred = await ask(router, key, format, stream);
        expect(hundred.status).toBe(200);
        if (!(format === 'messages' && stream)) {
          expect(warningsOf(hundred, stream)).toEqual([
            'This key is past 80% of its 30-day usage cap (97%: 970 of 1,000 tokens).',
            `This request took this key past 100% of its 30-day usage cap (102%: 1,022 of 1,000 tokens). Its requests are refused until older usage leaves the window, or the cap is raised (svc-router keys cap ${developer} TOKENS).`,
          ]);
        }
        expectErrorReply(format, await ask(router, key, format, stream), 429, 'rate_limit', 'usage_cap_exceeded');

        // The request log and the dashboard's feed carry the note: what the policy decided, no numbers.
        const notes = logged.filter((line) => line.status === 200 && String(line.caller).includes(developer)).map((line) => line.notes?.['usage-notices']);
        expect(notes).toEqual([undefined, 'past 50% of the 30-day cap', ...Array(4).fill('past 80% of the 30-day cap')]);

        await router.app.notices.idle();
        const mine = receiver.attempts.filter((attempt) => attempt.body.developer === developer);
        // One notice per threshold, each retried after two failures and then accepted: three attempts each, one delivery.
        expect(receiver.delivered().filter((notice) => notice.startsWith(`${developer}@`)).sort()).toEqual([`${developer}@100`, `${developer}@50`, `${developer}@80`]);
        for (const threshold of [50, 80, 100]) {
          const attempts = mine.filter((attempt) => attempt.body.threshold_percent === threshold);
          expect(attempts.map((attempt) => attempt.status)).toEqual([500, 500, 204]);
          expect(new Set(attempts.map((attempt) => attempt.idempotencyKey))).toEqual(new Set([attempts[0]!.body.id]));
          expect(attempts[0]!.body).toMatchObject({ type: 'usage.threshold', developer, organisation: 'acme', threshold_percent: threshold, cap_tokens: CAP, window_days: 30 });
          expect(attempts[0]!.body.used_tokens * 100).toBeGreaterThanOrEqual(threshold * CAP);
          // No key of any kind: not the caller's, not the upstream's.
          expect(attempts[0]!.raw).not.toContain(key);
          expect(attempts[0]!.raw).not.toContain(UPSTREAM_KEY);
          expect(attempts[0]!.raw).not.toMatch(/svc_[A-Za-z0-9]/);
        }
        expect(reported).toEqual([]);
      });
    }
  }
});

const stores: Array<[string, () => Promise<{ store: string; dispose(): Promise<void> }>]> = [
  ['the file ledger’s home', async () => ({ store: 'file', dispose: async () => undefined })],
];
if (redisAvailable) {
  stores.push([
    'Redis',
    async () => {
      const redis = await startTestRedis();
      return { store: redis.url, dispose: () => redis.dispose() };
    },
  ]);
} else {
  console.warn("skipping the Redis half of the budget notices suite: 'redis-server' is not installed (apt-get install redis-server)");
}

describe.each(stores)('two routers sharing %s', (_name, open) => {
  let group: RouterGroup;
  let upstreams: FakeUpstream[];
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    const opened = await open();
    dispose = opened.dispose;
    receiver = await startReceiver();
    group = await startRouters(2, opened.store, { app: { notify: RETRIES } });
    upstreams = await upstreamsFor(group);
    group.config.update((settings) => {
      settings.notify.webhook = receiver.url;
      settings.routes[SKU] = ['openai-chat:upstream-model'];
    });
  });
  afterAll(async () => {
    await group?.close();
    await Promise.all((upstreams ?? []).map((upstream) => upstream.close()));
    await receiver?.close();
    await dispose?.();
  });

  it('send each threshold’s notice once between them, however the requests are spread', async () => {
    const key = group.issueKey('shared-notices', { capTokens: CAP });
    const [a, b] = group.routers as [RouterInstance, RouterInstance];
    seed(a, 'shared-notices', 440);
    // Both routers see the key past each threshold, at once and then turn by turn, until the cap refuses.
    for (let round = 0; round < 12; round++) {
      const replies = await Promise.all([ask(a, key, 'chat'), ask(b, key, 'chat')]);
      if (replies.every((reply) => reply.status === 429)) break;
    }
    await Promise.all([a.app.notices.idle(), b.app.notices.idle()]);
    expect(receiver.delivered().sort()).toEqual(['shared-notices@100', 'shared-notices@50', 'shared-notices@80']);
    expect(receiver.attempts).toHaveLength(9);
  });
});

describe('the webhook URL and its token', () => {
  it('is never printed whole: an undelivered notice names the origin only, after its retries', async () => {
    const receiver = await startReceiver({ alwaysFail: true });
    const reported: string[] = [];
    const group = await startRouters(1, 'file', { app: { notify: { retryDelaysMs: [1, 1], report: (message) => void reported.push(message) } } });
    const upstreams = await upstreamsFor(group);
    try {
      group.config.update((settings) => {
        settings.notify.webhook = receiver.url;
        settings.routes[SKU] = ['openai-chat:upstream-model'];
      });
      const router = group.routers[0]!;
      const key = group.issueKey('unheard', { capTokens: CAP });
      seed(router, 'unheard', 490);
      expect((await ask(router, key, 'chat')).status).toBe(200);
      await router.app.notices.idle();
      expect(receiver.attempts.map((attempt) => attempt.status)).toEqual([503, 503, 503]);
      expect(reported).toEqual([`the usage notice for unheard at 50% of its cap was not delivered to ${receiver.origin}/… (HTTP 503)`]);
      // A later request does not send it again: one notice per threshold, delivered or not.
      expect((await ask(router, key, 'chat')).status).toBe(200);
      await router.app.notices.idle();
      expect(receiver.attempts).toHaveLength(3);
    } finally {
      await group.close();
      await Promise.all(upstreams.map((upstream) => upstream.close()));
      await receiver.close();
    }
  });

  it('config shows it without its path, checks it without echoing it, and an export names a variable for it', () => {
    const settings = withDefaults(structuredClone(DEFAULT_SETTINGS));
    const url = `https://hooks.example.com${TOKEN_PATH}`;
    SETTING_KEYS['notify.webhook']!.set(settings, url);
    expect(settings.notify.webhook).toBe(url);
    expect(SETTING_KEYS['notify.webhook']!.get(settings)).toBe('https://hooks.example.com/…');
    expect(() => SETTING_KEYS['notify.webhook']!.set(settings, `ftp://hooks.example.com${TOKEN_PATH}`)).toThrow(/^notify\.webhook: expected an http:\/\/ or https:\/\/ URL$/);
    const exported = exportDeclarative(settings);
    expect(JSON.stringify(exported.config)).not.toContain('T0KEN');
    expect(exported.config.notify).toEqual({ webhookEnv: 'SVC_ROUTER_NOTIFY_WEBHOOK' });
    expect(exported.notes.join('\n')).toContain('notify.webhook is stored, and not exported');
    const validation = validateText(JSON.stringify({ notify: { webhookEnv: 'HOOK' }, limits: { session: { tokens: 500_000, usd: 2.5 } } }), { env: { HOOK: url } });
    expect(validation.problems).toEqual([]);
    expect(validateText(JSON.stringify({ limits: { session: { tokens: 0 } } })).problems).toHaveLength(1);
  });
});

describe('notice claims in the config home', () => {
  it('let exactly one of several processes’ claims through, once per period', async () => {
    const dir = path.join(tempHome(), 'claims');
    try {
      const claimers = [new FileClaims(dir, () => undefined), new FileClaims(dir, () => undefined)];
      const period = 60_000;
      const now = Date.now();
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => claimers[i % 2]!.claim('notice:alice:1000:50', period, now)));
      expect(answers.filter(Boolean)).toHaveLength(1);
      expect(await claimers[1]!.claim('notice:alice:1000:80', period, now)).toBe(true);
      // Still within the period in the next window of time; free again a whole period after the claim.
      expect(await claimers[0]!.claim('notice:alice:1000:50', period, now + period - 1_000)).toBe(false);
      expect(await claimers[0]!.claim('notice:alice:1000:50', period, now + period + 1_000)).toBe(true);
      // At most two files per name, and none holds the name (hashes only).
      const files = fs.readdirSync(dir);
      expect(files.length).toBeLessThanOrEqual(4);
      expect(files.join(' ')).not.toContain('alice');
    } finally {
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    }
  });
});
