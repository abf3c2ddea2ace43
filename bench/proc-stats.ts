import fs from 'node:fs';
import { spawnSync } from 'node:child_process';

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    const answer = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim());
    ticksPerSecond = Number.isFinite(answer) && answer > 0 ? answer : 100;
  }
  return ticksPerSecond;
}

/** CPU time (user + system, all threads) a process has used so far, in microseconds, from /proc/PID/stat. */
export function cpuMicros(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name: state is the first, utime the 12th, stime the 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks / clockTicks()) * 1e6;
}

/** Resident set size in MB (VmRSS from /proc/PID/status). */
export function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1]);
  return kb / 1024;
}

/** Time one CPU has spent busy (anything but idle and iowait, steal included), in microseconds, from /proc/stat. */
export function cpuBusyMicros(cpu: number): number {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n').find((text) => text.startsWith(`cpu${cpu} `));
  if (!line) return NaN;
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return ((user! + nice! + system! + irq! + softirq! + (steal ?? 0)) / clockTicks()) * 1e6;
}
