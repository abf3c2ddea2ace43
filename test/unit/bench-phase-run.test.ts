import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LoadGenerator } from '../../bench/load.js';
import { PATHS } from '../../bench/paths.js';
import { measurePhases } from '../../bench/phase-run.js';

/**
 * A stand-in router on a real socket: it prints the line `serve` prints, refuses to start without
 * --metrics (so the test sees the flag passed), and counts each completion request into a
 * per-phase histogram whose cost per request depends on the endpoint, as a real router's would.
 */
const fakeRouter = (withPhases: boolean) => `
const http = require('node:http');
if (!process.argv.includes('--metrics')) { console.error('no --metrics'); process.exit(2); }
const withPhases = ${withPhases};
const totals = {};
const cost = { '/v1/chat/completions': { read: 4e-6, write: 9e-6 }, '/v1/messages': { read: 6e-6, write: 12e-6 } };
const server = http.createServer((req, res) => {
  if (req.url === '/metrics') {
    const lines = ['svc_router_requests_total{endpoint="/v1/messages",status="200"} 1'];
    for (const [phase, t] of Object.entries(totals)) lines.push('svc_router_overhead_seconds_sum{phase="' + phase + '"} ' + t.sum, 'svc_router_overhead_seconds_count{phase="' + phase + '"} ' + t.count);
    res.end(lines.join('\\n') + '\\n');
    return;
  }
  req.resume();
  req.on('end', () => {
    if (withPhases) for (const [phase, s] of Object.entries(cost[req.url] ?? {})) { const t = (totals[phase] ??= { sum: 0, count: 0 }); t.sum += s; t.count += 1; }
    res.end('{}');
  });
});
server.listen(0, '127.0.0.1', () => console.log('svc-router listening on http://127.0.0.1:' + server.address().port));
process.on('SIGTERM', () => process.exit(0));
`;

/** Sends 20 requests one after another: enough to move the histogram, no timing involved. */
const load: LoadGenerator = {
  name: 'sequential test load',
  async run(request) {
    const count = 20;
    for (let i = 0; i < count; i++) await (await fetch(request.origin + request.path, { method: 'POST', headers: request.headers, body: request.body })).text();
    return { requests: count, seconds: 0, rps: 0, failures: 0 };
  },
};

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function setUp(withPhases: boolean) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-phase-run-'));
  dirs.push(dir);
  const script = path.join(dir, 'router.cjs');
  fs.writeFileSync(script, fakeRouter(withPhases));
  return {
    load,
    pinning: { enabled: false, prefix: () => [] },
    routerCommand: [process.execPath, script, 'serve', '--port', '0'],
    home: { dir, key: 'svc_test_key', remove: () => {} },
    paths: PATHS.filter((p) => p.name === 'chat->openai-chat' || p.name === 'messages->openai-chat'),
    seconds: 1,
  };
}

describe('time per phase from a router with --metrics', () => {
  it('gives each path and mode the mean of what its own requests added to each phase', async () => {
    const rows = await measurePhases(setUp(true), () => {});
    expect(rows?.map((row) => [row.path, row.stream])).toEqual([
      ['chat->openai-chat', false],
      ['messages->openai-chat', false],
      ['chat->openai-chat', true],
      ['messages->openai-chat', true],
    ]);
    for (const row of rows!) {
      const expected = row.path.startsWith('chat') ? { read: 4, write: 9 } : { read: 6, write: 12 };
      expect(Object.keys(row.phases_us)).toEqual(['read', 'write']);
      expect(row.phases_us.read).toBeCloseTo(expected.read, 6);
      expect(row.phases_us.write).toBeCloseTo(expected.write, 6);
    }
  });

  it('is null, with a line saying so, when /metrics has no per-phase histogram', async () => {
    const lines: string[] = [];
    expect(await measurePhases(setUp(false), (line) => lines.push(line))).toBeNull();
    expect(lines.join('\n')).toMatch(/no per-phase histogram/);
  });
});
