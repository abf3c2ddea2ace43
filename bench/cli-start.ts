import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { SUT_CPU, type Pinning } from './cpu-pinning.js';
import { median } from './stats.js';

export interface CliTimes {
  version_ms: number;
  whoami_ms: number;
}

const RUNS = 10;

/** Median wall time of `svc-router --version` and of an in-process `svc-router whoami` (fresh home, empty ledger). */
export function measureCliStart(bin: string, homeDir: string, pinning: Pinning): CliTimes {
  const time = (args: string[]) => {
    const command = [...pinning.prefix(SUT_CPU), process.execPath, bin, ...args];
    const env = { ...process.env, SVC_ROUTER_HOME: homeDir, NO_COLOR: '1' };
    const once = () => {
      const start = performance.now();
      const result = spawnSync(command[0]!, command.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
      const elapsed = performance.now() - start;
      if (result.status !== 0) throw new Error(`svc-router ${args.join(' ')} failed: ${result.stderr}`);
      return elapsed;
    };
    once(); // page cache
    return median(Array.from({ length: RUNS }, once));
  };
  return { version_ms: time(['--version']), whoami_ms: time(['whoami']) };
}
