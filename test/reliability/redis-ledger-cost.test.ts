import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Ledger } from '../../src/usage/ledger.js';
import { RedisLedger } from '../../src/usage/redis-ledger.js';
import { tempHome } from '../helpers/router.js';
import { unusedPort } from '../helpers/unused-port.js';
import { expectCarried, now, RECORDS } from '../usage/ledger-cost-records.js';
import { redisAvailable, startRedis, type RedisServer } from './redis-process.js';
import { eventually } from './support.js';

/** Once the ledger has reached Redis (a fresh connection answers from memory until then). */
const connected = (ledger: Ledger) => eventually(async () => ((await ledger.summary('alice', now)).requests === 2 ? true : undefined), 5_000, 'Redis to answer');

describe.skipIf(!redisAvailable)('the Redis ledger carries cost', () => {
  let redis: RedisServer;
  let home: string;
  beforeAll(async () => {
    home = tempHome();
    redis = await startRedis(await unusedPort(), home);
  });
  afterAll(async () => {
    await redis?.kill();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('stores it with the tokens, once per request id, and a second router reads the same', async () => {
    const writer = new RedisLedger(redis.url, { outboxDir: path.join(home, 'outbox-a'), log: () => {} });
    for (const entry of RECORDS) writer.record(entry);
    // A replayed record (lost reply, outbox replay) is not counted twice.
    writer.record(RECORDS[0]!);
    await expectCarried(writer);
    await connected(writer);
    await expectCarried(writer);
    await writer.close();
    const reader = new RedisLedger(redis.url, { outboxDir: path.join(home, 'outbox-b'), log: () => {} });
    await connected(reader);
    await expectCarried(reader);
    await reader.close();
  });
});
