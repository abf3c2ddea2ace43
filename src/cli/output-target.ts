import fs from 'node:fs';

/** Where a process's standard output goes: what `status` says of a running serve. */
export interface OutputTarget {
  to: 'terminal' | 'file' | 'pipe' | 'socket' | 'discarded';
  /** The file's path, where the system says it (Linux's /proc). */
  path?: string;
}

/** This process's standard output, read from the descriptor itself (a shell's `> serve.log`, a service manager's journal, a terminal). */
export function outputTarget(): OutputTarget | undefined {
  if (process.stdout.isTTY) return { to: 'terminal' };
  let stat: fs.Stats;
  try {
    stat = fs.fstatSync(1);
  } catch {
    return undefined;
  }
  if (stat.isFile()) {
    try {
      return { to: 'file', path: fs.readlinkSync('/proc/self/fd/1') };
    } catch {
      return { to: 'file' };
    }
  }
  if (stat.isFIFO()) return { to: 'pipe' };
  if (stat.isSocket()) return { to: 'socket' };
  // A character device that is no terminal: /dev/null.
  if (stat.isCharacterDevice()) return { to: 'discarded' };
  return undefined;
}

/** `in a terminal`, `output to /var/log/serve.log`: how status names it. */
export function describeOutput(target: OutputTarget | undefined): string | undefined {
  switch (target?.to) {
    case 'terminal':
      return 'in a terminal';
    case 'file':
      return `output to ${target.path ?? 'a file'}`;
    case 'pipe':
      return 'output to a pipe';
    case 'socket':
      return "output to a socket (a service manager's journal, say)";
    case 'discarded':
      return 'output discarded';
    default:
      return undefined;
  }
}
