import { SUT_CPU, type Pinning } from './cpu-pinning.js';
import type { LoadGenerator } from './load.js';
import { CONNECTIONS } from './measure.js';
import { routerRequest, type PathSpec } from './paths.js';
import { parsePhaseTotals, phaseMeansUs, type PhaseRow, type PhaseTotal } from './phases.js';
import { startServer } from './processes.js';
import type { RouterHome } from './router-home.js';

export interface PhaseRun {
  load: LoadGenerator;
  pinning: Pinning;
  /** `node bin/svc-router.js serve …`, without --metrics */
  routerCommand: string[];
  home: RouterHome;
  paths: PathSpec[];
  seconds: number;
}

/**
 * A router of its own with `--metrics` (metrics cost the router CPU, so the req/s rounds run
 * without them), one short load per path and mode at 64 connections, /metrics scraped before and
 * after. Null when this build's /metrics has no per-phase histogram.
 */
export async function measurePhases(run: PhaseRun, log: (line: string) => void): Promise<PhaseRow[] | null> {
  const [node, ...args] = run.routerCommand;
  const router = await startServer({
    name: 'svc-router (metrics)',
    command: [...run.pinning.prefix(SUT_CPU), node!, ...args, '--metrics'],
    env: { SVC_ROUTER_HOME: run.home.dir },
    ready: /listening on http:\/\/127\.0\.0\.1:(\d+)/,
  });
  try {
    const scrape = async (): Promise<Map<string, PhaseTotal>> => {
      const response = await fetch(`${router.origin}/metrics`);
      if (!response.ok) throw new Error(`GET /metrics answered ${response.status}`);
      return parsePhaseTotals(await response.text());
    };
    if ((await scrape()).size === 0) {
      // A histogram with no observation yet has no series: one request per path first.
      for (const spec of run.paths) await run.load.run(routerRequest(router.origin, spec, false, run.home.key), 1, 0.2);
      if ((await scrape()).size === 0) {
        log('phases: this build exposes no per-phase histogram on /metrics; none printed');
        return null;
      }
    }
    const rows: PhaseRow[] = [];
    for (const stream of [false, true]) {
      for (const spec of run.paths) {
        const request = routerRequest(router.origin, spec, stream, run.home.key);
        const before = await scrape();
        await run.load.run(request, CONNECTIONS, run.seconds);
        rows.push({ path: spec.name, stream, phases_us: phaseMeansUs(before, await scrape()) });
      }
    }
    log(`phases: ${rows.length} path/mode pairs measured on a router with --metrics`);
    return rows;
  } finally {
    await router.stop();
  }
}
