import type { PathSpec } from './paths.js';
import type { RoundSamples, Samples } from './samples.js';
import { median, spreadPct } from './stats.js';

export interface PathResult {
  name: string;
  stream: boolean;
  same_format: boolean;
  rps: number;
  /** (max − min) / median of the rounds' req/s, % */
  rps_spread_pct: number;
  /** median over rounds of (router req/s ÷ bare proxy req/s in the same round) */
  rps_ratio_vs_bare: number;
  bare_rps: number;
  /** bare proxy CPU per request ÷ router CPU per request: the req/s ratio if both were CPU-bound, immune to a busy driver CPU */
  cpu_ratio_vs_bare: number;
  cpu_us_per_req: number;
  /** share of CPU 0 the router used at c64: near 1 means the router itself was the limit */
  cpu_share: number;
  /** share of CPU 0 that went to other processes while the router ran (neighbours; null when unpinned) */
  cpu0_others_share: number;
  bare_cpu_us_per_req: number;
  /** median over rounds of (router CPU µs/req − bare proxy CPU µs/req in the same round): the router's own CPU per request */
  added_cpu_us_vs_bare: number;
  p50_ms_c1: number;
  /** router p50 − upstream-direct p50, paired by round */
  added_p50_ms_c1: number;
  /** router p50 − bare proxy p50, paired by round: what the router adds beyond any proxy hop */
  added_p50_vs_bare_ms_c1: number;
  p99_ms_c1: number;
  /** streams only */
  ttfb_ms_c1: number | null;
  bare_ttfb_ms_c1: number | null;
  /** median over rounds of (router TTFB − bare proxy TTFB in the same round) */
  ttfb_vs_bare_ms: number | null;
  rss_mb_after: number;
  /** non-2xx, socket errors and timeouts under load, all rounds */
  failures: number;
  /** with `--against`: the router built from that ref, measured in the same rounds */
  baseline?: BaselineComparison;
}

/** The path on the `--against` router next to the same path now, each against the same bare proxy rounds. */
export interface BaselineComparison {
  rps: number;
  cpu_us_per_req: number;
  rps_ratio_vs_bare: number;
  cpu_ratio_vs_bare: number;
  p50_ms_c1: number;
  failures: number;
  /** median over rounds of (req/s now ÷ baseline req/s in the same round); above 1 is faster now */
  rps_ratio: number;
  /** (max − min) / median of those per-round ratios, %: how much the ratio itself moves between rounds */
  rps_ratio_spread_pct: number;
  /** median over rounds of (baseline CPU µs/req ÷ CPU µs/req now); above 1 is cheaper now */
  cpu_ratio: number;
  cpu_ratio_spread_pct: number;
  /** rps_ratio is below 1 by more than rps_ratio_spread_pct (false when there is no spread: fewer than 2 rounds) */
  slower: boolean;
}

type Pick = (round: RoundSamples) => number | undefined;
const rps: Pick = (r) => r.throughput?.rps;
const cpu: Pick = (r) => r.throughput?.cpuUsPerReq;
const p50: Pick = (r) => r.latency?.p50;
const ttfb: Pick = (r) => r.latency?.ttfbP50;

const values = (rounds: RoundSamples[], pick: Pick) => rounds.map(pick).filter((v): v is number => v !== undefined);
const medianOf = (rounds: RoundSamples[], pick: Pick) => median(values(rounds, pick));

/** Per round, `combine(router, baseline)`. */
function paired(router: RoundSamples[], baseline: RoundSamples[], pick: Pick, combine: (a: number, b: number) => number): number[] {
  const values: number[] = [];
  router.forEach((round, i) => {
    const a = pick(round);
    const b = baseline[i] && pick(baseline[i]!);
    if (a !== undefined && b !== undefined) values.push(combine(a, b));
  });
  return values;
}

/** Per round, `combine(router, baseline)`; then the median. Pairs rounds so drift between rounds cancels. */
function pairedMedian(router: RoundSamples[], baseline: RoundSamples[], pick: Pick, combine: (a: number, b: number) => number): number {
  return median(paired(router, baseline, pick, combine));
}

function compareBaseline(router: RoundSamples[], base: RoundSamples[], bare: RoundSamples[]): BaselineComparison {
  const rpsRatios = paired(router, base, rps, (a, b) => a / b);
  const cpuRatios = paired(router, base, cpu, (a, b) => b / a);
  const rpsRatio = median(rpsRatios);
  const spread = spreadPct(rpsRatios);
  return {
    rps: medianOf(base, rps),
    cpu_us_per_req: medianOf(base, cpu),
    rps_ratio_vs_bare: pairedMedian(base, bare, rps, (a, b) => a / b),
    cpu_ratio_vs_bare: pairedMedian(base, bare, cpu, (a, b) => b / a),
    p50_ms_c1: medianOf(base, p50),
    failures: values(base, (r) => r.throughput?.failures).reduce((sum, n) => sum + n, 0),
    rps_ratio: rpsRatio,
    rps_ratio_spread_pct: spread,
    cpu_ratio: median(cpuRatios),
    cpu_ratio_spread_pct: spreadPct(cpuRatios),
    slower: Number.isFinite(spread) && (1 - rpsRatio) * 100 > spread,
  };
}

export function summarisePath(spec: PathSpec, stream: boolean, samples: Samples): PathResult {
  const router = samples.get({ kind: 'router', path: spec.name }, stream);
  const bare = samples.get({ kind: 'bare', upstream: spec.upstream }, stream);
  const direct = samples.get({ kind: 'direct', upstream: spec.upstream }, stream);
  const base = samples.get({ kind: 'baseline', path: spec.name }, stream);
  return {
    name: spec.name,
    stream,
    same_format: spec.sameFormat,
    rps: medianOf(router, rps),
    rps_spread_pct: spreadPct(values(router, rps)),
    rps_ratio_vs_bare: pairedMedian(router, bare, rps, (a, b) => a / b),
    bare_rps: medianOf(bare, rps),
    cpu_ratio_vs_bare: pairedMedian(router, bare, cpu, (a, b) => b / a),
    cpu_us_per_req: medianOf(router, cpu),
    cpu_share: medianOf(router, (r) => r.throughput?.cpuShare),
    cpu0_others_share: medianOf(router, (r) => r.throughput?.othersShare),
    bare_cpu_us_per_req: medianOf(bare, cpu),
    added_cpu_us_vs_bare: pairedMedian(router, bare, cpu, (a, b) => a - b),
    p50_ms_c1: medianOf(router, p50),
    added_p50_ms_c1: pairedMedian(router, direct, p50, (a, b) => a - b),
    added_p50_vs_bare_ms_c1: pairedMedian(router, bare, p50, (a, b) => a - b),
    p99_ms_c1: medianOf(router, (r) => r.latency?.p99),
    ttfb_ms_c1: stream ? medianOf(router, ttfb) : null,
    bare_ttfb_ms_c1: stream ? medianOf(bare, ttfb) : null,
    ttfb_vs_bare_ms: stream ? pairedMedian(router, bare, ttfb, (a, b) => a - b) : null,
    rss_mb_after: medianOf(router, (r) => r.throughput?.rssMbAfter),
    failures: values(router, (r) => r.throughput?.failures).reduce((sum, n) => sum + n, 0),
    ...(base.length ? { baseline: compareBaseline(router, base, bare) } : {}),
  };
}

/** The floor per upstream endpoint: the upstream called directly and through the bare proxy. */
export interface FloorResult {
  upstream: string;
  stream: boolean;
  bare_rps: number;
  bare_rps_spread_pct: number;
  bare_cpu_us_per_req: number;
  /** share of CPU 0 the bare proxy used: below ~0.9 the driver CPU, not the proxy, set the floor */
  bare_cpu_share: number;
  /** share of CPU 0 that went to other processes while the bare proxy ran */
  cpu0_others_share: number;
  bare_p50_ms_c1: number;
  direct_p50_ms_c1: number;
  direct_p99_ms_c1: number;
  bare_ttfb_ms_c1: number | null;
  direct_ttfb_ms_c1: number | null;
}

export function summariseFloor(upstream: string, stream: boolean, samples: Samples): FloorResult {
  const bare = samples.get({ kind: 'bare', upstream }, stream);
  const direct = samples.get({ kind: 'direct', upstream }, stream);
  return {
    upstream,
    stream,
    bare_rps: medianOf(bare, rps),
    bare_rps_spread_pct: spreadPct(values(bare, rps)),
    bare_cpu_us_per_req: medianOf(bare, cpu),
    bare_cpu_share: medianOf(bare, (r) => r.throughput?.cpuShare),
    cpu0_others_share: medianOf(bare, (r) => r.throughput?.othersShare),
    bare_p50_ms_c1: medianOf(bare, p50),
    direct_p50_ms_c1: medianOf(direct, p50),
    direct_p99_ms_c1: medianOf(direct, (r) => r.latency?.p99),
    bare_ttfb_ms_c1: stream ? medianOf(bare, ttfb) : null,
    direct_ttfb_ms_c1: stream ? medianOf(direct, ttfb) : null,
  };
}
