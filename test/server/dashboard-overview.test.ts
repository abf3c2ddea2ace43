import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOverview } from '../../src/server/dashboard/overview.js';
import type { StoredRequest } from '../../src/server/request-records.js';
import { startRouter, type TestRouter } from '../helpers/router.js';

/** A request whose one target failed as given, `seconds` into a minute. */
const failed = (backend: string, status: number, error: string, seconds: number): StoredRequest => ({
  time: `2026-01-01T10:00:${String(seconds).padStart(2, '0')}.000Z`,
  method: 'POST',
  path: '/v1/chat/completions',
  status: 502,
  latency_ms: 5,
  targets: [{ backend, upstream_model: 'm', outcome: status, latency_ms: 5, error }],
});

describe("the overview's backend errors", () => {
  let router: TestRouter;
  beforeAll(async () => {
    router = await startRouter();
  });
  afterAll(async () => router?.close());

  it('are grouped by status and message, each with its count and times, the most recent kind first', async () => {
    const recent = [
      ...Array.from({ length: 10 }, (_, i) => failed('flaky', 502, 'refused the connection', i)),
      failed('flaky', 429, 'slow down', 20),
      failed('flaky', 502, 'refused the connection', 30),
    ];
    const overview = await buildOverview(router.app, router.config.read(), recent);
    const flaky = overview.backends.find((backend) => backend.name === 'flaky')!;
    expect(flaky.failures).toBe(12);
    expect(flaky.error_groups).toEqual([
      { status: 502, error: 'refused the connection', count: 11, first_time: '2026-01-01T10:00:00.000Z', last_time: '2026-01-01T10:00:30.000Z' },
      { status: 429, error: 'slow down', count: 1, first_time: '2026-01-01T10:00:20.000Z', last_time: '2026-01-01T10:00:20.000Z' },
    ]);
    expect(flaky.error_groups_not_shown).toBe(0);
  });

  it('show the most recent kinds and count the others, whatever the names and messages (prototype names included)', async () => {
    const messages = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'a', 'b'];
    const recent = messages.map((message, i) => failed('__proto__', 500, message, i));
    const overview = await buildOverview(router.app, router.config.read(), recent);
    const backend = overview.backends.find((entry) => entry.name === '__proto__')!;
    expect(backend.error_groups.map((group) => group.error)).toEqual(['b', 'a', 'valueOf', 'hasOwnProperty', 'toString']);
    expect(backend.error_groups_not_shown).toBe(2);
    expect(backend.error_groups.reduce((sum, group) => sum + group.count, 0) + 2).toBe(backend.failures);
  });

  it("report the config in force: serve's flags over the stored settings, a store's password hidden", async () => {
    const overview = await buildOverview(router.app, router.config.read(), [], { server: { ui: true, metrics: true, port: 4321 }, usageStore: 'redis://user:hunter2@redis.internal:6379' });
    const config = overview.config as { server: Record<string, unknown>; usage_store: string };
    expect(config.server).toMatchObject({ ui: true, metrics: true, port: 4321 });
    expect(config.usage_store).toBe('redis://user:***@redis.internal:6379');
    const sentinels = await buildOverview(router.app, router.config.read(), [], { usageStore: 'redis-sentinel://:hun/ter2@s1:26379,s2:26379/main' });
    expect((sentinels.config as { usage_store: string }).usage_store).toBe('redis-sentinel://:***@s1:26379,s2:26379/main');
  });
});
