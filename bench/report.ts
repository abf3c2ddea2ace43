import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BigStreamResult } from './big-streams.js';
import type { CliTimes } from './cli-start.js';
import type { FrameTapRow } from './frame-taps.js';
import type { PeerRow } from './peers.js';
import { orderPhases, type PhaseRow } from './phases.js';
import type { StreamsResult } from './slow-streams.js';
import type { FloorResult, PathResult } from './summarise.js';
import { fixed, formatTable, whole } from './table.js';
import { ratioTarget, type TargetCheck } from './targets.js';

export interface BenchReport {
  machine: { cpus: number; model: string; node: string };
  run: { command?: string; commit?: string; quick: boolean; rounds: number; seconds_per_measurement: number; connections: number; load_generator: string; router_command: string; guardrail: string; pinned: boolean; note?: string };
  router: { rss_mb_idle: number };
  bare_proxy: { rss_mb_idle: number };
  floor: FloorResult[];
  paths: PathResult[];
  streams_1000: StreamsResult | null;
  big_streams: BigStreamResult[];
  cli: CliTimes | null;
  /** CPU per frame of the same-format taps, in-process (frame-taps.ts) */
  frame_taps?: FrameTapRow[] | null;
  targets: TargetCheck[];
  /** with `--against`: the build that every path was also measured on, and the verdict */
  against: AgainstResult | null;
  /** with `--peers`: other gateways, each on the path it serves, measured in the same run */
  peers?: PeerRow[] | null;
  /** the router's own mean µs per request in each phase, from its /metrics histogram; null when the build has none */
  phases?: PhaseRow[] | null;
}

export interface AgainstResult {
  ref: string;
  commit: string;
  /** node_modules linked from this checkout (same lockfile) or installed with npm ci */
  modules: 'linked' | 'npm ci';
  /** both routers ran with these arguments (the flags both builds understand) */
  router_command: string;
  rss_mb_idle: number;
  /** `path (mode)` for every path whose req/s ratio is below 1 by more than its spread between rounds */
  slower: string[];
  verdict: string;
}

/** One line: no path slower than the ref, or which are (req/s now ÷ baseline, and the spread it beat). */
export function againstVerdict(ref: string, commit: string, paths: PathResult[]): { slower: string[]; verdict: string } {
  const slower = paths.filter((p) => p.baseline?.slower);
  const name = ref.startsWith(commit.slice(0, 7)) ? ref : `${ref} (${commit.slice(0, 10)})`;
  const names = slower.map((p) => `${p.name} (${mode(p.stream)})`);
  if (!slower.length) return { slower: names, verdict: `no path slower than ${name}` };
  const detail = slower.map((p, i) => `${names[i]} ×${fixed(p.baseline!.rps_ratio, 3)} ±${pct(p.baseline!.rps_ratio_spread_pct)}`);
  return { slower: names, verdict: `slower than ${name}: ${detail.join(', ')}` };
}

export function machine(): BenchReport['machine'] {
  return { cpus: os.cpus().length, model: os.cpus()[0]?.model.trim() ?? 'unknown', node: process.version };
}

export function writeReport(report: BenchReport, file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const rounded = (_key: string, value: unknown) => (typeof value === 'number' && !Number.isInteger(value) ? Number(value.toFixed(3)) : value);
  fs.writeFileSync(file, `${JSON.stringify(report, rounded, 2)}\n`);
}

const mode = (stream: boolean) => (stream ? 'stream' : 'json');
const pct = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)}%` : '');

function pathsTable(paths: PathResult[]): string {
  const against = paths.some((p) => p.baseline);
  const baseHeaders = against ? ['base req/s', 'base µs/req', '× base', '±', '× base CPU', '±', 'vs base'] : [];
  const baseCells = (p: PathResult): string[] => {
    if (!against) return [];
    const b = p.baseline;
    if (!b) return ['—', '—', '—', '', '—', '', ''];
    return [whole(b.rps), whole(b.cpu_us_per_req), fixed(b.rps_ratio, 3), pct(b.rps_ratio_spread_pct), fixed(b.cpu_ratio, 3), pct(b.cpu_ratio_spread_pct), b.slower ? 'SLOWER' : ''];
  };
  return formatTable(
    ['path', 'mode', 'req/s c64', 'spread', '× bare', 'goal', '× CPU', 'CPU µs/req', 'CPU0', 'p50 c1', '+p50', '+p50 bare', 'p99 c1', 'TTFB', '+TTFB bare', 'RSS MB', ...baseHeaders],
    paths.map((p) => [
      p.name,
      mode(p.stream),
      whole(p.rps),
      pct(p.rps_spread_pct),
      fixed(p.rps_ratio_vs_bare, 2),
      `≥${ratioTarget(p).toFixed(2)}`,
      fixed(p.cpu_ratio_vs_bare, 2),
      whole(p.cpu_us_per_req),
      Number.isFinite(p.cpu_share) ? `${Math.round(p.cpu_share * 100)}%` : '—',
      fixed(p.p50_ms_c1, 3),
      fixed(p.added_p50_ms_c1, 3),
      fixed(p.added_p50_vs_bare_ms_c1, 3),
      fixed(p.p99_ms_c1, 3),
      fixed(p.ttfb_ms_c1, 3),
      fixed(p.ttfb_vs_bare_ms, 3),
      fixed(p.rss_mb_after, 0),
      ...baseCells(p),
    ]),
  );
}

/** Mean µs per request in each phase, per path and mode, and their sum. */
export function phasesTable(rows: PhaseRow[]): string {
  const phases = orderPhases(rows.flatMap((row) => Object.keys(row.phases_us)));
  return formatTable(
    ['path', 'mode', ...phases.map((phase) => `${phase} µs`), 'sum µs'],
    rows.map((row) => {
      const values = phases.map((phase) => row.phases_us[phase]);
      const sum = values.reduce<number>((total, value) => total + (value ?? 0), 0);
      return [row.path, mode(row.stream), ...values.map((value) => fixed(value, 1)), fixed(sum, 1)];
    }),
  );
}

function floorTable(floor: FloorResult[]): string {
  return formatTable(
    ['upstream endpoint', 'mode', 'bare req/s', 'spread', 'bare µs/req', 'CPU0', 'direct p50', 'bare p50', 'direct p99', 'direct TTFB', 'bare TTFB'],
    floor.map((f) => [
      f.upstream,
      mode(f.stream),
      whole(f.bare_rps),
      pct(f.bare_rps_spread_pct),
      whole(f.bare_cpu_us_per_req),
      `${Math.round(f.bare_cpu_share * 100)}%`,
      fixed(f.direct_p50_ms_c1, 3),
      fixed(f.bare_p50_ms_c1, 3),
      fixed(f.direct_p99_ms_c1, 3),
      fixed(f.direct_ttfb_ms_c1, 3),
      fixed(f.bare_ttfb_ms_c1, 3),
    ]),
  );
}

function frameTapsTable(rows: FrameTapRow[]): string {
  const against = rows.some((row) => row.baseline);
  const table = formatTable(
    ['frame', 'bytes', 'tap ns', '±', 'check ns', 'JSON.parse ns', ...(against ? ['base tap ns', '× base CPU', '±'] : [])],
    rows.map((row) => [
      row.frame,
      String(row.bytes),
      whole(row.tap_ns),
      pct(row.tap_spread_pct),
      whole(row.check_ns),
      whole(row.parse_ns),
      ...(against ? [whole(row.baseline?.tap_ns ?? NaN), fixed(row.baseline?.x_base, 3), pct(row.baseline?.x_base_spread_pct ?? NaN)] : []),
    ]),
  );
  return (
    'same-format taps, CPU per forwarded frame (in-process on the built taps, pinned like the router; median of the rounds):\n' +
    `${table}\n` +
    'tap = checking the frame (one JSON object, its type) and reading what the tap needs; check = core/json-check alone' +
    (against ? '; × base CPU = base tap ns ÷ tap ns now, paired by round.' : '.')
  );
}

const GOAL_SIGN: Record<TargetCheck['kind'], string> = { min: '≥', max: '≤', below: '<' };

function targetValue(t: TargetCheck): string {
  const digits = t.unit === '×' ? 2 : t.unit === ' MB' || t.unit === ' µs' ? 0 : Math.abs(t.value) >= 10 ? 0 : 3;
  const value = fixed(t.value, digits);
  return value === '—' ? value : `${value}${t.unit}`;
}

export function targetsTable(targets: TargetCheck[]): string {
  return formatTable(
    ['target', 'value', 'goal', '', ''],
    targets.map((t) => [t.target, targetValue(t), `${GOAL_SIGN[t.kind]} ${t.limit}${t.unit}`, t.status, t.note ?? '']),
    [0, 4],
  );
}

/** The targets as printed at the end of a run: this round's table, then the standing ones, then the count. */
export function targetsSection(targets: TargetCheck[]): string[] {
  const round = targets.filter((t) => t.group === 'round');
  const standing = targets.filter((t) => t.group === 'standing');
  const lines: string[] = [];
  if (round.length) lines.push("targets (ratios and differences paired by round in this run; SKIP: not measured in this run):", targetsTable(round));
  if (standing.length) lines.push(...(round.length ? [''] : []), 'standing targets (earlier rounds):', targetsTable(standing));
  const passed = targets.filter((t) => t.status === 'PASS').length;
  const measured = targets.filter((t) => t.status !== 'SKIP').length;
  const skipped = targets.length - measured;
  lines.push(`${passed}/${measured} targets met${skipped ? ` (${skipped} not measured in this run)` : ''}`);
  return lines;
}

export function printReport(report: BenchReport, print: (text: string) => void): void {
  const { run } = report;
  print('');
  print(`svc-router bench · ${report.machine.cpus} × ${report.machine.model} · node ${report.machine.node}`);
  print(
    `${run.router_command} · load: ${run.load_generator}, ${run.connections} connections, ${run.seconds_per_measurement} s per measurement, median of ${run.rounds} round(s) (spread = (max − min) / median)` +
      ` · ${run.pinned ? 'router/bare proxy on CPU 0, load + upstream on CPU 1' : `unpinned: ${run.note}`}`,
  );
  print('');
  print(pathsTable(report.paths));
  print(
    'req/s at 64 connections; × bare = ÷ bare proxy req/s, × CPU = bare CPU µs/req ÷ router CPU µs/req (both paired by round); CPU0 = share of its core the router used;\n' +
      'latency in ms at concurrency 1: +p50 over the upstream called directly, +p50 bare / +TTFB bare over the bare proxy; TTFB = first body chunk; RSS after the path\'s load.',
  );
  if (report.phases?.length) {
    print('');
    print('router time per phase (mean µs per request from its /metrics histogram, upstream wait excluded; a router of its own with --metrics, 64 connections):');
    print(phasesTable(report.phases));
  }
  const against = report.against;
  if (against) {
    print(
      `base = ${against.ref} (${against.commit.slice(0, 10)}), measured in the same rounds, order swapped every round; × base = req/s now ÷ base req/s, × base CPU = base CPU µs/req ÷ CPU µs/req now,\n` +
        `each paired by round, ± = (max − min) / median of the per-round ratio; SLOWER = × base below 1 by more than its ±. Base idle RSS ${fixed(against.rss_mb_idle, 1)} MB.`,
    );
    const baseFailures = report.paths.reduce((sum, p) => sum + (p.baseline?.failures ?? 0), 0);
    if (baseFailures) print(`warning: ${baseFailures} failed requests under load on ${against.ref}: its numbers for those paths are not comparable`);
    print(`verdict: ${against.verdict}`);
  }
  if (report.peers?.length) {
    print('');
    print('peers (same upstream, same run, pinned like the router, each on its own path; svc-router ÷ peer and peer × bare paired by round):');
    print(
      formatTable(
        ['peer', 'path', 'mode', 'req/s', 'CPU µs/req', '× bare', '±', 'svc-router ÷ peer', 'failures'],
        report.peers.map((row) => [`${row.peer} ${row.version}`, row.path, mode(row.stream), whole(row.rps), whole(row.cpu_us_per_req), fixed(row.x_bare, 2), pct(row.spread_pct), fixed(row.router_x_peer, 1), String(row.failures)]),
        [0, 1, 2],
      ),
    );
    for (const row of report.peers) if (row.error) print(`warning: ${row.peer} ${mode(row.stream)}: ${row.error}`);
  }
  print('');
  print('floor (same upstream endpoint, same run):');
  print(floorTable(report.floor));
  const driverBound = report.floor.filter((f) => f.bare_cpu_share < 0.9).map((f) => `${f.upstream} ${mode(f.stream)} (${Math.round(f.bare_cpu_share * 100)}%)`);
  if (driverBound.length) {
    print(`note: the bare proxy used < 90% of CPU 0 on ${driverBound.join(', ')}: the driver CPU (load generator + upstream, or a neighbour) capped the floor there, so × bare reads high; × CPU does not depend on it.`);
  }
  const busiest = Math.max(...[...report.paths, ...report.floor].map((r) => r.cpu0_others_share).filter(Number.isFinite));
  if (busiest > 0.1) {
    print(`note: other processes took up to ${Math.round(busiest * 100)}% of CPU 0 during a measurement: req/s and latency are noisy there; CPU µs/req and × CPU are not.`);
  }
  const failures = report.paths.reduce((sum, p) => sum + p.failures, 0);
  if (failures) print(`warning: ${failures} failed requests under load (non-2xx, socket errors or timeouts)`);
  print('');
  print(`idle RSS: router ${fixed(report.router.rss_mb_idle, 1)} MB · bare proxy ${fixed(report.bare_proxy.rss_mb_idle, 1)} MB`);
  const s = report.streams_1000;
  if (s) {
    print(
      `${s.streams} slow streams: ${s.completed} completed in ${s.seconds.toFixed(1)} s · RSS peak ${fixed(s.rss_mb, 1)} MB (idle ${fixed(s.rss_mb_idle, 1)} MB)` +
        ` · event-loop delay p50 ${fixed(s.eventloop_p50_ms, 1)} ms, p99 ${fixed(s.eventloop_p99_ms, 1)} ms, max ${fixed(s.eventloop_max_ms, 1)} ms · upstream peak concurrency ${s.upstream_peak_concurrent}`,
    );
    if (s.upstream_peak_concurrent < s.streams) {
      print(`note: the upstream never saw more than ${s.upstream_peak_concurrent} streams at once: the router queued the rest (its upstream connection pool is capped per origin).`);
    }
  }
  if (report.frame_taps?.length) {
    print('');
    print(frameTapsTable(report.frame_taps));
  }
  if (report.cli) {
    print(`CLI: node -e 0 ${fixed(report.cli.node_ms, 0)} ms · --version ${fixed(report.cli.version_ms, 0)} ms · whoami (in-process) ${fixed(report.cli.whoami_ms, 0)} ms (median of 10, interleaved)`);
  }
  print('');
  for (const line of targetsSection(report.targets)) print(line);
}

/** Memory for big answers (peak RSS over the RSS before, one stream per fresh process) and across slow-stream rounds. */
export function printMemory(big: BigStreamResult[], streams: StreamsResult | undefined, print: (line: string) => void): void {
  print('');
  print('memory for big answers (one stream, fresh process; peak RSS during it minus RSS before):');
  print(
    formatTable(
      ['through', 'answer', 'received MB', 'complete', '+peak RSS MB'],
      big.map((r) => [r.through, r.kind === 'answer' ? `${r.upstream_mb} MiB answer` : `one ${r.upstream_mb} MiB event`, fixed(r.received_mb, 1), r.complete ? 'yes' : 'NO', fixed(r.peak_rss_delta_mb, 0)]),
    ),
  );
  if (streams?.rounds.length) {
    const retained = streams.heap_mb_after_gc_after - streams.heap_mb_after_gc_before;
    print(
      `${streams.streams} slow streams, ${streams.rounds.length} round(s) on one router, RSS peak / after: ` +
        streams.rounds.map((r, i) => `#${i + 1} ${r.rss_mb_peak.toFixed(0)} / ${r.rss_mb_after.toFixed(0)} MB${r.completed === streams.streams ? '' : ` (${r.completed} completed)`}`).join(' · '),
    );
    print(
      `heap after a full GC: ${streams.heap_mb_after_gc_before.toFixed(1)} MB before the first round, ${streams.heap_mb_after_gc_after.toFixed(1)} MB after the last ` +
        `(${retained >= 0 ? '+' : ''}${((retained * 1024 * 1024) / (streams.streams * streams.rounds.length)).toFixed(0)} bytes per stream)`,
    );
  }
}
