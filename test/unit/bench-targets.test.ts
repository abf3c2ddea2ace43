import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CliTimes } from '../../bench/cli-start.js';
import { PATHS } from '../../bench/paths.js';
import type { PeerRow } from '../../bench/peers.js';
import { Samples } from '../../bench/samples.js';
import type { StreamsResult } from '../../bench/slow-streams.js';
import { summarisePath, type PathResult } from '../../bench/summarise.js';
import { checkTargets, roundTargets, type TargetCheck } from '../../bench/targets.js';

/** A path result that meets every target; tests change what they check. */
function pathResult(name: string, stream: boolean, overrides: Partial<PathResult> = {}): PathResult {
  const spec = PATHS.find((p) => p.name === name)!;
  return {
    name,
    stream,
    same_format: spec.sameFormat,
    rps: 9000,
    rps_spread_pct: 1,
    rps_ratio_vs_bare: 0.9,
    bare_rps: 10000,
    cpu_ratio_vs_bare: 0.9,
    cpu_us_per_req: 100,
    cpu_share: 1,
    cpu0_others_share: 0,
    bare_cpu_us_per_req: 90,
    added_cpu_us_vs_bare: 10,
    p50_ms_c1: 0.3,
    added_p50_ms_c1: 0.15,
    added_p50_vs_bare_ms_c1: 0.05,
    p99_ms_c1: 1,
    ttfb_ms_c1: stream ? 0.3 : null,
    bare_ttfb_ms_c1: stream ? 0.25 : null,
    ttfb_vs_bare_ms: stream ? 0.05 : null,
    rss_mb_after: 100,
    failures: 0,
    ...overrides,
  };
}

const allPaths = (overrides: (p: PathResult) => Partial<PathResult> = () => ({})) =>
  [false, true].flatMap((stream) => PATHS.map((spec) => pathResult(spec.name, stream))).map((p) => ({ ...p, ...overrides(p) }));

const streams = (peaks: number[], p99 = 5): StreamsResult => ({
  streams: 1000,
  completed: 1000,
  seconds: 6,
  rss_mb: peaks[0] ?? 120,
  rss_mb_idle: 80,
  eventloop_p50_ms: 0.4,
  eventloop_p99_ms: p99,
  eventloop_max_ms: 12,
  upstream_peak_concurrent: 1000,
  rounds: peaks.map((peak) => ({ completed: 1000, rss_mb_peak: peak, rss_mb_after: peak - 10 })),
  heap_mb_after_gc_before: 10,
  heap_mb_after_gc_after: 10,
});

const peer = (name: string, stream: boolean, routerXPeer: number, failures = 0): PeerRow => ({
  peer: name,
  version: '1',
  path: name === 'portkey' ? 'chat->openai-chat' : 'messages->openai-chat',
  stream,
  rps: 500,
  cpu_us_per_req: 1000,
  x_bare: 0.05,
  router_x_peer: routerXPeer,
  spread_pct: 3,
  failures,
});

const cli: CliTimes = { node_ms: 40, version_ms: 60, whoami_ms: 200 };
const passing = () => ({ paths: allPaths(), idleRssMb: 60, streams: streams([120, 122, 125]), cli, peers: [peer('portkey', false, 13), peer('claude-code-router', false, 3)] });
const row = (rows: TargetCheck[], target: string | RegExp) => {
  const found = rows.find((r) => (typeof target === 'string' ? r.target === target : target.test(r.target)));
  if (!found) throw new Error(`no row ${target} in ${rows.map((r) => r.target).join(' | ')}`);
  return found;
};

describe('the round targets table', () => {
  it("has one row per line of the round's table, in its order, with its limits", () => {
    const rows = roundTargets(passing());
    expect(rows.map((r) => [r.target, r.kind, r.limit, r.unit])).toEqual([
      ['forwarded JSON × bare req/s', 'min', 0.8, '×'],
      ['translated JSON × bare req/s', 'min', 0.65, '×'],
      ['forwarded streams × bare req/s', 'min', 0.7, '×'],
      ['translated streams × bare req/s', 'min', 0.5, '×'],
      ["router CPU per forwarded JSON request − bare's", 'max', 25, ' µs'],
      ['+p50 over bare at concurrency 1', 'max', 0.1, ' ms'],
      ['1,000 slow streams: RSS peak', 'max', 150, ' MB'],
      ['slow streams: RSS peak, last round ÷ first', 'max', 1.1, '×'],
      ['event-loop p99 with 1,000 streams', 'max', 10, ' ms'],
      ['svc-router ÷ Portkey req/s, same path', 'min', 12, '×'],
      ['--version over `node -e 0`', 'max', 30, ' ms'],
      ['whoami (in-process)', 'below', 250, ' ms'],
    ]);
    expect(rows.every((r) => r.status === 'PASS' && r.pass && r.group === 'round')).toBe(true);
  });

  it('counts the three same-format paths as forwarded, Responses to a Responses backend among them', () => {
    expect(PATHS.filter((p) => p.sameFormat).map((p) => p.name)).toEqual(['chat->openai-chat', 'messages->anthropic', 'responses->openai-responses']);
    const rows = roundTargets({ ...passing(), paths: allPaths((p) => (p.name === 'responses->openai-responses' ? { rps_ratio_vs_bare: 0.79 } : {})) });
    expect(row(rows, 'forwarded JSON × bare req/s')).toMatchObject({ status: 'FAIL', value: 0.79 });
    expect(row(rows, 'forwarded streams × bare req/s')).toMatchObject({ status: 'PASS', value: 0.79 }); // its floor is 0.70
    expect(row(rows, 'translated JSON × bare req/s').status).toBe('PASS');
  });

  it('a ratio row is the worst path of its kind, and passes only when every one of them meets the floor', () => {
    const kinds = [
      { target: 'forwarded JSON × bare req/s', stream: false, same: true, limit: 0.8 },
      { target: 'translated JSON × bare req/s', stream: false, same: false, limit: 0.65 },
      { target: 'forwarded streams × bare req/s', stream: true, same: true, limit: 0.7 },
      { target: 'translated streams × bare req/s', stream: true, same: false, limit: 0.5 },
    ];
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0.2, max: 1.2, noNaN: true }), { minLength: PATHS.length * 2, maxLength: PATHS.length * 2 }), (ratios) => {
        const paths = allPaths().map((p, i) => ({ ...p, rps_ratio_vs_bare: ratios[i]! }));
        const rows = roundTargets({ ...passing(), paths });
        for (const kind of kinds) {
          const mine = paths.filter((p) => p.stream === kind.stream && p.same_format === kind.same).map((p) => p.rps_ratio_vs_bare);
          const r = row(rows, kind.target);
          expect(r.value).toBe(Math.min(...mine));
          expect(r.status).toBe(mine.every((v) => v >= kind.limit) ? 'PASS' : 'FAIL');
        }
      }),
    );
  });

  it('the cost rows are the worst path, at most the limit to pass', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 60, noNaN: true }), { minLength: PATHS.length * 2, maxLength: PATHS.length * 2 }), (costs) => {
        const paths = allPaths().map((p, i) => ({ ...p, added_cpu_us_vs_bare: costs[i]!, added_p50_vs_bare_ms_c1: costs[i]! / 200 }));
        const rows = roundTargets({ ...passing(), paths });
        const forwardedJson = paths.filter((p) => !p.stream && p.same_format).map((p) => p.added_cpu_us_vs_bare);
        expect(row(rows, /router CPU/).value).toBe(Math.max(...forwardedJson));
        expect(row(rows, /router CPU/).pass).toBe(Math.max(...forwardedJson) <= 25);
        const p50s = paths.map((p) => p.added_p50_vs_bare_ms_c1);
        expect(row(rows, /\+p50/).value).toBe(Math.max(...p50s));
        expect(row(rows, /\+p50/).pass).toBe(Math.max(...p50s) <= 0.1);
      }),
    );
    const at = (cost: number) => row(roundTargets({ ...passing(), paths: allPaths(() => ({ added_cpu_us_vs_bare: cost })) }), /router CPU/).status;
    expect([at(25), at(25.01)]).toEqual(['PASS', 'FAIL']);
  });

  it('a path whose requests failed fails its row however fast it was, and a path with no value fails it too', () => {
    const failed = roundTargets({ ...passing(), paths: allPaths((p) => (p.name === 'messages->anthropic' && !p.stream ? { failures: 3, rps_ratio_vs_bare: 2 } : {})) });
    expect(row(failed, 'forwarded JSON × bare req/s').status).toBe('FAIL');
    expect(row(failed, 'forwarded JSON × bare req/s').note).toContain('failed requests on messages->anthropic (3)');
    const missing = roundTargets({ ...passing(), paths: allPaths((p) => (p.name === 'chat->anthropic' && p.stream ? { rps_ratio_vs_bare: NaN } : {})) });
    expect(row(missing, 'translated streams × bare req/s')).toMatchObject({ status: 'FAIL' });
    expect(row(missing, 'translated streams × bare req/s').note).toContain('no value on chat->anthropic stream');
  });

  it('a kind of path this run did not measure is SKIP, not PASS', () => {
    const only = allPaths().filter((p) => p.name === 'chat->openai-chat' || p.name === 'messages->openai-chat');
    const rows = roundTargets({ ...passing(), paths: only });
    expect(row(rows, 'forwarded JSON × bare req/s').status).toBe('PASS');
    expect(row(rows, 'translated streams × bare req/s').status).toBe('PASS');
    expect(roundTargets({ ...passing(), paths: [] }).slice(0, 6).map((r) => r.status)).toEqual(Array(6).fill('SKIP'));
  });

  it('slow streams: the highest peak of any round, growth last ÷ first over the rounds, the event-loop p99', () => {
    const rows = roundTargets({ ...passing(), streams: streams([142, 170, 193], 22) });
    expect(row(rows, /slow streams: RSS peak$/)).toMatchObject({ value: 193, status: 'FAIL' });
    expect(row(rows, /last round ÷ first/).value).toBeCloseTo(193 / 142, 10);
    expect(row(rows, /last round ÷ first/).status).toBe('FAIL');
    expect(row(rows, /event-loop p99/)).toMatchObject({ value: 22, status: 'FAIL' });
    const flat = roundTargets({ ...passing(), streams: streams([140, 145, 148]) });
    expect(row(flat, /last round ÷ first/).status).toBe('PASS');
    expect(row(flat, /slow streams: RSS peak$/).status).toBe('PASS');
    expect(row(roundTargets({ ...passing(), streams: streams([140]) }), /last round ÷ first/).status).toBe('SKIP');
    const none = roundTargets({ ...passing(), streams: undefined });
    expect(none.filter((r) => /stream/.test(r.target) && !/×/.test(r.target)).map((r) => r.status)).toEqual(['SKIP', 'SKIP', 'SKIP']);
  });

  it('Portkey: the JSON row of the peers, SKIP without peers, FAIL when its requests failed', () => {
    const portkey = (peers: PeerRow[] | null | undefined) => row(roundTargets({ ...passing(), peers }), /Portkey/);
    expect(portkey([peer('portkey', false, 12), peer('portkey', true, 30)])).toMatchObject({ status: 'PASS', value: 12 });
    expect(portkey([peer('portkey', false, 11.9), peer('portkey', true, 30)])).toMatchObject({ status: 'FAIL', value: 11.9 });
    expect(portkey([peer('portkey', false, 20, 5)]).status).toBe('FAIL');
    expect(portkey(undefined).status).toBe('SKIP');
    expect(portkey([peer('claude-code-router', false, 50)]).status).toBe('SKIP');
  });

  it('start-up: --version within 30 ms of node -e 0 from the same run, whoami strictly under 250 ms', () => {
    const start = (times: CliTimes) => roundTargets({ ...passing(), cli: times });
    expect(row(start({ node_ms: 40, version_ms: 70, whoami_ms: 100 }), /--version/)).toMatchObject({ value: 30, status: 'PASS' });
    expect(row(start({ node_ms: 40, version_ms: 71, whoami_ms: 100 }), /--version/).status).toBe('FAIL');
    expect(row(start({ node_ms: 140, version_ms: 165, whoami_ms: 100 }), /--version/).status).toBe('PASS');
    expect(row(start({ node_ms: 40, version_ms: 50, whoami_ms: 250 }), /whoami/).status).toBe('FAIL');
    expect(row(start({ node_ms: 40, version_ms: 50, whoami_ms: 249.9 }), /whoami/).status).toBe('PASS');
  });

  it('keeps the standing targets after the round', () => {
    const rows = checkTargets(passing());
    expect(rows.filter((r) => r.group === 'round')).toHaveLength(12);
    expect(row(rows, 'idle RSS')).toMatchObject({ group: 'standing', status: 'PASS' });
    expect(rows.filter((r) => r.group === 'standing' && /TTFB over bare/.test(r.target))).toHaveLength(PATHS.length);
  });
});

describe('router CPU over the bare proxy', () => {
  it('is the median of the per-round differences, not the difference of the medians', () => {
    const samples = new Samples();
    const spec = PATHS.find((p) => p.name === 'chat->openai-chat')!;
    const cpu = (round: number, cpuUsPerReq: number) => ({ throughput: { rps: 1000, cpuUsPerReq, cpuShare: 1, othersShare: 0, rssMbAfter: 100, failures: 0 } });
    // Round 2 is on a busier machine: both cost more, the difference barely moves.
    [100, 200, 130].forEach((us, round) => samples.record({ kind: 'router', path: spec.name }, false, round, cpu(round, us)));
    [80, 185, 60].forEach((us, round) => samples.record({ kind: 'bare', upstream: spec.upstream }, false, round, cpu(round, us)));
    const result = summarisePath(spec, false, samples);
    expect(result.added_cpu_us_vs_bare).toBe(20); // differences 20, 15, 70
    expect(result.cpu_us_per_req - result.bare_cpu_us_per_req).toBe(50);
  });
});
