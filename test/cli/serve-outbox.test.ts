import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OUTBOX_DIR } from '../../src/usage/open-ledger.js';
import { unusedPort } from '../helpers/unused-port.js';
import { redisAvailable, startDurableRedis, storedInRedis, type RedisServer } from '../reliability/redis-process.js';
import { eventually } from '../reliability/support.js';
import { callRouter, initHome, makeHome, removeHome, runCli, startServe, type ServeChild } from './run-cli.js';

/**
 * What docs/teams.md ("A killed router's usage") says of a real `serve` with a Redis ledger: one
 * serve runs per home, so no other router on its home can take over a killed one's outbox; the
 * next serve of that home (`restart`) does, and Redis counts each request once.
 */

if (!redisAvailable) console.warn("skipping the serve outbox suite: 'redis-server' is not installed (apt-get install redis-server)");

const REQUESTS = 12;

let home: string | undefined;
let first: ServeChild | undefined;
let redis: RedisServer | undefined;
afterAll(async () => {
  if (home) await runCli(['stop'], { home });
  await first?.kill();
  await redis?.kill();
  if (home) removeHome(home);
});

describe.skipIf(!redisAvailable)('a SIGKILLed serve with a Redis ledger', () => {
  it('leaves its unconfirmed usage to the next serve of its home, which replays it, each request counted once', async () => {
    home = makeHome();
    const key = await initHome(home);
    const port = await unusedPort();
    const url = `redis://127.0.0.1:${port}`;

    // Redis is down: the serve answers, and every record waits in its outbox.
    first = await startServe(home, ['--port', '0', '--usage-store', url]);
    let tokens = 0;
    for (let i = 0; i < REQUESTS; i++) {
      const reply = await callRouter(first.origin, key, 'POST', '/v1/chat/completions', { model: 'svc.intelligent-basic', messages: [{ role: 'user', content: `outbox request ${i}` }] });
      expect(reply.status, JSON.stringify(reply.json)).toBe(200);
      tokens += reply.json.svc_meta.usage.total_tokens;
    }
    const outbox = path.join(home, OUTBOX_DIR);
    const own = fs.readdirSync(outbox).find((file) => file.includes(`-${first!.child.pid}-`));
    expect(own).toBeDefined();
    expect(fs.readFileSync(path.join(outbox, own!), 'utf8').trim().split('\n')).toHaveLength(REQUESTS);

    // No second serve runs on this home beside it: nothing on the home can take over its outbox.
    const second = await runCli(['serve', '--port', '0', '--usage-store', url], { home });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(String(first.child.pid));

    await first.kill();
    redis = await startDurableRedis(port, fs.mkdtempSync(path.join(home, 'redis-')));
    expect(await storedInRedis(port, 'alice')).toEqual({ tokens: 0, requests: 0 });

    // The next serve of the home (restart starts one with the killed serve's arguments) replays it.
    const restarted = await runCli(['restart'], { home });
    expect(restarted.code, restarted.stderr).toBe(0);
    await eventually(async () => ((await storedInRedis(port, 'alice')).requests >= REQUESTS ? true : undefined), 20_000, "the killed serve's usage to reach Redis");
    expect(await storedInRedis(port, 'alice')).toEqual({ tokens, requests: REQUESTS });
    expect(fs.readdirSync(outbox).some((file) => file.includes(`-${first!.child.pid}-`))).toBe(false);
  }, 90_000);
});
