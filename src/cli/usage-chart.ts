import { formatCount, formatUsd } from '../core/format-numbers.js';
import type { UsageReport, UsageSlice } from '../usage/slice.js';

const BAR_WIDTH = 30;
const FULL = '█';
/** Eighths of a block, so a small share still shows. */
const PARTS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/** A horizontal bar `width` characters long at most, `value / max` of it filled. */
function bar(value: number, max: number, width = BAR_WIDTH): string {
  if (!(max > 0) || !(value > 0)) return '';
  const eighths = Math.max(1, Math.round((value / max) * width * 8));
  return FULL.repeat(Math.floor(eighths / 8)) + PARTS[eighths % 8];
}

/** Which number the bars show: cost when any request in the window was priced, else tokens. */
function measure(report: UsageReport): { label: string; of: (slice: UsageSlice) => number } {
  return (report.totals.cost_usd ?? 0) > 0 ? { label: 'cost', of: (slice) => slice.cost_usd ?? 0 } : { label: 'tokens', of: (slice) => slice.total_tokens };
}

/** A section: one line per slice, name, requests, tokens, cost, and a bar. */
function sliceLines(title: string, slices: UsageSlice[], report: UsageReport): string[] {
  const { of } = measure(report);
  const max = Math.max(0, ...slices.map(of));
  const nameWidth = Math.max(4, ...slices.map((slice) => slice.name.length));
  const lines = [title];
  if (slices.length === 0) return [...lines, '  (no requests)'];
  for (const slice of slices) {
    const cost = formatUsd(slice.cost_usd) + (slice.unpriced_requests && slice.cost_usd !== null ? '+' : '');
    lines.push(`  ${slice.name.padEnd(nameWidth)}  ${formatCount(slice.requests).padStart(7)} req  ${formatCount(slice.total_tokens).padStart(13)} tok  ${cost.padStart(10)}  ${bar(of(slice), max)}`);
  }
  return lines;
}

/** The whole report as `svc-router usage` prints it. */
export function usageLines(report: UsageReport): string[] {
  const { totals } = report;
  const { label } = measure(report);
  const lines = [
    `Usage since ${report.window_start.slice(0, 10)} (${report.window_days} days): ${formatCount(totals.requests)} requests, ${formatCount(totals.total_tokens)} tokens (${formatCount(totals.input_tokens)} in, ${formatCount(totals.output_tokens)} out), cost ${formatUsd(totals.cost_usd)}`,
  ];
  if (totals.unpriced_requests) lines.push(`  ${formatCount(totals.unpriced_requests)} request(s) had no known price and are in no cost (add one: svc-router prices set MODEL --input USD --output USD; see docs/usage.md).`);
  lines.push('', ...sliceLines('By key', report.by_key, report), '', ...sliceLines('By SKU', report.by_sku, report), '', ...sliceLines('By upstream model', report.by_upstream_model, report));
  // The days chart starts at the first day with traffic: thirty empty lines say nothing.
  const firstBusy = report.by_day.findIndex((day) => day.requests > 0);
  lines.push('', ...sliceLines(`By day (bars: ${label})`, firstBusy === -1 ? [] : report.by_day.slice(firstBusy), report));
  return lines;
}
