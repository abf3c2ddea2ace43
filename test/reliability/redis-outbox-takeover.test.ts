import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { initialise } from '../../src/cli/commands/init.js';
import { ConfigStore } from '../../src/config/store.js';
import { OUTBOX_DIR } from '../../src/usage/open-ledger.js';
import { appliedKey } from '../../src/usage/redis-ledger.js';
import { tempHome } from '../helpers/router.js';
import { unusedPort } from '../helpers/unused-port.js';
import { killRouterProcesses, startRouterProcess, type RouterProcess } from './router-processes.js';
import { redisAvailable, startRedis, storedInRedis, type RedisServer } from './redis-process.js';
import { startRedisRelay, type RedisRelay } from './redis-relay.js';
import { bodyFor, callFormat, eventually, headersFor, parseSse, send } from './support.js';

if (!redisAvailable) console.warn("skipping the outbox take-over suite: 'redis-server' is not installed (apt-get install redis-server)");

const SKU = 'svc.intelligent-basic';
const DEVELOPER = 'takeover';
/** Client loops per router, each sending one request after another. */
const LOOPS = 3;

/** What a client was told: the request id and total tokens of its svc_meta. */
interface Answer {
  id: string;
  total: number;
}

let prompts = 0;
/** One chat request; what svc_meta reported, or an error when it was not answered in full. */
async function chat(origin: string, key: string, stream: boolean): Promise<Answer> {
  // Prompts of one length: every request costs the same, so usage the clients never saw can be priced.
  const reply = await callFormat({ origin, key }, 'chat', bodyFor('chat', SKU, stream, `takeover load ${String(++prompts).padStart(6, '0')}`));
  if (reply.status !== 200) throw new Error(`status ${reply.status}: ${reply.text}`);
  const meta = stream ? JSON.parse(parseSse(reply.text).filter((frame) => frame.data !== '[DONE]').at(-1)!.data).svc_meta : reply.json.svc_meta;
  return { id: meta.request_id, total: meta.usage.total_tokens };
}

/** The request ids among `ids` that Redis has counted. */
async function appliedAmong(client: Redis, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const found = (await client.pipeline(ids.map((id) => ['exists', appliedKey(id)])).exec()) ?? [];
  return new Set(ids.filter((_, index) => found[index]?.[1] === 1));
}

/** Every request id Redis has counted (this Redis serves this suite alone). */
async function allApplied(client: Redis): Promise<number> {
  let cursor = '0';
  let count = 0;
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', appliedKey('*'), 'COUNT', 1000);
    cursor = next;
    count += keys.length;
  } while (cursor !== '0');
  return count;
}

describe.skipIf(!redisAvailable)("a router SIGKILLed while Redis is up: the routers still running take over its outbox", () => {
  let home: string | undefined;
  let redis: RedisServer | undefined;
  let relay: RedisRelay | undefined;
  let client: Redis | undefined;
  afterAll(async () => {
    killRouterProcesses();
    client?.disconnect();
    relay?.close();
    await redis?.kill();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  it('replays its unconfirmed records within seconds, and Redis counts every answered request exactly once', async () => {
    home = tempHome();
    const { key } = initialise(new ConfigStore(home), { developer: DEVELOPER, org: 'acme', tier: 'pro', cap: '1000000000' });
    redis = await startRedis(await unusedPort(), fs.mkdtempSync(path.join(home, 'redis-')));
    client = new Redis(redis.port, '127.0.0.1', { maxRetriesPerRequest: 0 });
    // The router to be killed reaches Redis through a relay, so the test can hold back Redis's
    // answers to it: its last writes are then still unconfirmed (in its outbox) when it dies, some
    // applied by Redis already and some never sent, as when a kill lands on writes in flight.
    relay = await startRedisRelay(redis.port);
    const routers: RouterProcess[] = [
      await startRouterProcess(home, redis.url),
      await startRouterProcess(home, redis.url),
      await startRouterProcess(home, relay.url),
    ];
    const victim = routers[2]!;
    const survivors = routers.slice(0, 2);

    const answered = new Map<string, number>();
    const answeredBy = new Map<RouterProcess, string[]>(routers.map((router) => [router, []]));
    const failed: string[] = [];
    let killed = false;
    let cutOff = 0;
    let stop = false;
    const loop = async (router: RouterProcess, index: number) => {
      for (let n = 0; !stop; n++) {
        try {
          const answer = await chat(router.origin, key, (n + index) % 2 === 0);
          answered.set(answer.id, answer.total);
          answeredBy.get(router)!.push(answer.id);
        } catch (error) {
          // The killed router's clients lose the requests it was serving; no one else may lose any.
          if (router === victim && killed) {
            cutOff++;
            return;
          }
          failed.push((error as Error).message);
        }
      }
    };
    const load = Promise.all(routers.flatMap((router) => Array.from({ length: LOOPS }, (_, index) => loop(router, index))));
    const servedBy = (router: RouterProcess, count: number, what: string) =>
      eventually(() => (answeredBy.get(router)!.length >= count || failed.length ? true : undefined), 30_000, what);

    let replayMs = 0;
    try {
      for (const router of routers) await servedBy(router, 20, 'each router to serve its first requests');
      expect(failed).toEqual([]);

      relay.swallowReplies();
      // Held back: the victim answers (its cap check decides alone after a second) and queues each
      // record in its outbox, which then holds records Redis applied without confirming (the write
      // in flight) and records never sent.
      const victimOutbox = path.join(home, OUTBOX_DIR, fs.readdirSync(path.join(home, OUTBOX_DIR)).find((file) => file.includes(`-${victim.child.pid}-`))!);
      const unconfirmed = await eventually(
        async () => {
          const ids = fs.readFileSync(victimOutbox, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line).requestId as string);
          if (ids.length < 8) return undefined;
          const applied = await appliedAmong(client!, ids);
          return applied.size > 0 && applied.size < ids.length ? { ids, applied } : undefined;
        },
        30_000,
        "the killed router's outbox to hold records Redis has applied and records it has not",
      );
      expect(unconfirmed.applied.size).toBeGreaterThan(0);

      killed = true;
      victim.child.kill('SIGKILL');
      await victim.exited;
      const killedAt = performance.now();
      // Nothing restarts on its home: only the routers already running can bring its records in.
      await eventually(
        async () => {
          const ids = [...answered.keys()];
          return (await appliedAmong(client!, ids)).size === ids.length ? true : undefined;
        },
        20_000,
        "the running routers to replay the killed router's records",
      );
      replayMs = performance.now() - killedAt;
      for (const router of survivors) await servedBy(router, answeredBy.get(router)!.length + 20, 'the survivors to serve on');
    } finally {
      stop = true;
      await load;
    }

    expect(failed).toEqual([]);
    // A summary writes whatever its router still queues: after it, nothing more is on its way.
    for (const router of survivors) {
      const whoami = await send(router, '/whoami', { headers: headersFor('chat', key) });
      expect(whoami.status, whoami.text).toBe(200);
    }

    // Nothing lost: every request a client was answered for is counted.
    const ids = [...answered.keys()];
    expect((await appliedAmong(client, ids)).size).toBe(ids.length);
    // Nothing twice: Redis's sums hold each counted request id once. Beyond the answered ones it
    // may hold requests the killed router had recorded but whose answer the kill cut off (the
    // record is written before the answer leaves): at most one per request it was serving, each
    // costing what every request here costs.
    const totals = new Set(answered.values());
    expect(totals.size).toBe(1);
    const [each] = totals;
    const stored = await storedInRedis(redis.port, DEVELOPER);
    const counted = await allApplied(client);
    expect(stored.requests).toBe(counted);
    const unseen = counted - answered.size;
    expect(unseen).toBeGreaterThanOrEqual(0);
    expect(unseen).toBeLessThanOrEqual(cutOff);
    expect(stored.tokens).toBe([...answered.values()].reduce((sum, total) => sum + total, 0) + unseen * each!);

    // The killed router's outbox was taken over once and removed; each survivor keeps its own.
    const files = fs.readdirSync(path.join(home, OUTBOX_DIR));
    expect(files).toHaveLength(2);
    for (const router of survivors) expect(files.filter((file) => file.includes(`-${router.child.pid}-`))).toHaveLength(1);
    const replayed = survivors.map((router) => /replaying (\d+) usage record/.exec(router.stderr())?.[1]).filter(Boolean);
    expect(replayed).toHaveLength(1);
    console.info(`outbox take-over: ${replayed[0]} record(s) in Redis ${replayMs.toFixed(0)} ms after the kill; ${answered.size} answered, ${cutOff} cut off, ${unseen} counted unanswered`);
  }, 120_000);
});
