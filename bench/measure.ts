import { performance } from 'node:perf_hooks';
import type { LoadGenerator } from './load.js';
import type { RequestSpec } from './paths.js';
import { cpuBusyMicros, cpuMicros, rssMb } from './proc-stats.js';

export const CONNECTIONS = 64;

export interface ThroughputSample {
  rps: number;
  /** CPU time of the process under test per completed request, µs. */
  cpuUsPerReq: number;
  /** Share of one core the process under test used during the run (1 = saturated). */
  cpuShare: number;
  /** Share of the tested process's CPU that went to anything else (neighbours, the hypervisor); NaN when unpinned. */
  othersShare: number;
  rssMbAfter: number;
  failures: number;
}

/**
 * Drives `request` at 64 connections and charges the process under test's CPU time to it. With
 * `pinnedCpu`, also tells how busy that CPU was with other work.
 */
export async function measureThroughput(load: LoadGenerator, request: RequestSpec, pid: number, seconds: number, pinnedCpu?: number): Promise<ThroughputSample> {
  const busy = () => (pinnedCpu === undefined ? NaN : cpuBusyMicros(pinnedCpu));
  const cpuBefore = cpuMicros(pid);
  const busyBefore = busy();
  const start = performance.now();
  const result = await load.run(request, CONNECTIONS, seconds);
  const wallMicros = (performance.now() - start) * 1000;
  const cpu = cpuMicros(pid) - cpuBefore;
  const others = busy() - busyBefore - cpu;
  return {
    rps: result.rps,
    cpuUsPerReq: result.requests > 0 ? cpu / result.requests : NaN,
    cpuShare: cpu / wallMicros,
    othersShare: Math.max(0, others) / wallMicros,
    rssMbAfter: rssMb(pid),
    failures: result.failures,
  };
}
