import fs from 'node:fs';
import path from 'node:path';
import { positionOfPath, readJsonText, type TextProblem } from '../files/json-text.js';
import type { StoredRequest } from './request-log.js';
import { REQUESTS_FILE, REQUESTS_OLD_FILE } from './request-store.js';

export type { StoredRequest } from './request-log.js';

export interface RequestFilter {
  /** Only records at or after this time (ms since the epoch). */
  since?: number;
  caller?: string;
  /** An exact status (`429`), a class (`5xx`), or `error` (any status of 400 or more). */
  status?: string;
  /** A session's id as `svc-router sessions` shows it, or its first characters. */
  session?: string;
}

/** `429`, `4xx`, `error`: whether a status matches what `--status` asked for. */
export function statusMatches(status: number, wanted: string): boolean {
  if (wanted === 'error') return status >= 400;
  if (/^[1-5]xx$/i.test(wanted)) return Math.floor(status / 100) === Number(wanted[0]);
  return String(status) === wanted;
}

export function matches(record: StoredRequest, filter: RequestFilter): boolean {
  if (filter.since !== undefined && Date.parse(record.time) < filter.since) return false;
  if (filter.caller !== undefined && record.caller !== filter.caller) return false;
  if (filter.status !== undefined && !statusMatches(record.status, filter.status)) return false;
  if (filter.session !== undefined && !record.session?.startsWith(filter.session)) return false;
  return true;
}

/** A line of the store: the record, or where it goes wrong (column within the line); blank lines mean nothing. */
export type StoredLine = { kind: 'record'; record: StoredRequest } | { kind: 'blank' } | { kind: 'unreadable'; problem: Omit<TextProblem, 'line'> };

const STRINGS = ['request_id', 'caller', 'format', 'model', 'rule', 'backend', 'upstream_model', 'session', 'session_moved', 'error', 'cause'] as const;
const NUMBERS = ['attempts', 'input_tokens', 'output_tokens', 'cost_usd'] as const;

/**
 * Reads one line as the router wrote it. A line torn by a killed process, or one with a value of
 * another type than the router writes (a time that is not a date, a list that is not one), is
 * refused rather than half shown: printing it would fail the whole listing.
 */
export function readStoredLine(line: string): StoredLine {
  if (!line.trim()) return { kind: 'blank' };
  const reading = readJsonText(line);
  if (!reading.ok) return { kind: 'unreadable', problem: { column: reading.problem.column, message: reading.problem.message } };
  const value = reading.value as Record<string, unknown> | null;
  const wrong = (path: Array<string | number>, message: string): StoredLine => ({ kind: 'unreadable', problem: { column: positionOfPath(line, path).column, message } });
  if (!value || typeof value !== 'object' || Array.isArray(value)) return wrong([], 'not a request record (an object)');
  if (typeof value.time !== 'string' || Number.isNaN(Date.parse(value.time))) return wrong(['time'], 'time: expected an ISO 8601 time');
  if (!Number.isSafeInteger(value.status)) return wrong(['status'], 'status: expected an HTTP status');
  if (typeof value.method !== 'string') return wrong(['method'], 'method: expected text');
  if (typeof value.path !== 'string') return wrong(['path'], 'path: expected text');
  if (!isNumber(value.latency_ms)) return wrong(['latency_ms'], 'latency_ms: expected a number');
  for (const field of STRINGS) if (value[field] !== undefined && typeof value[field] !== 'string') return wrong([field], `${field}: expected text`);
  for (const field of NUMBERS) if (value[field] !== undefined && !isNumber(value[field])) return wrong([field], `${field}: expected a number`);
  if (value.targets !== undefined) {
    if (!Array.isArray(value.targets)) return wrong(['targets'], 'targets: expected a list');
    const bad = value.targets.findIndex((target: unknown) => !isTarget(target));
    if (bad !== -1) return wrong(['targets', bad], `targets[${bad}]: expected { "backend", "upstream_model", "outcome", "latency_ms" }`);
  }
  return { kind: 'record', record: value as unknown as StoredRequest };
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

function isTarget(value: unknown): boolean {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const target = value as Record<string, unknown>;
  return (
    typeof target.backend === 'string' &&
    typeof target.upstream_model === 'string' &&
    (target.outcome === 'ok' || Number.isSafeInteger(target.outcome)) &&
    isNumber(target.latency_ms) &&
    (target.error === undefined || typeof target.error === 'string')
  );
}

/**
 * The stored requests that match, oldest first, from both generations. `skipped` hears of each
 * line that cannot be read, by file and line number.
 */
export function readRequests(dir: string, filter: RequestFilter = {}, retentionDays = Infinity, skipped?: (file: string, line: number, problem: Omit<TextProblem, 'line'>) => void): StoredRequest[] {
  const cutoff = Number.isFinite(retentionDays) ? Date.now() - retentionDays * 86_400_000 : -Infinity;
  const since = Math.max(cutoff, filter.since ?? -Infinity);
  const result: StoredRequest[] = [];
  for (const name of [REQUESTS_OLD_FILE, REQUESTS_FILE]) {
    const file = path.join(dir, name);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    // The last piece, after the last newline, may be a line the router is writing now: only whole lines are read.
    text.split('\n').slice(0, -1).forEach((line, index) => {
      const read = readStoredLine(line);
      if (read.kind === 'record') {
        if (matches(read.record, { ...filter, since })) result.push(read.record);
      } else if (read.kind === 'unreadable') skipped?.(file, index + 1, read.problem);
    });
  }
  return result;
}
