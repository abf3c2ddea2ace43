import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readRequests, statusMatches } from '../../src/server/request-records.js';
import { createRequestStore, REQUESTS_FILE, REQUESTS_OLD_FILE } from '../../src/server/request-store.js';
import type { RequestLogEntry } from '../../src/server/request-log.js';
import { tempHome } from '../helpers/router.js';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

const entry = (n: number, extra: Partial<RequestLogEntry> = {}): RequestLogEntry => ({
  time: Date.now(),
  method: 'POST',
  path: '/v1/chat/completions',
  status: 200,
  latencyMs: 5,
  requestId: `req_${n}`,
  caller: n % 2 ? 'bob' : 'alice',
  ...extra,
});

const sizeOf = (dir: string, name: string): number => (fs.existsSync(path.join(dir, name)) ? fs.statSync(path.join(dir, name)).size : 0);

describe('the request store', () => {
  it('stays within its byte bound however many requests pass, keeping the newest', () => {
    const dir = tempHome();
    homes.push(dir);
    const maxBytes = 64 * 1024;
    const store = createRequestStore({ dir, retentionDays: 7, maxBytes, secrets: () => [] });
    for (let n = 0; n < 5_000; n++) {
      store.record(entry(n));
      if (n % 100 === 99) store.flush();
      expect(sizeOf(dir, REQUESTS_FILE) + sizeOf(dir, REQUESTS_OLD_FILE)).toBeLessThanOrEqual(maxBytes);
    }
    store.flush();
    const kept = readRequests(dir);
    expect(kept.at(-1)!.request_id).toBe('req_4999');
    // Oldest first, no gaps: what is kept is a contiguous run of the newest requests.
    const numbers = kept.map((record) => Number(record.request_id!.slice(4)));
    expect(numbers).toEqual(numbers.map((_, i) => numbers[0]! + i));
  });

  it('starts on a line of its own after a torn last line, so its first record is not lost with it', () => {
    const dir = tempHome();
    homes.push(dir);
    const file = path.join(dir, REQUESTS_FILE);
    fs.writeFileSync(file, `${JSON.stringify({ time: new Date().toISOString(), method: 'GET', path: '/whoami', status: 200, latency_ms: 1 }).slice(0, 30)}`);
    const store = createRequestStore({ dir, retentionDays: 7, maxBytes: 1_000_000, secrets: () => [] });
    store.record(entry(1));
    store.flush();
    const skipped: Array<[string, number]> = [];
    expect(readRequests(dir, {}, 7, (where, line) => void skipped.push([where, line])).map((record) => record.request_id)).toEqual(['req_1']);
    expect(skipped).toEqual([[file, 1]]);
  });

  it('drops an old generation past the retention, and never shows a request older than it', () => {
    const dir = tempHome();
    homes.push(dir);
    const old = path.join(dir, REQUESTS_OLD_FILE);
    const tenDaysAgo = Date.now() - 10 * 86_400_000;
    fs.writeFileSync(old, `${JSON.stringify({ time: new Date(tenDaysAgo).toISOString(), method: 'GET', path: '/whoami', status: 200, latency_ms: 1 })}\n`);
    fs.utimesSync(old, tenDaysAgo / 1000, tenDaysAgo / 1000);
    expect(readRequests(dir, {}, 7)).toEqual([]);
    createRequestStore({ dir, retentionDays: 7, maxBytes: 1_000_000 });
    expect(fs.existsSync(old)).toBe(false);
  });

  it('redacts what it writes: error text, failed targets and bodies', () => {
    const dir = tempHome();
    homes.push(dir);
    const key = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH';
    const store = createRequestStore({ dir, retentionDays: 7, maxBytes: 1_000_000, logBodies: true, secrets: () => ['upstream-secret-value-123456'] });
    store.record(
      entry(1, {
        status: 502,
        error: `upstream said ${key}`,
        targets: [{ backend: 'a', upstreamModel: 'm', outcome: 401, latencyMs: 2, error: 'bad key upstream-secret-value-123456' }],
        requestBody: { messages: [{ role: 'user', content: `my key is ${key}` }] },
      }),
    );
    store.flush();
    const text = fs.readFileSync(path.join(dir, REQUESTS_FILE), 'utf8');
    expect(text).not.toContain(key);
    expect(text).not.toContain('upstream-secret-value-123456');
    expect(JSON.parse(text).request_body).toBeDefined();
  });

  it('matches statuses exactly, by class or as errors', () => {
    expect(statusMatches(429, '429')).toBe(true);
    expect(statusMatches(502, '5xx')).toBe(true);
    expect(statusMatches(404, '5xx')).toBe(false);
    expect(statusMatches(401, 'error')).toBe(true);
    expect(statusMatches(200, 'error')).toBe(false);
  });
});
