import fs from 'node:fs';
import path from 'node:path';
import { ConfigStore } from '../config/store.js';
import { displayRedisStore } from '../core/redis-store.js';
import { writeFileAtomic } from '../files/atomic-write.js';
import { describeAt } from '../files/broken-file.js';
import { positionOfPath, readJsonText, type TextProblem } from '../files/json-text.js';
import { fileStamp } from '../files/last-good-file.js';
import type { OutputTarget } from './output-target.js';
import { warn } from './output.js';

/**
 * What a running `serve` leaves in the config directory, so that other commands (`status`,
 * `stop`, and later `env`, `connect`, `doctor`) can find it: written once the server listens,
 * removed when it exits. A file whose process is gone (the server was killed with SIGKILL, or
 * the machine restarted) is stale.
 */
export interface ServerState {
  pid: number;
  /** The address actually bound (after resolving --host, and the real port for --port 0). */
  host: string;
  port: number;
  /** The origin clients dial, e.g. http://127.0.0.1:8787 (a wildcard bind is reached on loopback). */
  url: string;
  /** Where usage is recorded: 'file' or a redis:// URL without its password. */
  usageStore: string;
  /**
   * The redis:// URL as serve opened it (password included: the file is 0600, as config.json),
   * so that in-process quick checks read the same usage. Absent for the file store.
   */
  usageStoreUrl?: string;
  /** ISO 8601 time the server started listening. */
  startedAt: string;
  /** serve's own arguments (without --detach), so `restart` starts the same server. */
  argv?: string[];
  /** The directory serve ran in: relative paths among `argv` mean files there. */
  cwd?: string;
  /** Where its output goes (`--log-file`), when not to the terminal. */
  logFile?: string;
  /** Where its standard output went when it started (a terminal, a shell's `> FILE`, a pipe). */
  output?: OutputTarget;
  /** The certificate and key it serves HTTPS with. */
  tls?: { cert: string; key: string };
  /** Started in the background (`serve --detach` or `restart`). */
  detached?: boolean;
  /** The declarative file in force over config.json (absolute), from --config or SVC_ROUTER_CONFIG: what other commands read too. */
  config?: string;
  /**
   * The variables its settings read upstream keys and the sealing secret from, by name only (never
   * a value): those set when it started, and those not. `restart` from a shell that lacks one of
   * `set` refuses; `doctor` tells a key this shell lacks from one the server lacks. `all` names
   * every variable set in its environment: that environment is fixed when it starts, so a backend
   * added later is judged by it, not by the shell that added it.
   */
  environment?: { set: string[]; unset: string[]; all?: string[] };
}

export type ServerLookup =
  | { status: 'running'; state: ServerState; file: string }
  /** A file was there but its process has gone; lookups remove it unless asked not to. */
  | { status: 'stale'; state: ServerState; file: string }
  | { status: 'none'; file: string };

const SERVER_STATE_FILE = 'serve.json';

/** The state file's path, in `dir` or the config directory (SVC_ROUTER_HOME, else the platform's). */
export function serverStatePath(dir?: string): string {
  return path.join(dir ?? new ConfigStore().dir, SERVER_STATE_FILE);
}

/** Records this process as the running server (atomically: readers never see half a file). */
export function writeServerState(state: ServerState, dir?: string): string {
  const file = serverStatePath(dir);
  writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  return file;
}

/**
 * Records this process as the running server unless another live one already has: the file is
 * created whole and only if absent (a hard link of a complete temporary file), so of two serves
 * starting at once exactly one wins. A file whose process has gone is replaced. Returns the other
 * server when there is one, and writes nothing then.
 */
export function claimServerState(state: ServerState, dir?: string): ServerState | undefined {
  const file = serverStatePath(dir);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        fs.linkSync(temporary, file);
        return undefined;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // A file system without hard links: replace it, as writeServerState does.
        if (code !== 'EEXIST') {
          fs.renameSync(temporary, file);
          return undefined;
        }
      }
      const found = findServer({ dir, clean: false });
      if (found.status === 'running' && found.state.pid !== process.pid) return found.state;
      // A dead server's file (only if it still names that server), or one nobody can read: take its place.
      if (found.status !== 'none') removeServerState(found.state.pid, dir);
      else if (fs.existsSync(file)) fs.rmSync(file, { force: true });
    }
    fs.renameSync(temporary, file);
    return undefined;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

/**
 * Finds the server a state file describes and whether its process still runs. A stale file is
 * removed (pass `{ clean: false }` to leave it). One that is not valid counts as none, and is
 * named once (file, line, column): serve writes a new one when it starts.
 */
export function findServer(options: { dir?: string; clean?: boolean } = {}): ServerLookup {
  const file = serverStatePath(options.dir);
  const state = readStateFile(file);
  if (!state) return { status: 'none', file };
  if (isProcessAlive(state.pid)) return { status: 'running', state, file };
  if (options.clean !== false) removeServerState(state.pid, options.dir);
  return { status: 'stale', state, file };
}

/** The running serve of this config directory, if any (an unreadable config directory counts as none: doctor reports it). */
export function runningServe(): ServerState | undefined {
  try {
    const found = findServer();
    return found.status === 'running' ? found.state : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the state file if it still names `pid` (a newer server's file is left alone). */
export function removeServerState(pid: number, dir?: string): void {
  const file = serverStatePath(dir);
  if (readStateFile(file)?.pid !== pid) return;
  try {
    fs.unlinkSync(file);
  } catch {
    // already gone
  }
}

/**
 * Whether a process with this id runs (one owned by another user counts). An exited process
 * that nobody has reaped yet (a zombie, on Linux) does not.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // /proc/PID/stat: "PID (COMMAND) STATE …"; the command may itself contain ') '.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc here: the signal check is all there is
  }
}

/** A usage store as it may be shown: a Redis URL (redis://, redis-sentinel://…) loses its password. */
export const displayUsageStore = (store: string): string => (store === 'file' ? store : displayRedisStore(store));

function readStateFile(file: string): ServerState | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const reading = readJsonText(text);
  const problem = reading.ok ? stateProblem(text, reading.value) : reading.problem;
  if (!problem) return reading.ok ? (reading.value as ServerState) : undefined;
  const stamp = fileStamp(file);
  if (TOLD.get(file) !== stamp) warn(`${describeAt(file, problem)}; taken as no running server (serve writes a new one when it starts)`);
  TOLD.set(file, stamp);
  return undefined;
}

/** Versions of a state file already said to be broken, by file: each is told once per process. */
const TOLD = new Map<string, string>();

function stateProblem(text: string, value: unknown): TextProblem | undefined {
  const at = (path: string[], message: string): TextProblem => ({ ...positionOfPath(text, path), message });
  if (!value || typeof value !== 'object' || Array.isArray(value)) return at([], 'expected the running server (an object)');
  const state = value as Partial<Record<keyof ServerState, unknown>>;
  if (!Number.isSafeInteger(state.pid) || (state.pid as number) <= 0) return at(['pid'], 'pid: expected a process id');
  if (typeof state.url !== 'string') return at(['url'], 'url: expected the address clients dial');
  for (const field of ['host', 'usageStore', 'usageStoreUrl', 'startedAt', 'cwd', 'logFile'] as const) {
    if (state[field] !== undefined && typeof state[field] !== 'string') return at([field], `${field}: expected text`);
  }
  if (state.port !== undefined && !Number.isSafeInteger(state.port)) return at(['port'], 'port: expected a port number');
  if (state.argv !== undefined && !(Array.isArray(state.argv) && state.argv.every((arg) => typeof arg === 'string'))) return at(['argv'], 'argv: expected a list of arguments');
  const tls = state.tls as Record<string, unknown> | undefined;
  if (tls !== undefined && (typeof tls !== 'object' || tls === null || typeof tls.cert !== 'string' || typeof tls.key !== 'string')) return at(['tls'], 'tls: expected { "cert": …, "key": … }');
  return undefined;
}
