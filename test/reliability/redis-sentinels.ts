import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { Redis } from 'ioredis';
import { unusedPort } from '../helpers/unused-port.js';

/** Debian ships Sentinel as its own package (redis-sentinel); the binary is redis-server in sentinel mode. */
export const sentinelAvailable = ['redis-server', 'redis-sentinel'].every((binary) => spawnSync(binary, ['--version'], { stdio: 'ignore' }).status === 0);

/** The name the sentinels monitor the primary by. */
export const MASTER = 'main';

interface Process {
  port: number;
  child: ChildProcess;
  /** Resolves at the first line of its log that matches; rejects if it exits first or `ms` pass. */
  line(pattern: RegExp, ms?: number): Promise<string>;
  /** How many lines so far matched. */
  count(pattern: RegExp): number;
  kill(): Promise<void>;
}

/** Starts a Redis process, its log on stdout, kept line by line so a test waits for what it logs (never for time). */
function startProcess(binary: string, args: string[], port: number): Process {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiting = new Set<() => void>();
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const wake of waiting) wake();
  });
  child.stderr!.resume();
  const exited = once(child, 'exit');
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  return {
    port,
    child,
    line(pattern, ms = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find((line) => pattern.test(line));
          if (found !== undefined) return done(() => resolve(found));
          if (gone()) return done(() => reject(new Error(`${binary} on ${port} exited before logging ${pattern}:\n${lines.join('\n')}`)));
        };
        const timer = setTimeout(() => done(() => reject(new Error(`${binary} on ${port} did not log ${pattern} within ${ms} ms:\n${lines.slice(-30).join('\n')}`))), ms);
        const done = (then: () => void) => {
          clearTimeout(timer);
          waiting.delete(check);
          child.off('exit', check);
          then();
        };
        waiting.add(check);
        child.on('exit', check);
        check();
      });
    },
    count: (pattern) => lines.filter((line) => pattern.test(line)).length,
    async kill() {
      if (gone()) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface SentinelSet {
  /** redis-sentinel://127.0.0.1:S1,127.0.0.1:S2,127.0.0.1:S3/main */
  url: string;
  primary: Process;
  replica: Process;
  sentinels: Process[];
  /**
   * Makes the replica fall behind, as a replica whose link dropped does: it is frozen (SIGSTOP) and
   * the primary drops its link, so writes from now on reach the primary alone. Left frozen for
   * less than the sentinels' 1 s, so they still count it healthy.
   */
  cutReplicaLink(): Promise<void>;
  /** SIGKILLs the primary, then thaws the replica if it was frozen; resolves with the milliseconds until a sentinel announced the promotion (+switch-master). */
  killPrimary(): Promise<{ failoverMs: number; promotedPort: number }>;
  /**
   * Starts the killed primary again on its port as a replica of the promoted one, as an
   * orchestrator does (it asks a sentinel for the primary first): started as it was, without
   * persistence, it would be an empty primary until the sentinels noticed it, and take writes.
   */
  restartOldPrimary(): Promise<void>;
  /** A connection to whichever server the sentinels name as primary now. */
  connectPrimary(): Promise<Redis>;
  close(): Promise<void>;
}

const serverArgs = (port: number, dir: string): string[] => ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'no'];

/**
 * A primary, one replica and three sentinels (quorum 2), each on a free port with its files in
 * `dir`. Resolves once the replica is in sync and every sentinel knows the replica and the two
 * other sentinels, which is what a failover needs (sentinels find each other through the
 * primary's hello channel, every 2 s). The sentinels call a primary down after 1 s of silence.
 */
export async function startSentinelSet(dir: string): Promise<SentinelSet> {
  const primaryPort = await unusedPort();
  const replicaPort = await unusedPort();
  const primaryDir = fs.mkdtempSync(path.join(dir, 'primary-'));
  let primary = startProcess('redis-server', serverArgs(primaryPort, primaryDir), primaryPort);
  await primary.line(/Ready to accept connections/);
  const replica = startProcess('redis-server', [...serverArgs(replicaPort, fs.mkdtempSync(path.join(dir, 'replica-'))), '--replicaof', '127.0.0.1', String(primaryPort)], replicaPort);
  await replica.line(/MASTER <-> REPLICA sync: Finished with success/);

  const sentinels: Process[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await unusedPort();
    const home = fs.mkdtempSync(path.join(dir, `sentinel-${i}-`));
    const file = path.join(home, 'sentinel.conf');
    // Sentinel rewrites its own file (what it learns), so each has a writable one.
    fs.writeFileSync(
      file,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        'protected-mode no',
        `dir ${home}`,
        `sentinel monitor ${MASTER} 127.0.0.1 ${primaryPort} 2`,
        `sentinel down-after-milliseconds ${MASTER} 1000`,
        `sentinel failover-timeout ${MASTER} 5000`,
        `sentinel parallel-syncs ${MASTER} 1`,
        '',
      ].join('\n'),
    );
    sentinels.push(startProcess('redis-sentinel', [file], port));
  }
  await Promise.all(sentinels.map((sentinel) => sentinel.line(new RegExp(`\\+monitor master ${MASTER} `))));
  await Promise.all(sentinels.map((sentinel) => sentinel.line(new RegExp(`\\+slave slave 127\\.0\\.0\\.1:${replicaPort} `))));
  for (const sentinel of sentinels) {
    const others = sentinels.filter((other) => other !== sentinel);
    await Promise.all(others.map((other) => sentinel.line(new RegExp(`\\+sentinel sentinel \\S+ 127\\.0\\.0\\.1 ${other.port} `))));
  }

  const set: SentinelSet = {
    url: `redis-sentinel://${sentinels.map((sentinel) => `127.0.0.1:${sentinel.port}`).join(',')}/${MASTER}`,
    primary,
    replica,
    sentinels,
    async cutReplicaLink() {
      replica.child.kill('SIGSTOP');
      const client = new Redis({ port: primaryPort, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
      await client.connect();
      try {
        await client.call('CLIENT', 'KILL', 'TYPE', 'replica');
      } finally {
        client.disconnect();
      }
    },
    async killPrimary() {
      const killedAt = performance.now();
      await primary.kill();
      replica.child.kill('SIGCONT');
      const line = await Promise.any(sentinels.map((sentinel) => sentinel.line(new RegExp(`\\+switch-master ${MASTER} `), 30_000)));
      const failoverMs = performance.now() - killedAt;
      return { failoverMs, promotedPort: Number(line.trim().split(/\s+/).at(-1)) };
    },
    async restartOldPrimary() {
      const client = new Redis({ port: sentinels[0]!.port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
      await client.connect();
      const [host, port] = (await client.call('SENTINEL', 'get-master-addr-by-name', MASTER)) as [string, string];
      client.disconnect();
      primary = startProcess('redis-server', [...serverArgs(primaryPort, primaryDir), '--replicaof', host, port], primaryPort);
      set.primary = primary;
      await primary.line(/MASTER <-> REPLICA sync: Finished with success/, 30_000);
    },
    async connectPrimary() {
      const client = new Redis({ sentinels: sentinels.map((sentinel) => ({ host: '127.0.0.1', port: sentinel.port })), name: MASTER, lazyConnect: true, maxRetriesPerRequest: 2 });
      await client.connect();
      return client;
    },
    async close() {
      replica.child.kill('SIGCONT');
      await Promise.all([...sentinels, replica, set.primary].map((process) => process.kill()));
    },
  };
  return set;
}
