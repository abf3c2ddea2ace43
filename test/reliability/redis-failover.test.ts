import fs from 'node:fs';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appliedKey } from '../../src/usage/redis-ledger.js';
import { DAY_MS } from '../../src/usage/ledger.js';
import { tempHome } from '../helpers/router.js';
import { startRouters, type RouterGroup } from '../teams/support.js';
import { startSentinelSet, sentinelAvailable, type SentinelSet } from './redis-sentinels.js';
import { bodyFor, CLIENT_FORMATS, callFormat, eventually, hasErrorShape, type ClientFormatName } from './support.js';

if (!sentinelAvailable) console.warn("skipping the Redis failover suite: 'redis-server' and 'redis-sentinel' are not both installed (apt-get install redis-server redis-sentinel)");

const SKU = 'svc.intelligent-basic';
/** Concurrent clients of the steady developer, spread over both routers, every format, plain and streamed. */
const CLIENTS = 12;
/** The capped developer's clients, sending from the moment the primary is killed. */
const CAP_CLIENTS = 6;
const CAP_TOKENS = 3_000;
const ROUTERS = 2;

interface Answer {
  id: string;
  tokens: number;
}

/**
 * The request id (x-request-id, the id the ledger counts it under) and the tokens an answer told
 * its client: svc_meta in every format but a Messages stream, whose message_delta carries them.
 */
function usageOf(text: string, requestId: string | null): Answer | undefined {
  const meta = [...text.matchAll(/"svc_meta":\{"request_id":"([\w-]+)"[\s\S]*?"usage":\{"input_tokens":(\d+),"output_tokens":(\d+)/g)].at(-1);
  if (meta) return meta[1] === requestId ? { id: meta[1]!, tokens: Number(meta[2]) + Number(meta[3]) } : undefined;
  const delta = [...text.matchAll(/"type":"message_delta"[\s\S]*?"usage":\{"input_tokens":(\d+),"output_tokens":(\d+)/g)].at(-1);
  return delta && requestId ? { id: requestId, tokens: Number(delta[1]) + Number(delta[2]) } : undefined;
}

/** What one developer's day bucket on the current primary holds, and which of `ids` it marked as counted. */
async function stored(primary: Redis, developer: string, ids: string[]): Promise<{ tokens: number; requests: number; unmarked: number }> {
  const day = Math.floor(Date.now() / DAY_MS);
  const [input, output, requests] = await primary.hmget(`svc-router:usage:${developer}:${day}`, 'in', 'out', 'n');
  const marks = ids.length ? await primary.exists(...ids.map(appliedKey)) : 0;
  return { tokens: Number(input ?? 0) + Number(output ?? 0), requests: Number(requests ?? 0), unmarked: ids.length - marks };
}

describe.skipIf(!sentinelAvailable)('the shared state across a Redis failover (a primary, a replica, three sentinels)', () => {
  let dir: string;
  let set: SentinelSet;
  let group: RouterGroup;

  beforeAll(async () => {
    dir = tempHome();
    set = await startSentinelSet(dir);
    group = await startRouters(ROUTERS, set.url);
  }, 90_000);
  afterAll(async () => {
    await group?.close();
    await set?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers through the failover without a 500, loses no answered usage, counts none twice, and bounds the cap overshoot', async () => {
    const steadyKey = group.issueKey('steady', { capTokens: 1_000_000_000 });
    const cappedKey = group.issueKey('capped', { capTokens: CAP_TOKENS });
    const answered: Record<string, Answer[]> = { steady: [], capped: [] };
    const refused: Array<{ developer: string; format: ClientFormatName; status: number; retryAfter: string | null; shaped: boolean }> = [];
    let sent = 0;
    let stop = false;
    let capStart = false;

    const client = async (developer: 'steady' | 'capped', key: string, index: number) => {
      for (let n = 0; !stop; n++) {
        if (developer === 'capped' && !capStart) {
          await new Promise((resolve) => setImmediate(resolve));
          continue;
        }
        const format = CLIENT_FORMATS[(index + n) % CLIENT_FORMATS.length]!;
        const stream = (index + n) % 2 === 0;
        const router = group.routers[(index + n) % ROUTERS]!;
        sent++;
        const reply = await callFormat({ origin: router.origin, key }, format, bodyFor(format, SKU, stream, `failover ${developer} ${index} ${n}`));
        if (reply.status === 200) {
          const usage = usageOf(reply.text, reply.headers.get('x-request-id'));
          if (!usage) throw new Error(`a ${format} answer carried no usage: ${reply.text.slice(0, 300)}`);
          answered[developer]!.push(usage);
        } else {
          refused.push({ developer, format, status: reply.status, retryAfter: reply.headers.get('retry-after'), shaped: hasErrorShape(format, reply.json) });
          // Paced, not stopped: a developer over the cap keeps asking, as a client would, without spinning the routers.
          if (developer === 'capped') await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    };
    const load = Promise.all([
      ...Array.from({ length: CLIENTS }, (_, index) => client('steady', steadyKey, index)),
      ...Array.from({ length: CAP_CLIENTS }, (_, index) => client('capped', cappedKey, index)),
    ]);
    const answeredAtLeast = (count: number, what: string) => eventually(() => (answered.steady!.length >= count ? true : undefined), 60_000, what);

    let failoverMs = 0;
    let answeredDuring = 0;
    try {
      await answeredAtLeast(100, 'answers before the primary is killed');
      capStart = true;
      // The replica falls behind first (its link drops): what the routers write from now on, the
      // primary alone has, and the promotion loses it from Redis. The routers must write it again.
      await set.cutReplicaLink();
      await answeredAtLeast(answered.steady!.length + 30, 'answers the replica never received');
      const before = answered.steady!.length;
      const failover = await set.killPrimary();
      failoverMs = failover.failoverMs;
      expect(failover.promotedPort).toBe(set.replica.port);
      answeredDuring = answered.steady!.length - before;
      // Load goes on against the promoted replica; then the old primary comes back (as a service
      // manager would start it) and the sentinels make it the new primary's replica.
      await answeredAtLeast(answered.steady!.length + 100, 'answers after the promotion');
      await set.restartOldPrimary();
      await answeredAtLeast(answered.steady!.length + 50, 'answers once the old primary is a replica again');
    } finally {
      stop = true;
      await load;
    }

    const primary = await set.connectPrimary();
    try {
      // The routers write on their own schedule (and again what the dead primary held unconfirmed): wait, bounded, for every answer.
      const steadyIds = answered.steady!.map((answer) => answer.id);
      await eventually(async () => ((await stored(primary, 'steady', steadyIds)).unmarked === 0 ? true : undefined), 30_000, 'every answered request to be counted on the new primary');
      // A summary writes whatever its router still queues: after it, nothing more is on its way.
      for (const router of group.routers) await router.app.ledger.summary('steady');
      for (const router of group.routers) await router.app.ledger.summary('capped');

      const steady = await stored(primary, 'steady', steadyIds);
      const steadyTokens = answered.steady!.reduce((sum, answer) => sum + answer.tokens, 0);
      const capped = await stored(primary, 'capped', answered.capped!.map((answer) => answer.id));
      const cappedTokens = answered.capped!.reduce((sum, answer) => sum + answer.tokens, 0);
      const maxAnswer = Math.max(...answered.steady!.map((answer) => answer.tokens), ...answered.capped!.map((answer) => answer.tokens));
      const overshoot = capped.tokens - CAP_TOKENS;
      const failed = refused.filter((reply) => reply.developer === 'steady');
      const figures = {
        requestsSent: sent,
        answered: answered.steady!.length + answered.capped!.length,
        answeredWhileFailingOver: answeredDuring,
        failed: failed.length,
        answered500: refused.filter((reply) => reply.status >= 500 && reply.status !== 503).length,
        refused503: refused.filter((reply) => reply.status === 503).length,
        usageLost: steadyTokens - steady.tokens + (cappedTokens - capped.tokens),
        requestsLost: answered.steady!.length - steady.requests + (answered.capped!.length - capped.requests),
        capTokens: CAP_TOKENS,
        capOvershoot: overshoot,
        capOvershootBound: ROUTERS * CAP_TOKENS + CAP_CLIENTS * maxAnswer,
        failoverSeconds: Number((failoverMs / 1000).toFixed(2)),
      };
      console.log(`Redis failover figures: ${JSON.stringify(figures)}`);

      // No 500 of any kind; a request that could not be admitted is a 503 in its own format, saying when to retry.
      expect(refused.filter((reply) => reply.status >= 500 && reply.status !== 503)).toEqual([]);
      for (const reply of refused.filter((entry) => entry.status === 503)) expect(reply).toMatchObject({ shaped: true, retryAfter: expect.stringMatching(/^\d+$/) });
      // The steady developer was never over a cap or a limit: anything else refused it would be the failover's fault.
      expect(failed.filter((reply) => reply.status !== 503)).toEqual([]);
      // Every answered request counted exactly once: the tokens and requests the clients were told, no more, no less.
      expect({ tokens: steady.tokens, requests: steady.requests, unmarked: steady.unmarked }).toEqual({ tokens: steadyTokens, requests: answered.steady!.length, unmarked: 0 });
      expect({ tokens: capped.tokens, requests: capped.requests }).toEqual({ tokens: cappedTokens, requests: answered.capped!.length });
      // The capped developer's refusals are the cap's (429), and the overshoot stays in the stated bound:
      // while the routers cannot reach Redis each holds the cap on its own, so together they may let
      // through up to (routers − 1) × the cap more; the promoted replica lacks what the old primary
      // never passed on until the routers write it again, so a router reading it then sees less than
      // was used and may admit up to one more cap; plus one answer in flight per client.
      for (const reply of refused.filter((entry) => entry.developer === 'capped')) expect([429, 503]).toContain(reply.status);
      expect(overshoot).toBeLessThanOrEqual(figures.capOvershootBound);
    } finally {
      primary.disconnect();
    }
  }, 240_000);

  it('keeps session pins, rate-limit windows and once-claims shared between the routers on the promoted replica', async () => {
    const [a, b] = [group.routers[0]!.app.shared, group.routers[1]!.app.shared];
    // Both routers back on the promoted replica first: a pin made while a router is still
    // reconnecting stays its own (each router pins on its own with Redis away, docs/teams.md).
    const ready = (shared: unknown) => (shared as { redis: { status: string } }).redis.status === 'ready';
    await eventually(() => (ready(a) && ready(b) ? true : undefined), 30_000, 'both routers to be connected to the promoted replica');
    const now = Date.now();
    // One router claims, the other is told it is claimed: decided by the new primary.
    expect(await a.claimOnce(`failover-claim-${now}`, 60_000)).toBe(true);
    expect(await b.claimOnce(`failover-claim-${now}`, 60_000)).toBe(false);
    // A window of 1 per minute: the second router's take is refused because of the first's.
    expect((await a.take(`failover-window-${now}`, 1, 1, 60_000)).allowed).toBe(true);
    expect((await b.take(`failover-window-${now}`, 1, 1, 60_000)).allowed).toBe(false);
    // A session pinned through one router is found through the other (its first sight asks Redis).
    a.pinSession(`failover-session-${now}`, 'target', 'offline:one');
    await eventually(async () => ((await b.sessionPins(`failover-session-${now}`))?.get('target') === 'offline:one' ? true : undefined), 5_000, 'the pin to reach the other router');
  });
});
