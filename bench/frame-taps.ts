import { spawnSync } from 'node:child_process';
import { SUT_CPU, type Pinning } from './cpu-pinning.js';
import { median, spreadPct } from './stats.js';

/**
 * What the same-format taps cost per frame: each forwarded frame is checked (one JSON object, the
 * event's type) and read (usage, output) by its upstream's tap, in the router's process. Measured
 * in-process on the built taps, pinned to the router's CPU, in CPU time, with JSON.parse of the
 * same frame beside it; with `--against`, the ref's taps in the same process, in alternating blocks.
 */
export interface FrameTapRow {
  frame: string;
  bytes: number;
  /** CPU ns for the tap to read one frame (median over rounds) */
  tap_ns: number;
  tap_spread_pct: number;
  /** the frame check alone (core/json-check.ts), where the build has it */
  check_ns: number;
  /** JSON.parse of the same frame, for scale */
  parse_ns: number;
  baseline?: { tap_ns: number; x_base: number; x_base_spread_pct: number };
}

interface ChildRow {
  frame: string;
  bytes: number;
  /** per build, in the order given; null where the build has no such tap */
  tap_ns: Array<number | null>;
  check_ns: number | null;
  parse_ns: number;
}

export function measureFrameTaps(options: { entry: string; dist: string; baseDist?: string; rounds: number; pinning: Pinning }, log: (line: string) => void): FrameTapRow[] {
  const command = [...options.pinning.prefix(SUT_CPU), process.execPath, options.entry, options.dist, ...(options.baseDist ? [options.baseDist] : [])];
  const rounds: ChildRow[][] = [];
  for (let round = 0; round < options.rounds; round++) {
    log(`per-frame taps, round ${round + 1}/${options.rounds}…`);
    const result = spawnSync(command[0]!, command.slice(1), { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`frame taps failed: ${result.stderr}`);
    rounds.push(JSON.parse(result.stdout) as ChildRow[]);
  }
  const value = (n: number | null | undefined) => (n === null || n === undefined ? NaN : n);
  return rounds[0]!.map((row, i) => {
    const taps = rounds.map((round) => value(round[i]!.tap_ns[0]));
    const result: FrameTapRow = {
      frame: row.frame,
      bytes: row.bytes,
      tap_ns: median(taps),
      tap_spread_pct: spreadPct(taps),
      check_ns: median(rounds.map((round) => value(round[i]!.check_ns))),
      parse_ns: median(rounds.map((round) => value(round[i]!.parse_ns))),
    };
    if (options.baseDist) {
      const base = rounds.map((round) => value(round[i]!.tap_ns[1]));
      // Paired by round: the ref's CPU per frame ÷ this build's (above 1: this build is cheaper).
      const ratios = base.map((ns, r) => ns / taps[r]!);
      result.baseline = { tap_ns: median(base), x_base: median(ratios), x_base_spread_pct: spreadPct(ratios) };
    }
    return result;
  });
}
