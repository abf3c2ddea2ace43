import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import type { RequestSpec } from './paths.js';
import { percentile } from './stats.js';

export interface LatencyResult {
  samples: number;
  /** Whole exchange, request sent to last body byte, ms. */
  p50: number;
  p99: number;
  /** Request sent to the first body chunk, ms. */
  ttfbP50: number;
}

/** One request at a time on one keep-alive connection, for `seconds` after `warmup` requests. */
export async function measureLatency(request: RequestSpec, seconds: number, warmup = 50): Promise<LatencyResult> {
  const client = new Client(request.origin, { pipelining: 1 });
  const totals: number[] = [];
  const firsts: number[] = [];
  try {
    for (let i = 0; i < warmup; i++) await once(client, request);
    const deadline = performance.now() + seconds * 1000;
    while (performance.now() < deadline) {
      const { total, first } = await once(client, request);
      totals.push(total);
      firsts.push(first);
    }
  } finally {
    await client.close();
  }
  totals.sort((a, b) => a - b);
  firsts.sort((a, b) => a - b);
  return { samples: totals.length, p50: percentile(totals, 50), p99: percentile(totals, 99), ttfbP50: percentile(firsts, 50) };
}

async function once(client: Client, request: RequestSpec): Promise<{ total: number; first: number }> {
  const start = performance.now();
  const response = await client.request({ method: 'POST', path: request.path, headers: request.headers, body: request.body });
  let first = 0;
  for await (const _chunk of response.body) {
    if (first === 0) first = performance.now() - start;
  }
  const total = performance.now() - start;
  if (response.statusCode !== 200) throw new Error(`${request.origin}${request.path} answered ${response.statusCode}`);
  return { total, first: first || total };
}
