import fs from 'node:fs';
import path from 'node:path';
import type { StoredRequest } from './request-log.js';
import { REQUESTS_FILE, REQUESTS_OLD_FILE } from './request-store.js';

export type { StoredRequest } from './request-log.js';

export interface RequestFilter {
  /** Only records at or after this time (ms since the epoch). */
  since?: number;
  caller?: string;
  /** An exact status (`429`), a class (`5xx`), or `error` (any status of 400 or more). */
  status?: string;
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
  return true;
}

/** A line of the store, or undefined for a torn or foreign one. */
export function parseStored(line: string): StoredRequest | undefined {
  if (!line.trim()) return undefined;
  try {
    const value = JSON.parse(line) as StoredRequest;
    return typeof value.time === 'string' && typeof value.status === 'number' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The stored requests that match, oldest first, from both generations. */
export function readRequests(dir: string, filter: RequestFilter = {}, retentionDays = Infinity): StoredRequest[] {
  const cutoff = Number.isFinite(retentionDays) ? Date.now() - retentionDays * 86_400_000 : -Infinity;
  const since = Math.max(cutoff, filter.since ?? -Infinity);
  const result: StoredRequest[] = [];
  for (const name of [REQUESTS_OLD_FILE, REQUESTS_FILE]) {
    let text: string;
    try {
      text = fs.readFileSync(path.join(dir, name), 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      const record = parseStored(line);
      if (record && matches(record, { ...filter, since })) result.push(record);
    }
  }
  return result;
}
