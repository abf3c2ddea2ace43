import os from 'node:os';
import { spawnSync } from 'node:child_process';

/** The system under test (router or bare proxy) gets CPU 0; load generator, upstream and this process CPU 1. */
export const SUT_CPU = 0;
export const DRIVER_CPU = 1;

export interface Pinning {
  enabled: boolean;
  /** Prefix for a command that must run on `cpu` (empty when pinning is off). */
  prefix(cpu: number): string[];
  note?: string;
}

/** Checks for taskset and two CPUs; when both are there, moves this process (all threads) to the driver CPU. */
export function setUpPinning(): Pinning {
  const off = (note: string): Pinning => ({ enabled: false, prefix: () => [], note });
  if (os.availableParallelism() < 2) return off('only one CPU: router and load generator share it, so absolute numbers understate the router');
  const probe = spawnSync('taskset', ['-V'], { encoding: 'utf8' });
  if (probe.error) {
    return off('taskset not found (it ships in util-linux: `apt-get install util-linux`); processes run unpinned and compete for both CPUs');
  }
  const self = spawnSync('taskset', ['-a', '-p', '-c', String(DRIVER_CPU), String(process.pid)], { encoding: 'utf8' });
  if (self.status !== 0) return off(`taskset could not pin this process (${self.stderr.trim()}); running unpinned`);
  return { enabled: true, prefix: (cpu) => ['taskset', '-c', String(cpu)] };
}
