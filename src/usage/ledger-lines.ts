/**
 * The lines of the file ledger (and of a Redis outbox): usage records, and reservation lines
 * `{"reserve":…}` / `{"release":…}`. Every process appends whole lines, but a process killed
 * mid-write leaves a torn one, and anything else may append garbage. A line that is not one of
 * these, or holds a value no writer writes (text for a number, a number past what a Date can
 * hold, tokens below zero), is refused with the column of what is wrong: counted, it could hold a
 * developer at the cap forever, or fail every usage report.
 */

import { positionOfPath, readJsonText, type JsonPath, type TextProblem } from '../files/json-text.js';
import type { UsageRecord } from './ledger.js';

/** A line's meaning, or where it goes wrong (column within the line); `blank` lines mean nothing. */
export type LedgerLine =
  /** `lease`: the lease the record's request was admitted under, which holds that much less from then on. */
  | { kind: 'record'; record: UsageRecord; lease?: string }
  | { kind: 'reserve'; id: string; developer: string; tokens: number; until: number }
  | { kind: 'release'; id: string }
  | { kind: 'blank' }
  | { kind: 'unreadable'; problem: Omit<TextProblem, 'line'> };

/** The largest time a Date holds (ms since the epoch); a day past it has no date to print. */
const MAX_TIME = 8.64e15;

export function readLedgerLine(line: string): LedgerLine {
  if (line.trim() === '') return { kind: 'blank' };
  const reading = readJsonText(line);
  if (!reading.ok) return { kind: 'unreadable', problem: { column: reading.problem.column, message: reading.problem.message } };
  const value = reading.value;
  const wrong = (path: JsonPath, message: string): LedgerLine => ({ kind: 'unreadable', problem: { column: positionOfPath(line, path).column, message } });
  if (!isObject(value)) return wrong([], 'not a usage record or reservation (an object)');
  if (Object.hasOwn(value, 'release')) return typeof value.release === 'string' ? { kind: 'release', id: value.release } : wrong(['release'], 'release: expected a request id');
  if (Object.hasOwn(value, 'reserve')) {
    const reserve = value.reserve;
    if (!isObject(reserve)) return wrong(['reserve'], 'reserve: expected an object');
    if (typeof reserve.id !== 'string') return wrong(['reserve', 'id'], 'reserve.id: expected a request id');
    if (typeof reserve.developer !== 'string') return wrong(['reserve', 'developer'], 'reserve.developer: expected text');
    if (!isCount(reserve.tokens)) return wrong(['reserve', 'tokens'], 'reserve.tokens: expected a number of tokens, 0 or more');
    if (!isTime(reserve.until)) return wrong(['reserve', 'until'], 'reserve.until: expected a time in ms since the epoch');
    return { kind: 'reserve', id: reserve.id, developer: reserve.developer, tokens: reserve.tokens, until: reserve.until };
  }
  if (typeof value.developer !== 'string') return wrong(['developer'], 'developer: expected a name');
  if (!isTime(value.ts)) return wrong(['ts'], 'ts: expected a time in ms since the epoch');
  for (const field of ['inputTokens', 'outputTokens'] as const) {
    if (value[field] !== undefined && !isCount(value[field])) return wrong([field], `${field}: expected a number of tokens, 0 or more`);
  }
  if (value.requests !== undefined && !(isCount(value.requests) && Number.isInteger(value.requests))) return wrong(['requests'], 'requests: expected a whole number, 0 or more');
  return typeof value.lease === 'string' ? { kind: 'record', record: recordOf(value), lease: value.lease } : { kind: 'record', record: recordOf(value) };
}

/** A well-formed record, or undefined for a blank, torn or foreign line. */
export function parseRecord(line: string): UsageRecord | undefined {
  const read = readLedgerLine(line);
  return read.kind === 'record' ? read.record : undefined;
}

function recordOf(value: Record<string, unknown>): UsageRecord {
  return {
    ts: value.ts as number,
    developer: value.developer as string,
    inputTokens: (value.inputTokens as number | undefined) ?? 0,
    outputTokens: (value.outputTokens as number | undefined) ?? 0,
    // A record stands for one request unless it says it sums more.
    requests: (value.requests as number | undefined) || 1,
    ...(typeof value.requestId === 'string' ? { requestId: value.requestId } : {}),
    ...(typeof value.model === 'string' ? { model: value.model } : {}),
    ...(typeof value.backend === 'string' ? { backend: value.backend } : {}),
    ...(typeof value.upstreamModel === 'string' ? { upstreamModel: value.upstreamModel } : {}),
    ...(isWholeCount(value.cacheReadTokens) ? { cacheReadTokens: value.cacheReadTokens } : {}),
    ...(isWholeCount(value.cacheWriteTokens) ? { cacheWriteTokens: value.cacheWriteTokens } : {}),
    // A cost is a whole number of nano-dollars; anything else in its place is no cost, never 0.
    ...(Number.isSafeInteger(value.costNanoUsd) ? { costNanoUsd: value.costNanoUsd as number } : {}),
  };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;
const isWholeCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isTime = (value: unknown): value is number => typeof value === 'number' && Math.abs(value) <= MAX_TIME;
