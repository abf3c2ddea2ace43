import { bigStreamLimitMb, type BigStreamResult } from './big-streams.js';
import type { CliTimes } from './cli-start.js';
import type { PeerRow } from './peers.js';
import type { StreamsResult } from './slow-streams.js';
import type { PathResult } from './summarise.js';

/** PASS / FAIL, or SKIP when this run did not measure what the row needs (a narrowed run: --only, --streams 0, no --peers). */
export type TargetStatus = 'PASS' | 'FAIL' | 'SKIP';

export interface TargetCheck {
  target: string;
  value: number;
  limit: number;
  unit: string;
  /** at least the limit (ratios), at most (costs), or strictly below it */
  kind: 'min' | 'max' | 'below';
  status: TargetStatus;
  /** status === 'PASS' */
  pass: boolean;
  /** `round`: this round's table (bench/README.md); `standing`: targets of earlier rounds, still checked */
  group: 'round' | 'standing';
  note?: string;
}

type Kind = TargetCheck['kind'];

function meets(value: number, kind: Kind, limit: number): boolean {
  if (!Number.isFinite(value)) return false;
  return kind === 'min' ? value >= limit : kind === 'max' ? value <= limit : value < limit;
}

function check(group: TargetCheck['group'], target: string, value: number, kind: Kind, limit: number, unit = '', note?: string): TargetCheck {
  const status: TargetStatus = meets(value, kind, limit) ? 'PASS' : 'FAIL';
  return { target, value, limit, unit, kind, status, pass: status === 'PASS', group, ...(note ? { note } : {}) };
}

function skipped(group: TargetCheck['group'], target: string, kind: Kind, limit: number, unit: string, why: string): TargetCheck {
  return { target, value: NaN, limit, unit, kind, status: 'SKIP', pass: false, group, note: `not measured: ${why}` };
}

/** The issue's floors on req/s as a share of the bare proxy, by streaming mode and whether the router translates. */
export const RATIO_TARGETS = { forwardedJson: 0.8, translatedJson: 0.65, forwardedStream: 0.7, translatedStream: 0.5 } as const;

/** Throughput floor as a share of the bare proxy for one path and mode. */
export function ratioTarget(path: Pick<PathResult, 'stream' | 'same_format'>): number {
  if (path.stream) return path.same_format ? RATIO_TARGETS.forwardedStream : RATIO_TARGETS.translatedStream;
  return path.same_format ? RATIO_TARGETS.forwardedJson : RATIO_TARGETS.translatedJson;
}

export const ADDED_CPU_LIMIT_US = 25;
export const ADDED_P50_LIMIT_MS = 0.1;
export const STREAMS_RSS_LIMIT_MB = 150;
export const STREAMS_RSS_GROWTH_LIMIT = 1.1;
export const EVENT_LOOP_P99_LIMIT_MS = 10;
export const PORTKEY_RATIO_TARGET = 12;
export const VERSION_OVER_NODE_LIMIT_MS = 30;
export const WHOAMI_LIMIT_MS = 250;

const label = (path: PathResult) => `${path.name}${path.stream ? ' stream' : ''}`;
const range = (values: number[], digits: number) => {
  const finite = values.filter(Number.isFinite);
  if (finite.length < 2) return '';
  return `${Math.min(...finite).toFixed(digits)}–${Math.max(...finite).toFixed(digits)}`;
};

/**
 * One row over several paths: the worst path's value decides (the lowest ratio, the highest cost),
 * and the note names it and the range. A path whose requests failed under load fails the row: its
 * numbers measure a path that does not work.
 */
function worstOf(target: string, paths: PathResult[], pick: (path: PathResult) => number, kind: Kind, limit: number, unit: string, digits: number, why: string, extra?: (path: PathResult) => string): TargetCheck {
  if (!paths.length) return skipped('round', target, kind, limit, unit, why);
  const values = paths.map(pick);
  const unmeasured = paths.filter((_, i) => !Number.isFinite(values[i]!));
  const failing = paths.filter((path) => path.failures > 0);
  let worst = 0;
  values.forEach((value, i) => {
    if (kind === 'min' ? value < values[worst]! : value > values[worst]!) worst = i;
  });
  const notes = [`worst ${label(paths[worst]!)}${extra ? ` (${extra(paths[worst]!)})` : ''}`];
  const spread = range(values, digits);
  if (spread) notes.push(`range ${spread}${unit}`);
  if (unmeasured.length) notes.push(`no value on ${unmeasured.map(label).join(', ')}`);
  if (failing.length) notes.push(`failed requests on ${failing.map((path) => `${label(path)} (${path.failures})`).join(', ')}`);
  const value = unmeasured.length ? NaN : values[worst]!;
  const row = check('round', target, value, kind, limit, unit, notes.join('; '));
  return failing.length && row.pass ? { ...row, status: 'FAIL', pass: false } : row;
}

export interface TargetInputs {
  paths: PathResult[];
  idleRssMb: number;
  streams?: StreamsResult | undefined;
  cli?: CliTimes | undefined;
  big?: BigStreamResult[] | undefined;
  /** the `--peers` rows; undefined or null when the run had no peers */
  peers?: PeerRow[] | null | undefined;
}

/** This round's table: one row per line of it, in its order. */
export function roundTargets({ paths, streams, cli, peers }: TargetInputs): TargetCheck[] {
  const json = paths.filter((path) => !path.stream);
  const streamed = paths.filter((path) => path.stream);
  const narrowed = 'no such path in this run (--only)';
  const byCpu = (path: PathResult) => `by CPU ${Number.isFinite(path.cpu_ratio_vs_bare) ? path.cpu_ratio_vs_bare.toFixed(2) : '—'}×`;
  const ratio = (target: string, group: PathResult[], limit: number) => worstOf(target, group, (path) => path.rps_ratio_vs_bare, 'min', limit, '×', 2, narrowed, byCpu);
  const rows = [
    ratio('forwarded JSON × bare req/s', json.filter((path) => path.same_format), RATIO_TARGETS.forwardedJson),
    ratio('translated JSON × bare req/s', json.filter((path) => !path.same_format), RATIO_TARGETS.translatedJson),
    ratio('forwarded streams × bare req/s', streamed.filter((path) => path.same_format), RATIO_TARGETS.forwardedStream),
    ratio('translated streams × bare req/s', streamed.filter((path) => !path.same_format), RATIO_TARGETS.translatedStream),
    worstOf(
      "router CPU per forwarded JSON request − bare's",
      json.filter((path) => path.same_format),
      (path) => path.added_cpu_us_vs_bare,
      'max',
      ADDED_CPU_LIMIT_US,
      ' µs',
      0,
      narrowed,
      // The value pairs rounds; the medians beside it say what each side cost.
      (path) => `medians ${Math.round(path.cpu_us_per_req)} and bare ${Math.round(path.bare_cpu_us_per_req)} µs`,
    ),
    worstOf('+p50 over bare at concurrency 1', paths, (path) => path.added_p50_vs_bare_ms_c1, 'max', ADDED_P50_LIMIT_MS, ' ms', 3, narrowed),
  ];

  if (streams) {
    const peaks = streams.rounds.map((round) => round.rss_mb_peak);
    const peak = Math.max(streams.rss_mb, ...peaks);
    const trail = peaks.map((value) => Math.round(value)).join(' → ');
    rows.push(check('round', `${streams.streams.toLocaleString('en-US')} slow streams: RSS peak`, peak, 'max', STREAMS_RSS_LIMIT_MB, ' MB', trail ? `rounds ${trail} MB` : undefined));
    rows.push(
      peaks.length > 1
        ? check('round', 'slow streams: RSS peak, last round ÷ first', peaks.at(-1)! / peaks[0]!, 'max', STREAMS_RSS_GROWTH_LIMIT, '×', `${peaks.length} rounds: ${trail} MB`)
        : skipped('round', 'slow streams: RSS peak, last round ÷ first', 'max', STREAMS_RSS_GROWTH_LIMIT, '×', 'one round of slow streams (--stream-rounds)'),
    );
    rows.push(check('round', `event-loop p99 with ${streams.streams.toLocaleString('en-US')} streams`, streams.eventloop_p99_ms, 'max', EVENT_LOOP_P99_LIMIT_MS, ' ms'));
  } else {
    const why = 'no slow streams (--streams 0)';
    rows.push(skipped('round', '1,000 slow streams: RSS peak', 'max', STREAMS_RSS_LIMIT_MB, ' MB', why));
    rows.push(skipped('round', 'slow streams: RSS peak, last round ÷ first', 'max', STREAMS_RSS_GROWTH_LIMIT, '×', why));
    rows.push(skipped('round', 'event-loop p99 with 1,000 streams', 'max', EVENT_LOOP_P99_LIMIT_MS, ' ms', why));
  }

  rows.push(portkeyTarget(peers));

  if (cli) {
    rows.push(check('round', '--version over `node -e 0`', cli.version_ms - cli.node_ms, 'max', VERSION_OVER_NODE_LIMIT_MS, ' ms', `${cli.version_ms.toFixed(0)} − ${cli.node_ms.toFixed(0)} ms`));
    rows.push(check('round', 'whoami (in-process)', cli.whoami_ms, 'below', WHOAMI_LIMIT_MS, ' ms'));
  } else {
    rows.push(skipped('round', '--version over `node -e 0`', 'max', VERSION_OVER_NODE_LIMIT_MS, ' ms', 'no CLI start times'));
    rows.push(skipped('round', 'whoami (in-process)', 'below', WHOAMI_LIMIT_MS, ' ms', 'no CLI start times'));
  }
  return rows;
}

/** svc-router ÷ Portkey on the JSON row of their shared path (Portkey's own failures make it FAIL: it then measures nothing). */
function portkeyTarget(peers: PeerRow[] | null | undefined): TargetCheck {
  const target = 'svc-router ÷ Portkey req/s, same path';
  const row = peers?.find((peer) => peer.peer === 'portkey' && !peer.stream);
  if (!row) return skipped('round', target, 'min', PORTKEY_RATIO_TARGET, '×', peers ? 'Portkey did not run' : 'no --peers');
  const note = `${row.path} json${row.failures ? `; ${row.failures} failed requests on Portkey` : ''}`;
  return check('round', target, row.failures ? NaN : row.router_x_peer, 'min', PORTKEY_RATIO_TARGET, '×', note);
}

/** Targets of earlier rounds that still hold: idle RSS, stream TTFB, memory for big answers. */
export function standingTargets({ paths, idleRssMb, big }: TargetInputs): TargetCheck[] {
  const rows: TargetCheck[] = [];
  if (Number.isFinite(idleRssMb)) rows.push(check('standing', 'idle RSS', idleRssMb, 'max', 80, ' MB'));
  for (const path of paths.filter((p) => p.stream)) rows.push(check('standing', `${path.name} stream: TTFB over bare`, path.ttfb_vs_bare_ms ?? NaN, 'max', 0.5, ' ms'));
  for (const result of big ?? []) {
    if (result.through === 'bare proxy') continue;
    const what = result.kind === 'answer' ? `${result.upstream_mb} MiB answer` : `one ${result.upstream_mb} MiB event`;
    rows.push(check('standing', `${result.through}, ${what}: peak RSS added`, result.complete ? result.peak_rss_delta_mb : NaN, 'max', Math.round(bigStreamLimitMb(result, big!)), ' MB', 'bare proxy + 4 × largest event + 32 MB'));
  }
  return rows;
}

export function checkTargets(inputs: TargetInputs): TargetCheck[] {
  return [...roundTargets(inputs), ...standingTargets(inputs)];
}
