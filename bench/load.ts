import { autocannonLoad } from './autocannon-load.js';
import type { Pinning } from './cpu-pinning.js';
import type { RequestSpec } from './paths.js';
import { findOrInstallWrk, wrkLoad } from './wrk.js';

export interface LoadResult {
  /** Completed requests (any status). */
  requests: number;
  seconds: number;
  rps: number;
  /** Non-2xx responses, socket errors and timeouts. */
  failures: number;
}

export interface LoadGenerator {
  name: string;
  /** Keeps `connections` requests in flight for `seconds`. */
  run(request: RequestSpec, connections: number, seconds: number): Promise<LoadResult>;
}

/** wrk when it is there (installed with apt-get when this runs as root), else autocannon. */
export function chooseLoadGenerator(pinning: Pinning, log: (line: string) => void, preferred?: 'wrk' | 'autocannon'): LoadGenerator {
  const wrk = preferred === 'autocannon' ? undefined : findOrInstallWrk(log);
  if (!wrk && preferred === 'wrk') throw new Error('--load wrk: wrk is not installed and could not be installed');
  if (wrk) return wrkLoad(wrk, pinning);
  log('load generator: autocannon (in-process; it costs more CPU per request than wrk, which lowers the measured floor)');
  return autocannonLoad();
}
