import os from 'node:os';
import { formatTable } from '../table.js';
import type { LedgerCheck } from './ledger-check.js';
import type { MixedResult } from './mixed-load.js';

export interface Row {
  name: string;
  connections: number;
  load: MixedResult;
  ledger: LedgerCheck;
}

const whole = (value: number): string => Math.round(value).toLocaleString('en-US');
const refusedText = (refused: Record<string, number>, socketErrors: number): string => {
  const parts = Object.entries(refused).map(([status, count]) => `${count}×${status}`);
  if (socketErrors) parts.push(`${socketErrors} socket errors`);
  return parts.join(', ') || '0';
};

function ledgerText(row: Row, capTokens: number, isCap: boolean): string {
  const { ledger } = row;
  const equal = ledger.whoamiTokens === ledger.clientTokens && ledger.whoamiRequests === ledger.clientAnswers;
  const base = `${whole(ledger.whoamiTokens)} ${equal ? '=' : '≠'} ${whole(ledger.clientTokens)}`;
  const extra: string[] = [];
  if (ledger.billedNotSeen) extra.push(`${ledger.billedNotSeen} billed, answer lost`);
  if (ledger.seenNotBilled) extra.push(`${ledger.seenNotBilled} answered, not billed`);
  if (isCap) extra.push(`overshoot +${whole(ledger.whoamiTokens - capTokens)} (${whole(((ledger.whoamiTokens - capTokens) / capTokens) * 100)} %)`);
  return `${base}${ledger.exact ? ' exact' : ''}${extra.length ? ` (${extra.join('; ')})` : ''}`;
}

/** The table, as text for a terminal or as Markdown for docs/scale.md. */
export function printReport(rows: Row[], options: { seconds: number; capTokens: number; markdown: boolean; elapsedSeconds: number }): void {
  const alone = rows[0]!.load.rps;
  const headers = ['measurement', 'conns', 'req/s', 'vs alone', 'p50 ms', 'p99 ms', 'answered', 'refused', '/whoami tokens = Σ svc_meta.usage'];
  const cells = rows.map((row, index) => [
    row.name,
    String(row.connections),
    whole(row.load.rps),
    `${(row.load.rps / alone).toFixed(2)}×`,
    row.load.p50Ms.toFixed(1),
    row.load.p99Ms.toFixed(1),
    whole(row.load.answered),
    refusedText(row.load.refused, row.load.socketErrors),
    ledgerText(row, options.capTokens, index === rows.length - 1),
  ]);
  const cpus = os.cpus();
  const machine = `${cpus.length} × ${cpus[0]?.model.trim() ?? 'CPU'}, Node ${process.version}, ${os.platform()} ${os.release()}`;
  const note = `${options.seconds} s of load per row (cap row: 4 s), wrk, mix: chat, responses, messages, each plain and streamed; machine: ${machine}; whole run ${Math.round(options.elapsedSeconds)} s`;
  if (options.markdown) {
    const line = (values: string[]) => `| ${values.join(' | ')} |`;
    process.stdout.write([line(headers), line(headers.map((_, column) => (column === 0 || column === headers.length - 1 ? '---' : '---:'))), ...cells.map(line), '', note, ''].join('\n'));
    return;
  }
  process.stdout.write(`\n${formatTable(headers, cells, [0, 7, 8])}\n\n${note}\n`);
}
