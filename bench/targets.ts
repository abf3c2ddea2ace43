import { bigStreamLimitMb, type BigStreamResult } from './big-streams.js';
import type { CliTimes } from './cli-start.js';
import type { StreamsResult } from './slow-streams.js';
import type { PathResult } from './summarise.js';

export interface TargetCheck {
  target: string;
  value: number;
  limit: number;
  unit: string;
  /** at least the limit (ratios) or at most (costs) */
  kind: 'min' | 'max';
  pass: boolean;
  note?: string;
}

function check(target: string, value: number, kind: 'min' | 'max', limit: number, unit = '', note?: string): TargetCheck {
  const pass = Number.isFinite(value) && (kind === 'min' ? value >= limit : value <= limit);
  return { target, value, limit, unit, kind, pass, ...(note ? { note } : {}) };
}

/** Throughput floor as a share of the bare proxy, by streaming mode and whether the router translates. */
export function ratioTarget(path: Pick<PathResult, 'stream' | 'same_format'>): number {
  if (path.stream) return path.same_format ? 0.75 : 0.5;
  return path.same_format ? 0.85 : 0.7;
}

export interface TargetInputs {
  paths: PathResult[];
  idleRssMb: number;
  streams?: StreamsResult;
  cli?: CliTimes;
  big?: BigStreamResult[];
}

export function checkTargets({ paths, idleRssMb, streams, cli, big }: TargetInputs): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const path of paths) {
    const label = `${path.name}${path.stream ? ' stream' : ''}`;
    // The CPU-based ratio rides along: it holds when a busy driver CPU or a neighbour skews req/s.
    const cpuRatio = `by CPU µs/req ${Number.isFinite(path.cpu_ratio_vs_bare) ? path.cpu_ratio_vs_bare.toFixed(2) : '—'}×`;
    checks.push(check(`${label}: req/s vs bare`, path.rps_ratio_vs_bare, 'min', ratioTarget(path), '×', cpuRatio));
    checks.push(check(`${label}: added p50 at c1 over bare`, path.added_p50_vs_bare_ms_c1, 'max', 0.1, ' ms'));
    if (path.stream) checks.push(check(`${label}: TTFB over bare`, path.ttfb_vs_bare_ms!, 'max', 0.5, ' ms'));
  }
  checks.push(check('idle RSS', idleRssMb, 'max', 80, ' MB'));
  if (streams) {
    checks.push(check(`${streams.streams} streams: RSS`, streams.rss_mb, 'max', 200, ' MB'));
    checks.push(check(`${streams.streams} streams: event-loop p99`, streams.eventloop_p99_ms, 'max', 10, ' ms'));
    // Flat: the last round's peak within 10 % of the first's (memory kept per stream would climb round by round).
    const peaks = streams.rounds.map((round) => round.rss_mb_peak);
    if (peaks.length > 1) checks.push(check(`${streams.streams} streams: RSS peak, last round ÷ first`, peaks.at(-1)! / peaks[0]!, 'max', 1.1, '×', peaks.map((peak) => Math.round(peak)).join(' → ') + ' MB'));
  }
  for (const result of big ?? []) {
    if (result.through === 'bare proxy') continue;
    const what = result.kind === 'answer' ? `${result.upstream_mb} MiB answer` : `one ${result.upstream_mb} MiB event`;
    checks.push(check(`${result.through}, ${what}: peak RSS added`, result.complete ? result.peak_rss_delta_mb : NaN, 'max', Math.round(bigStreamLimitMb(result, big!)), ' MB', 'bare proxy + 4 × largest event + 32 MB'));
  }
  if (cli) {
    checks.push(check('svc-router --version', cli.version_ms, 'max', 150, ' ms'));
    checks.push(check('svc-router whoami (in-process)', cli.whoami_ms, 'max', 350, ' ms'));
  }
  return checks;
}
