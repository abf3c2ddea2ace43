import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { initialise } from '../../src/cli/commands/init.js';
import { ConfigStore } from '../../src/config/store.js';
import { OUTBOX_DIR } from '../../src/usage/open-ledger.js';
import { tempHome } from '../helpers/router.js';
import { unusedPort } from '../helpers/unused-port.js';
import { killRouterProcesses, startRouterProcess } from './router-processes.js';
import { redisAvailable, startDurableRedis, storedInRedis, type DurableRedis } from './redis-process.js';
import { bodyFor, callFormat, eventually, headersFor, parseSse, send } from './support.js';

if (!redisAvailable) console.warn("skipping the Redis outbox suite: 'redis-server' is not installed (apt-get install redis-server)");

const SKU = 'svc.intelligent-basic';
const REQUESTS = 40;

let prompts = 0;
async function chatTotal(origin: string, key: string, stream: boolean): Promise<number> {
  const reply = await callFormat({ origin, key }, 'chat', bodyFor('chat', SKU, stream, `outbox load ${String(++prompts).padStart(6, '0')}`));
  expect(reply.status, reply.text).toBe(200);
  const meta = stream ? JSON.parse(parseSse(reply.text).filter((frame) => frame.data !== '[DONE]').at(-1)!.data).svc_meta : reply.json.svc_meta;
  return meta.usage.total_tokens;
}

describe.skipIf(!redisAvailable)('usage queued while Redis is down survives a killed router', () => {
  let home: string | undefined;
  let redis: DurableRedis | undefined;
  afterAll(async () => {
    killRouterProcesses();
    await redis?.kill();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  it('replays it into Redis from the next router to start, counting each request once', async () => {
    home = tempHome();
    const { key } = initialise(new ConfigStore(home), { developer: 'outboxed', org: 'acme', tier: 'pro', cap: '1000000000' });
    const port = await unusedPort();
    const url = `redis://127.0.0.1:${port}`;

    // Redis is down from the start: the router serves on and queues every record.
    const first = await startRouterProcess(home, url);
    const totals = await Promise.all(Array.from({ length: REQUESTS }, (_, i) => chatTotal(first.origin, key, i % 2 === 0)));
    const expected = { tokens: totals.reduce((sum, total) => sum + total, 0), requests: REQUESTS };
    expect(expected.tokens).toBeGreaterThan(0);
    first.child.kill('SIGKILL');
    await first.exited;

    redis = await startDurableRedis(port, fs.mkdtempSync(path.join(home, 'redis-')));
    expect(await storedInRedis(port, 'outboxed')).toEqual({ tokens: 0, requests: 0 });

    const second = await startRouterProcess(home, url);
    await eventually(async () => ((await storedInRedis(port, 'outboxed')).requests >= REQUESTS ? true : undefined), 20_000, 'the replayed usage to reach Redis');
    // A summary writes whatever the router still queues: after it, nothing more is on its way.
    const whoami = await send(second, '/whoami', { headers: headersFor('chat', key) });
    expect(whoami.status, whoami.text).toBe(200);
    expect(whoami.json.usage).toMatchObject({ tokens_used: expected.tokens, requests: REQUESTS });
    expect(await storedInRedis(port, 'outboxed')).toEqual(expected);

    // The dead router's outbox was taken over, and the live one's is empty once Redis has it all.
    const outbox = path.join(home, OUTBOX_DIR);
    const files = fs.readdirSync(outbox);
    expect(files).toHaveLength(1);
    expect(files[0]).toContain(`-${second.child.pid}-`);
    expect(fs.statSync(path.join(outbox, files[0]!)).size).toBe(0);

    // A third router killed with the same outbox directory replays nothing twice.
    second.child.kill('SIGKILL');
    await second.exited;
    const third = await startRouterProcess(home, url);
    const more = await chatTotal(third.origin, key, false);
    const after = await send(third, '/whoami', { headers: headersFor('chat', key) });
    expect(after.json.usage).toMatchObject({ tokens_used: expected.tokens + more, requests: REQUESTS + 1 });
    expect(await storedInRedis(port, 'outboxed')).toEqual({ tokens: expected.tokens + more, requests: REQUESTS + 1 });
    third.child.kill('SIGTERM');
    await third.exited;
    // Closed with nothing left queued, a router leaves no outbox behind.
    expect(fs.readdirSync(outbox)).toEqual([]);
  }, 90_000);
});
