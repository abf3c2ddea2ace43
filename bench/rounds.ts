import { measureLatency } from './latency-client.js';
import type { LoadGenerator } from './load.js';
import { CONNECTIONS, measureThroughput } from './measure.js';
import { routerRequest, upstreamRequest, type PathSpec, type RequestSpec } from './paths.js';
import { Samples, type Subject } from './samples.js';
import type { UpstreamFormat } from './upstream-replies.js';

export interface Servers {
  upstream: string;
  bare: { origin: string; pid: number };
  router: { origin: string; pid: number };
  key: string;
  /** the router built from the `--against` ref, measured next to `router` on every path */
  baseline?: { origin: string; pid: number; key: string };
}

export interface RoundPlan {
  paths: PathSpec[];
  rounds: number;
  seconds: number;
  latencySeconds: number;
  /** the CPU the router and bare proxy are pinned to, if they are */
  sutCpu?: number;
}

interface Job {
  subject: Subject;
  label: string;
  stream: boolean;
  request: RequestSpec;
  /** process whose CPU and memory the run is charged to; none for the upstream called directly */
  pid?: number;
}

/**
 * Jobs grouped by upstream endpoint: the upstream itself, the bare proxy in front of it, then each
 * router path that reaches it, so a path and its floor are measured within seconds of each other.
 */
function plan(paths: PathSpec[], t: Servers): Job[] {
  const jobs: Job[] = [];
  const upstreams = [...new Set(paths.map((p) => p.upstream))] as UpstreamFormat[];
  for (const stream of [false, true]) {
    for (const upstream of upstreams) {
      jobs.push({ subject: { kind: 'direct', upstream }, label: `upstream ${upstream} direct`, stream, request: upstreamRequest(t.upstream, upstream, stream) });
      jobs.push({ subject: { kind: 'bare', upstream }, label: `bare proxy → ${upstream}`, stream, request: upstreamRequest(t.bare.origin, upstream, stream), pid: t.bare.pid });
      for (const path of paths.filter((p) => p.upstream === upstream)) {
        jobs.push({ subject: { kind: 'router', path: path.name }, label: `router ${path.name}`, stream, request: routerRequest(t.router.origin, path, stream, t.key), pid: t.router.pid });
        if (t.baseline) {
          const { origin, key, pid } = t.baseline;
          jobs.push({ subject: { kind: 'baseline', path: path.name }, label: `baseline ${path.name}`, stream, request: routerRequest(origin, path, stream, key), pid });
        }
      }
    }
  }
  return jobs;
}

/**
 * With a baseline, each router job is followed by the same path on the baseline, and odd rounds
 * swap the two (now, baseline / baseline, now / …), so neither always runs first after the floor.
 */
function roundOrder(jobs: Job[], round: number): Job[] {
  if (round % 2 === 0) return jobs;
  const swapped = [...jobs];
  for (let i = 0; i + 1 < swapped.length; i++) {
    if (swapped[i]!.subject.kind === 'router' && swapped[i + 1]!.subject.kind === 'baseline') {
      [swapped[i], swapped[i + 1]] = [swapped[i + 1]!, swapped[i]!];
      i++;
    }
  }
  return swapped;
}

/** Warm-up, then `rounds` rounds of throughput (c64) and latency (c1) for every job. */
export async function runRounds(load: LoadGenerator, servers: Servers, options: RoundPlan, log: (line: string) => void): Promise<Samples> {
  const jobs = plan(options.paths, servers);
  const loaded = jobs.filter((job) => job.pid !== undefined);
  const samples = new Samples();

  log(`warm-up: ${loaded.length} targets × 1 s under load, ${jobs.length} targets one request at a time`);
  for (const job of loaded) await load.run(job.request, CONNECTIONS, 1);
  for (const job of jobs) await measureLatency(job.request, 0, 200);

  for (let round = 0; round < options.rounds; round++) {
    for (const job of roundOrder(loaded, round)) {
      const throughput = await measureThroughput(load, job.request, job.pid!, options.seconds, options.sutCpu);
      samples.record(job.subject, job.stream, round, { throughput });
      const failures = throughput.failures ? ` · ${throughput.failures} FAILED` : '';
      const others = Number.isFinite(throughput.othersShare) ? `, others ${Math.round(throughput.othersShare * 100)}%` : '';
      log(
        `round ${round + 1}/${options.rounds} · ${job.label}${job.stream ? ' (stream)' : ''}: ${Math.round(throughput.rps)} req/s, ` +
          `${Math.round(throughput.cpuUsPerReq)} µs CPU/req, ${Math.round(throughput.cpuShare * 100)}% of its CPU${others}${failures}`,
      );
    }
    for (const job of roundOrder(jobs, round)) {
      const latency = await measureLatency(job.request, options.latencySeconds);
      samples.record(job.subject, job.stream, round, { latency });
    }
    log(`round ${round + 1}/${options.rounds} · latency at c1 measured for ${jobs.length} targets`);
  }
  return samples;
}
