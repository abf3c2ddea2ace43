import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool, request as httpRequest } from 'undici';
import { SUT_CPU, type Pinning } from './cpu-pinning.js';
import { routerRequest, slowStreamRequest, PATHS, type RequestSpec } from './paths.js';
import { rssMb } from './proc-stats.js';
import { startServer, type Server } from './processes.js';

export interface StreamsResult {
  streams: number;
  completed: number;
  seconds: number;
  /** Peak RSS of the router while the streams ran. */
  rss_mb: number;
  rss_mb_idle: number;
  eventloop_p50_ms: number;
  eventloop_p99_ms: number;
  eventloop_max_ms: number;
  /** Most streams the upstream served at once: below `streams` when the router queues upstream calls. */
  upstream_peak_concurrent: number;
  /** One entry per round on the same router (the first is the round above): RSS should level off, not climb. */
  rounds: StreamsRound[];
  /** V8 heap in use after a full collection, before the first round and after the last: what the streams left referenced. */
  heap_mb_after_gc_before: number;
  heap_mb_after_gc_after: number;
}

export interface StreamsRound {
  completed: number;
  /** Peak RSS during the round. */
  rss_mb_peak: number;
  /** RSS once the round's streams have ended (no collection is forced between rounds). */
  rss_mb_after: number;
}

export interface StreamsSetup {
  count: number;
  /** compiled router-with-eld entry */
  entry: string;
  distDir: string;
  home: { dir: string; key: string };
  upstreamOrigin: string;
  pinning: Pinning;
  /** Rounds of `count` streams on the same router (default 1). */
  rounds?: number;
}

const RSS_SAMPLE_MS = 100;
const MiB = 1024 * 1024;
/** Streams open over this long rather than in one instant: the test is about holding them, not a connection storm. */
const RAMP_MS = 1_000;

/** `count` concurrent slow streams (a chunk every 100 ms) through a router that reports its event-loop delay. */
export async function runSlowStreams(setup: StreamsSetup): Promise<StreamsResult> {
  const router = await startServer({
    name: 'router (event-loop monitor)',
    command: [...setup.pinning.prefix(SUT_CPU), process.execPath, '--expose-gc', setup.entry, setup.distDir],
    env: { SVC_ROUTER_HOME: setup.home.dir },
    ipc: true,
  });
  try {
    await warmUp(routerRequest(router.origin, PATHS[0]!, true, setup.home.key));
    const idle = rssMb(router.pid);
    // A full collection here, before the histogram is cleared: the baseline for what the streams leave behind.
    const heapBefore = (await readMemory(router)).heap_used / MiB;
    await fetchJson(`${setup.upstreamOrigin}/_stats?reset`);
    resetDelay(router);

    const rounds: StreamsRound[] = [];
    let first: { seconds: number; eld: DelayReport; upstreamPeak: number } | undefined;
    for (let round = 0; round < (setup.rounds ?? 1); round++) {
      let peak = rssMb(router.pid);
      const sampler = setInterval(() => (peak = Math.max(peak, rssMb(router.pid))), RSS_SAMPLE_MS);
      const started = performance.now();
      const completed = await streamAll(slowStreamRequest(router.origin, setup.home.key), setup.count);
      const seconds = (performance.now() - started) / 1000;
      clearInterval(sampler);
      const after = rssMb(router.pid);
      peak = Math.max(peak, after);
      if (!first) {
        const eld = await readDelay(router);
        const upstream = (await fetchJson(`${setup.upstreamOrigin}/_stats`)) as { slow_peak: number };
        first = { seconds, eld, upstreamPeak: upstream.slow_peak };
      }
      rounds.push({ completed, rss_mb_peak: peak, rss_mb_after: after });
    }
    const heapAfter = (await readMemory(router)).heap_used / MiB;
    const { seconds, eld, upstreamPeak } = first!;
    return {
      streams: setup.count,
      completed: rounds[0]!.completed,
      seconds,
      rss_mb: rounds[0]!.rss_mb_peak,
      rss_mb_idle: idle,
      eventloop_p50_ms: eld.p50_ms,
      eventloop_p99_ms: eld.p99_ms,
      eventloop_max_ms: eld.max_ms,
      upstream_peak_concurrent: upstreamPeak,
      rounds,
      heap_mb_after_gc_before: heapBefore,
      heap_mb_after_gc_after: heapAfter,
    };
  } finally {
    await router.stop();
  }
}

async function warmUp(request: RequestSpec): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const response = await httpRequest(request.origin + request.path, { method: 'POST', headers: request.headers, body: request.body });
    await response.body.text();
  }
}

/** Opens the streams evenly over RAMP_MS; returns how many ended with the final `[DONE]` frame. */
async function streamAll(request: RequestSpec, count: number): Promise<number> {
  const pool = new Pool(request.origin, { connections: count, headersTimeout: 600_000, bodyTimeout: 600_000 });
  const one = async (index: number): Promise<boolean> => {
    await sleep((index * RAMP_MS) / count);
    const response = await pool.request({ method: 'POST', path: request.path, headers: request.headers, body: request.body });
    let tail = '';
    for await (const chunk of response.body) tail = (tail + chunk.toString()).slice(-64);
    return response.statusCode === 200 && tail.includes('[DONE]');
  };
  try {
    const outcomes = await Promise.allSettled(Array.from({ length: count }, (_, index) => one(index)));
    return outcomes.filter((outcome) => outcome.status === 'fulfilled' && outcome.value).length;
  } finally {
    await pool.close();
  }
}

interface DelayReport {
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

function resetDelay(server: Server): void {
  server.child.send({ type: 'reset' });
}

async function readDelay(server: Server): Promise<DelayReport> {
  server.child.send({ type: 'report' });
  const [reply] = (await once(server.child, 'message')) as [DelayReport];
  return reply;
}

/** The router's heap after a full collection (it runs with --expose-gc for this). */
async function readMemory(server: Server): Promise<{ heap_used: number; rss: number }> {
  server.child.send({ type: 'memory' });
  const [reply] = (await once(server.child, 'message')) as [{ heap_used: number; rss: number }];
  return reply;
}

async function fetchJson(url: string): Promise<unknown> {
  const response = await httpRequest(url);
  return response.body.json();
}
