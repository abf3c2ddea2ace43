import { parseArgs } from 'node:util';
import { PATHS } from './paths.js';

export interface BenchOptions {
  quick: boolean;
  rounds: number;
  /** Per throughput measurement. */
  seconds: number;
  /** Per latency (concurrency 1) measurement. */
  latencySeconds: number;
  /** Path names to run; all when empty. */
  only: string[];
  /** Concurrent slow streams for the memory / event-loop test; 0 skips it. */
  streams: number;
  /** Rounds of the slow-stream test on one router, RSS after each (flat when nothing is kept per stream). */
  streamRounds: number;
  /** Only the memory measurements: big streams and the slow-stream rounds. */
  memoryOnly: boolean;
  /** Force a load generator (default: wrk if present or installable, else autocannon). */
  load?: 'wrk' | 'autocannon';
  /** A git ref whose build is measured next to the working tree's on every path, in the same rounds. */
  against?: string;
  /** Also measure other gateways (bench/peers.ts), installed into a temporary directory; off by default. */
  peers: boolean;
  /** Rewrite the run's block in docs/performance.md from this run (bench/docs-block.ts). */
  writeDocs: boolean;
  /** The secrets guardrail's mode on this build's router (`guardrails.secrets`); off when not given. */
  guardrail?: 'warn' | 'mask' | 'refuse';
}

const USAGE = `usage: npm run bench -- [--quick] [--only PATH[,PATH…]] [--streams N] [--rounds N] [--seconds S] [--against REF]
  --quick        1 round, 2 s per measurement
  --only PATH    e.g. chat->openai-chat (repeatable); paths: ${PATHS.map((path) => path.name).join(', ')}
  --streams N    concurrent slow streams for the memory / event-loop test (default 1000; 0 skips)
  --stream-rounds N  rounds of those streams on one router, RSS after each (default 3)
  --memory-only  only the memory tests: one 50 MiB answer and one 16 MiB event per client format, and the slow-stream rounds
  --rounds N     rounds per measurement (default 2; the median is reported)
  --seconds S    seconds per throughput measurement (default 5)
  --load NAME    wrk or autocannon (default: wrk, installed with apt-get as root; else autocannon)
  --peers        also measure other gateways, npm-installed into a temporary directory: Portkey's gateway
                 on chat->openai-chat, claude-code-router on messages->openai-chat; a row each with
                 its ratio to the bare proxy and to svc-router on the same path
  --write-docs   rewrite the run block in docs/performance.md from this run (a full run: not with
                 --quick, --only or --memory-only)
  --against REF  also measure the router built from git REF (temporary worktree), alternating with
                 this one in every round; default rounds 3 (--quick) or 4, at least 2
  --guardrail MODE  turn the secrets guardrail on (warn, mask or refuse) on this build's router, to
                 measure what it costs (the bench's requests hold no credential, as most do not)`;

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string', multiple: true, default: [] },
      streams: { type: 'string', default: '1000' },
      'stream-rounds': { type: 'string' },
      'memory-only': { type: 'boolean', default: false },
      rounds: { type: 'string' },
      seconds: { type: 'string' },
      load: { type: 'string' },
      against: { type: 'string' },
      peers: { type: 'boolean', default: false },
      'write-docs': { type: 'boolean', default: false },
      guardrail: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const only = values.only.flatMap((value) => value.split(',')).map((name) => name.trim()).filter(Boolean);
  for (const name of only) {
    if (!PATHS.some((path) => path.name === name)) throw new Error(`unknown path '${name}'\n${USAGE}`);
  }
  if (values.load !== undefined && values.load !== 'wrk' && values.load !== 'autocannon') throw new Error(`--load: wrk or autocannon, got '${values.load}'\n${USAGE}`);
  const guardrail = values.guardrail;
  if (guardrail !== undefined && guardrail !== 'warn' && guardrail !== 'mask' && guardrail !== 'refuse') throw new Error(`--guardrail: warn, mask or refuse, got '${guardrail}'\n${USAGE}`);
  const seconds = number(values.seconds, values.quick ? 2 : 5, '--seconds');
  const against = values.against?.trim();
  if (values.against !== undefined && !against) throw new Error(`--against expects a git ref\n${USAGE}`);
  // Comparing with a baseline needs the ratio's spread between rounds, so at least two rounds.
  const rounds = number(values.rounds, against ? (values.quick ? 3 : 4) : values.quick ? 1 : 2, '--rounds');
  if (against && rounds < 2) throw new Error(`--against needs --rounds 2 or more: a path is slower only beyond the spread between rounds\n${USAGE}`);
  if (against && values['memory-only']) throw new Error(`--against compares req/s and CPU per path; --memory-only measures neither\n${USAGE}`);
  // The page shows the run the targets are judged on: every path, every measurement, the default rounds or more.
  if (values['write-docs'] && (values.quick || only.length || values['memory-only'])) throw new Error(`--write-docs puts a full run into docs/performance.md: drop --quick, --only and --memory-only\n${USAGE}`);
  return {
    quick: values.quick,
    rounds,
    seconds,
    latencySeconds: values.quick ? 0.5 : 1,
    only,
    streams: number(values.streams, 1000, '--streams'),
    streamRounds: Math.max(1, number(values['stream-rounds'], 3, '--stream-rounds')),
    memoryOnly: values['memory-only'],
    peers: values.peers,
    writeDocs: values['write-docs'],
    ...(values.load ? { load: values.load } : {}),
    ...(against ? { against } : {}),
    ...(guardrail ? { guardrail } : {}),
  };
}

function number(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`${name} expects a number ≥ 0, got '${value}'\n${USAGE}`);
  return parsed;
}
