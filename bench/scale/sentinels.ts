import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { Redis } from 'ioredis';
import { findFreePort } from './ports.js';
import { appliedRequestIds, type RedisServer } from './redis.js';

const MASTER = 'main';

interface Proc {
  port: number;
  child: ChildProcess;
  /** Resolves once `count` lines of its log match (default: the first). */
  line(pattern: RegExp, count?: number): Promise<void>;
  kill(): Promise<void>;
}

/** A Redis process whose log (stdout) is waited on line by line. */
function start(binary: string, args: string[], port: number): Proc {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const wake of waiters) wake();
  });
  return {
    port,
    child,
    line: (pattern, count = 1) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => finish(() => reject(new Error(`${binary} on ${port} did not log ${pattern}`))), 30_000);
        const check = () => {
          if (lines.filter((line) => pattern.test(line)).length >= count) finish(resolve);
        };
        const finish = (then: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          then();
        };
        waiters.add(check);
        check();
      }),
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface SentinelRedis extends RedisServer {
  /** SIGKILLs whichever server is primary now; resolves with the seconds until a sentinel announced the promotion. */
  killPrimary(): Promise<number>;
  /** Starts the killed server again as a replica of the new primary (as an orchestrator does). */
  restartKilled(): Promise<void>;
}

const serverArgs = (port: number, dir: string) => ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'no'];

/**
 * `npm run scale -- --ha`: a primary, a replica and three sentinels (quorum 2, a primary is down
 * after 1 s of silence), ready once every sentinel knows the replica and the two others.
 */
export async function startSentinelRedis(workDir: string): Promise<SentinelRedis> {
  const servers: Proc[] = [];
  for (let i = 0; i < 2; i++) {
    const port = await findFreePort();
    const dir = fs.mkdtempSync(path.join(workDir, `redis-${i}-`));
    servers.push(start('redis-server', [...serverArgs(port, dir), ...(i ? ['--replicaof', '127.0.0.1', String(servers[0]!.port)] : [])], port));
    await servers[i]!.line(i ? /MASTER <-> REPLICA sync: Finished with success/ : /Ready to accept connections/);
  }
  const sentinels: Proc[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await findFreePort();
    const dir = fs.mkdtempSync(path.join(workDir, `sentinel-${i}-`));
    const file = path.join(dir, 'sentinel.conf');
    const conf = [`port ${port}`, 'bind 127.0.0.1', 'protected-mode no', `dir ${dir}`, `sentinel monitor ${MASTER} 127.0.0.1 ${servers[0]!.port} 2`, `sentinel down-after-milliseconds ${MASTER} 1000`, `sentinel failover-timeout ${MASTER} 5000`];
    fs.writeFileSync(file, `${conf.join('\n')}\n`);
    sentinels.push(start('redis-sentinel', [file], port));
  }
  for (const sentinel of sentinels) {
    await sentinel.line(new RegExp(`\\+slave slave 127\\.0\\.0\\.1:${servers[1]!.port} `));
    for (const other of sentinels.filter((s) => s !== sentinel)) await sentinel.line(new RegExp(`\\+sentinel sentinel \\S+ 127\\.0\\.0\\.1 ${other.port} `));
  }
  const addresses = sentinels.map((sentinel) => ({ host: '127.0.0.1', port: sentinel.port }));
  const client = new Redis({ sentinels: addresses, name: MASTER, lazyConnect: true, maxRetriesPerRequest: 20 });
  client.on('error', () => undefined);
  await client.connect();
  let killed: Proc | undefined;
  let switches = 0;

  const primaryPort = async (): Promise<number> => {
    const asker = new Redis({ port: sentinels[0]!.port, host: '127.0.0.1', lazyConnect: true });
    await asker.connect();
    const [, port] = (await asker.call('SENTINEL', 'get-master-addr-by-name', MASTER)) as [string, string];
    asker.disconnect();
    return Number(port);
  };

  return {
    url: `redis-sentinel://${addresses.map((address) => `127.0.0.1:${address.port}`).join(',')}/${MASTER}`,
    appliedRequestIds: () => appliedRequestIds(client),
    async killPrimary() {
      const port = await primaryPort();
      const victim = servers.find((server) => server.port === port)!;
      const started = performance.now();
      await victim.kill();
      killed = victim;
      switches++;
      // Each sentinel logs every switch; the n-th one is this failover's.
      await Promise.any(sentinels.map((sentinel) => sentinel.line(/\+switch-master /, switches)));
      return (performance.now() - started) / 1000;
    },
    async restartKilled() {
      if (!killed) return;
      const primary = await primaryPort();
      const again = start('redis-server', [...serverArgs(killed.port, fs.mkdtempSync(path.join(workDir, 'redis-again-'))), '--replicaof', '127.0.0.1', String(primary)], killed.port);
      servers[servers.indexOf(killed)] = again;
      killed = undefined;
      await again.line(/MASTER <-> REPLICA sync: Finished with success/);
    },
    async stop() {
      client.disconnect();
      await Promise.all([...sentinels, ...servers].map((proc) => proc.kill()));
    },
  };
}
