/**
 * `npm run bench`: svc-router against a bare pass-through proxy on the same zero-think-time
 * upstream, each server in its own process. Prints a table and writes bench/results/latest.json.
 */
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { prepareBaseline, type Baseline } from './baseline.js';
import { runBigStreams, type BigStreamResult } from './big-streams.js';
import { compileChildEntries } from './child-entries.js';
import { writeDocs } from './docs-block.js';
import { measureCliStart, type CliTimes } from './cli-start.js';
import { DRIVER_CPU, SUT_CPU, setUpPinning } from './cpu-pinning.js';
import { ensureDist } from './ensure-dist.js';
import { measureFrameTaps, type FrameTapRow } from './frame-taps.js';
import { chooseLoadGenerator } from './load.js';
import { CONNECTIONS } from './measure.js';
import { parseOptions } from './options.js';
import { PATHS, routerRequest } from './paths.js';
import { installPeers, measurePeers, type PeerRow } from './peers.js';
import { measurePhases } from './phase-run.js';
import type { PhaseRow } from './phases.js';
import { rssMb } from './proc-stats.js';
import { startServer } from './processes.js';
import { againstVerdict, machine, printMemory, printReport, targetsSection, writeReport, type AgainstResult, type BenchReport } from './report.js';
import { ConfigStore } from '../src/config/store.js';
import { createRouterHome, createRouterHomeFrom, type RouterHome } from './router-home.js';
import { runRounds } from './rounds.js';
import { serveArgs } from './serve-command.js';
import { runSlowStreams, type StreamsResult } from './slow-streams.js';
import { summariseFloor, summarisePath } from './summarise.js';
import { checkTargets } from './targets.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = path.join(ROOT, 'bench', 'results', 'latest.json');
const BIN = path.join(ROOT, 'bin', 'svc-router.js');
const DOCS = path.join(ROOT, 'docs', 'performance.md');

const started = Date.now();
const log = (line: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}`);

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const paths = options.only.length ? PATHS.filter((p) => options.only.includes(p.name)) : PATHS;

  ensureDist(ROOT, log);
  // Before any server starts, so a ref that does not build costs nothing else; removed in `finally` or on exit.
  const baseline: Baseline | undefined = options.against ? prepareBaseline(ROOT, options.against, log) : undefined;
  // Installed before any server starts, so npm's work is not charged to a measurement.
  const peerInstall = options.peers && !options.memoryOnly ? installPeers(log) : undefined;
  const pinning = setUpPinning();
  log(pinning.enabled ? `pinned: router / bare proxy on CPU ${SUT_CPU}; load generator, upstream and this process on CPU ${DRIVER_CPU}` : `not pinned: ${pinning.note}`);
  const load = chooseLoadGenerator(pinning, log, options.load);
  const entry = compileChildEntries();
  const node = process.execPath;
  // Before any server starts: in-process, on the router's CPU, nothing else of the bench running.
  const frameTaps: FrameTapRow[] | null = options.memoryOnly
    ? null
    : measureFrameTaps({ entry: entry('frame-taps-child.ts'), dist: path.join(ROOT, 'dist'), ...(baseline ? { baseDist: baseline.dist } : {}), rounds: Math.max(options.rounds, baseline ? 3 : 1), pinning }, log);

  const upstream = await startServer({ name: 'fake upstream', command: [...pinning.prefix(DRIVER_CPU), node, entry('fake-upstream.ts')] });
  // One home per measurement: the router reads its whole ledger at start, so a used one would skew memory and start time.
  const home = createRouterHome(upstream.origin);
  if (options.guardrail) {
    const guardrail = options.guardrail;
    new ConfigStore(home.dir).update((settings) => {
      settings.guardrails.secrets = guardrail;
    });
    log(`secrets guardrail: ${guardrail} (this build's router only)`);
  }
  const streamsHome = createRouterHome(upstream.origin);
  const cliHome = createRouterHome();
  const phaseHome = createRouterHome(upstream.origin);
  let baseHome: RouterHome | undefined;
  let baseStop: (() => Promise<void>) | undefined;
  try {
    // With a baseline, both routers get only the flags both builds understand.
    const routerArgs = baseline ? serveArgs(BIN, baseline.bin) : serveArgs(BIN);
    if (options.memoryOnly) {
      const big = await runBigStreams({ routerCommand: [node, BIN, ...routerArgs], routerEnv: { SVC_ROUTER_HOME: home.dir }, bareCommand: [node, entry('bare-proxy.ts'), upstream.origin], key: home.key, pinning }, log);
      const streams = options.streams > 0 ? await slowStreams() : undefined;
      printMemory(big, streams, console.log);
      // Only the rows this mode measures: memory for big answers and, with --streams, the slow-stream rows.
      for (const line of targetsSection(checkTargets({ paths: [], idleRssMb: NaN, big, streams }).filter((check) => check.status !== 'SKIP'))) console.log(line);
      return;
    }
    const bare = await startServer({ name: 'bare proxy', command: [...pinning.prefix(SUT_CPU), node, entry('bare-proxy.ts'), upstream.origin] });
    const router = await startServer({
      name: 'svc-router',
      command: [...pinning.prefix(SUT_CPU), node, BIN, ...routerArgs],
      env: { SVC_ROUTER_HOME: home.dir },
      ready: /listening on http:\/\/127\.0\.0\.1:(\d+)/,
    });
    let base: { origin: string; pid: number; key: string } | undefined;
    if (baseline) {
      // Its home is written by its own code, so it reads a config in the shape it knows.
      baseHome = await createRouterHomeFrom(baseline.dist, upstream.origin).catch((error: Error) => {
        log(`baseline: its own code could not write a home (${error.message.split('\n')[0]}); using one written by this build`);
        return createRouterHome(upstream.origin);
      });
      const server = await startServer({
        name: `svc-router ${baseline.ref}`,
        command: [...pinning.prefix(SUT_CPU), node, baseline.bin, ...routerArgs],
        env: { SVC_ROUTER_HOME: baseHome.dir },
        ready: /listening on http:\/\/127\.0\.0\.1:(\d+)/,
      });
      base = { origin: server.origin, pid: server.pid, key: baseHome.key };
      baseStop = server.stop;
    }
    await sleep(500);
    const idleRss = rssMb(router.pid);
    const bareIdleRss = rssMb(bare.pid);
    const baseIdleRss = base ? rssMb(base.pid) : NaN;
    log(
      `servers up: upstream ${upstream.origin}, bare proxy ${bare.origin}, svc-router ${router.origin} (idle RSS ${idleRss.toFixed(1)} MB; bare proxy ${bareIdleRss.toFixed(1)} MB)` +
        (base && baseline ? `, ${baseline.ref} ${base.origin} (idle RSS ${baseIdleRss.toFixed(1)} MB)` : ''),
    );

    const samples = await runRounds(load, { upstream: upstream.origin, bare, router, key: home.key, ...(base ? { baseline: base } : {}) }, { paths, ...options, ...(pinning.enabled ? { sutCpu: SUT_CPU } : {}) }, log);
    let peers: PeerRow[] | null = null;
    if (peerInstall) {
      log('peers…');
      peers = await measurePeers(
        {
          load,
          pinning,
          dir: peerInstall.dir,
          upstream: upstream.origin,
          bare,
          router: { origin: router.origin, pid: router.pid, request: (spec, stream) => routerRequest(router.origin, spec, stream, home.key) },
          rounds: Math.max(2, options.rounds),
          seconds: options.seconds,
        },
        log,
      );
      peerInstall.remove();
    }
    await Promise.all([bare.stop(), router.stop(), baseStop?.()]);
    baseline?.remove();

    log('per-phase overhead (a router with --metrics)…');
    // Context for the tables above, never a reason to lose them: a router that cannot serve /metrics (no prom-client) gives no phases.
    const phases: PhaseRow[] | null = await measurePhases({ load, pinning, routerCommand: [node, BIN, ...routerArgs], home: phaseHome, paths, seconds: Math.max(1, options.seconds / 2) }, log).catch((error: Error) => {
      log(`phases: not measured (${error.message.split('\n')[0]})`);
      return null;
    });

    log('big streams (memory)…');
    const big = await runBigStreams({ routerCommand: [node, BIN, ...routerArgs], routerEnv: { SVC_ROUTER_HOME: home.dir }, bareCommand: [node, entry('bare-proxy.ts'), upstream.origin], key: home.key, pinning }, log);
    const streams = options.streams > 0 ? await slowStreams() : undefined;
    log('CLI start times…');
    const cli: CliTimes = measureCliStart(BIN, cliHome.dir, pinning);

    const pathResults = [false, true].flatMap((stream) => paths.map((spec) => summarisePath(spec, stream, samples)));
    const upstreams = [...new Set(paths.map((p) => p.upstream))];
    const against: AgainstResult | null = baseline
      ? {
          ref: baseline.ref,
          commit: baseline.sha,
          modules: baseline.modules,
          router_command: `svc-router ${routerArgs.join(' ')}`,
          rss_mb_idle: baseIdleRss,
          ...againstVerdict(baseline.ref, baseline.sha, pathResults),
        }
      : null;
    const report: BenchReport = {
      machine: machine(),
      run: {
        command: ['npm run bench', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' '),
        commit: headCommit(),
        quick: options.quick,
        rounds: options.rounds,
        seconds_per_measurement: options.seconds,
        connections: CONNECTIONS,
        load_generator: load.name,
        router_command: `svc-router ${routerArgs.join(' ')}`,
        guardrail: options.guardrail ?? 'off',
        pinned: pinning.enabled,
        ...(pinning.note ? { note: pinning.note } : {}),
      },
      router: { rss_mb_idle: idleRss },
      bare_proxy: { rss_mb_idle: bareIdleRss },
      floor: [false, true].flatMap((stream) => upstreams.map((u) => summariseFloor(u, stream, samples))),
      paths: pathResults,
      streams_1000: streams ?? null,
      big_streams: big,
      cli,
      frame_taps: frameTaps,
      targets: checkTargets({ paths: pathResults, idleRssMb: idleRss, streams, cli, big, peers }),
      against,
      peers,
      phases,
    };
    writeReport(report, RESULTS);
    printReport(report, console.log);
    printMemory(big, streams, console.log);
    console.log(`\nwrote ${path.relative(process.cwd(), RESULTS)} · ${((Date.now() - started) / 1000).toFixed(0)} s`);
    if (against) console.log(`verdict: ${against.verdict}`);
    if (options.writeDocs) {
      writeDocs(report, DOCS);
      console.log(`wrote the run into ${path.relative(process.cwd(), DOCS)}`);
    }

    async function slowStreams(): Promise<StreamsResult> {
      log(`${options.streams} concurrent slow streams through the router, ${options.streamRounds} round(s)…`);
      return runSlowStreams({ count: options.streams, rounds: options.streamRounds, entry: entry('router-with-eld.ts'), distDir: path.join(ROOT, 'dist'), home: streamsHome, upstreamOrigin: upstream.origin, pinning });
    }
  } finally {
    await baseStop?.();
    await upstream.stop();
    for (const dir of [home, streamsHome, cliHome, phaseHome, baseHome]) dir?.remove();
    peerInstall?.remove();
    baseline?.remove();
  }
}

/** The commit measured, marked when the working tree differs from it (the numbers are then of uncommitted code). */
function headCommit(): string | undefined {
  const git = (args: string[]) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  const head = git(['rev-parse', '--short', 'HEAD']);
  if (head.status !== 0) return undefined;
  const dirty = git(['status', '--porcelain', '--untracked-files=no', '--', 'src', 'bin', 'package.json']).stdout.trim() !== '';
  return `${head.stdout.trim()}${dirty ? ' + uncommitted changes' : ''}`;
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`bench failed: ${(error as Error).stack ?? error}`);
    process.exit(1);
  },
);
