import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { SUT_CPU, type Pinning } from './cpu-pinning.js';
import { median } from './stats.js';

export interface CliTimes {
  /** `node -e 0`, the floor any Node command starts from, measured the same way in the same run */
  node_ms: number;
  version_ms: number;
  whoami_ms: number;
}

const RUNS = 10;

/**
 * Median wall time of `node -e 0`, `svc-router --version` and an in-process `svc-router whoami`
 * (fresh home, empty ledger), each pinned like the router; the three interleave run by run so a
 * busy moment on the machine lands on all of them alike.
 */
export function measureCliStart(bin: string, homeDir: string, pinning: Pinning): CliTimes {
  const env = { ...process.env, SVC_ROUTER_HOME: homeDir, NO_COLOR: '1' };
  const once = (args: string[]) => {
    const command = [...pinning.prefix(SUT_CPU), process.execPath, ...args];
    const start = performance.now();
    const result = spawnSync(command[0]!, command.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const elapsed = performance.now() - start;
    if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr}`);
    return elapsed;
  };
  const commands = { node_ms: ['-e', '0'], version_ms: [bin, '--version'], whoami_ms: [bin, 'whoami'] };
  const times: Record<keyof CliTimes, number[]> = { node_ms: [], version_ms: [], whoami_ms: [] };
  for (const args of Object.values(commands)) once(args); // page cache
  for (let run = 0; run < RUNS; run++) {
    for (const [name, args] of Object.entries(commands) as [keyof CliTimes, string[]][]) times[name].push(once(args));
  }
  return { node_ms: median(times.node_ms), version_ms: median(times.version_ms), whoami_ms: median(times.whoami_ms) };
}
