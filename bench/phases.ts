/**
 * The router's own time per phase of a request, from its Prometheus histogram
 * (`svc_router_overhead_seconds{phase=…}`, upstream wait excluded): /metrics is scraped before and
 * after each path's load, and the mean per phase is Δsum ÷ Δcount. A build without that histogram
 * gives no rows, and the report prints nothing for it.
 */

/** The histogram the router exposes; any other `*_seconds` histogram with a `phase` label is read when it is absent. */
export const PHASE_METRIC = 'svc_router_overhead_seconds';

/** The order the phases are printed in; others the router adds follow, by name. */
export const PHASE_ORDER = ['read', 'admit', 'route', 'encode', 'write'];

export interface PhaseTotal {
  sum: number;
  count: number;
}

const SERIES = /^([a-zA-Z_:][a-zA-Z0-9_:]*)_(sum|count)\{([^}]*)\}\s+(\S+)/;
const PHASE_LABEL = /(?:^|,)\s*phase="((?:[^"\\]|\\.)*)"/;

/** Per phase, the histogram's `_sum` (seconds) and `_count`, added over any other labels. */
export function parsePhaseTotals(exposition: string): Map<string, PhaseTotal> {
  const byMetric = new Map<string, Map<string, PhaseTotal>>();
  for (const line of exposition.split('\n')) {
    const match = SERIES.exec(line);
    if (!match) continue;
    const [, metric, part, labels, raw] = match as unknown as [string, string, 'sum' | 'count', string, string];
    if (!metric.endsWith('_seconds')) continue;
    const phase = PHASE_LABEL.exec(labels)?.[1];
    const value = Number(raw);
    if (phase === undefined || !Number.isFinite(value)) continue;
    let phases = byMetric.get(metric);
    if (!phases) byMetric.set(metric, (phases = new Map()));
    const total = phases.get(phase) ?? { sum: 0, count: 0 };
    total[part] += value;
    phases.set(phase, total);
  }
  return byMetric.get(PHASE_METRIC) ?? byMetric.values().next().value ?? new Map();
}

/** Mean µs per phase between two scrapes; phases with no new observations are left out. */
export function phaseMeansUs(before: Map<string, PhaseTotal>, after: Map<string, PhaseTotal>): Record<string, number> {
  const means: Record<string, number> = {};
  for (const phase of orderPhases([...after.keys()])) {
    const end = after.get(phase)!;
    const start = before.get(phase) ?? { sum: 0, count: 0 };
    const count = end.count - start.count;
    if (count > 0) means[phase] = ((end.sum - start.sum) / count) * 1e6;
  }
  return means;
}

export function orderPhases(phases: string[]): string[] {
  const known = PHASE_ORDER.filter((phase) => phases.includes(phase));
  const others = [...new Set(phases.filter((phase) => !PHASE_ORDER.includes(phase)))].sort();
  return [...known, ...others];
}

export interface PhaseRow {
  path: string;
  stream: boolean;
  /** mean µs of the router's own time per request in each phase */
  phases_us: Record<string, number>;
}
