/**
 * How every number a person reads is written: token and request counts, US dollars. The CLI
 * imports these; the dashboard's page gets the very same functions as a script (their source, see
 * `NUMBER_FORMAT_SCRIPT`), so a value reads the same wherever it is shown.
 *
 * Each function stands alone (no imports, nothing from the module around it) because its source
 * text is what the browser runs.
 */

/** 200000000 → "200,000,000": a whole count of tokens or requests, grouped by thousands. */
export function formatCount(count: number): string {
  if (!Number.isFinite(count) || Math.abs(count) >= 1e21) return String(count);
  const digits = String(Math.round(Math.abs(count)));
  return (count <= -0.5 ? '-' : '') + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * An amount in US dollars: "n/a" when unknown (null: a request without a known price), "$0",
 * cents from a dollar up ("$1,234.50"), and below a dollar three significant digits, at most nine
 * decimals (the ledger counts nano-dollars): "$0.0245", "$0.0006", "$0.50".
 */
export function formatUsd(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return 'n/a';
  if (usd === 0) return '$0';
  const sign = usd < 0 ? '-' : '';
  const size = Math.abs(usd);
  if (size >= 1) {
    const [whole = '0', cents = '00'] = size.toFixed(2).split('.');
    return `${sign}$${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${cents}`;
  }
  const decimals = Math.min(9, Math.max(2, 2 - Math.floor(Math.log10(size))));
  // Zeros past the cents say nothing: $0.000600 is $0.0006.
  return `${sign}$${size.toFixed(decimals).replace(/(\.\d\d\d*?)0+$/, '$1')}`;
}

/** A price in US dollars per million tokens, exactly as configured (to twelve significant digits): "$3", "$0.075", "$1.875". */
export function formatUsdRate(rate: number): string {
  if (!Number.isFinite(rate)) return 'n/a';
  const [whole = '0', fraction] = String(Number(Math.abs(rate).toPrecision(12))).split('.');
  if (whole.includes('e')) return `${rate < 0 ? '-' : ''}$${Math.abs(rate)}`;
  return `${rate < 0 ? '-' : ''}$${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction === undefined ? '' : `.${fraction}`}`;
}

/** 0.1234 → "12.3%": a share, to a tenth of a percent. */
export function formatPercent(fraction: number): string {
  if (!Number.isFinite(fraction)) return 'n/a';
  return `${(fraction * 100).toFixed(1)}%`;
}

/** The functions above as a browser script that declares them (the dashboard serves it as /ui/format.js). */
export const NUMBER_FORMAT_SCRIPT = `'use strict';\n// The router's number formats (src/core/format-numbers.ts), one source for the CLI and this page.\n${[formatCount, formatUsd, formatUsdRate, formatPercent].map((fn) => fn.toString()).join('\n')}\n`;
