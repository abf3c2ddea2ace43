import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { DAY_MS } from '../../src/usage/ledger.js';

const REDIS_BINARY = 'redis-server';
export const redisAvailable = spawnSync(REDIS_BINARY, ['--version'], { stdio: 'ignore' }).status === 0;

export interface RedisServer {
  port: number;
  url: string;
  /** SIGKILL: no save, no goodbye; what the append-only file holds (if any) comes back on the next start. */
  kill(): Promise<void>;
  /** Saves the data set to its directory and exits (the data comes back on the next start). */
  stop(): Promise<void>;
  /** Freezes the process (SIGSTOP): connections stay open but nothing is answered. */
  pause(): void;
  resume(): void;
}

/** A Redis started with `durable: true`. */
export type DurableRedis = RedisServer;

/**
 * Starts redis-server on `port`, with its data directory `dir`; resolves once it accepts
 * connections. `durable` adds an append-only file synced on every write, as a Redis that must not
 * lose acknowledged writes would run: a SIGKILL then loses nothing Redis answered, and may keep
 * writes whose answer never left.
 */
export async function startRedis(port: number, dir: string, options: { durable?: boolean } = {}): Promise<RedisServer> {
  const persistence = options.durable ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
  const child: ChildProcess = spawn(REDIS_BINARY, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start within 10 s:\n${output}`)), 10_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`));
    });
  });
  child.stdout!.resume();
  child.stderr!.resume();
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async kill() {
      if (gone()) return;
      child.kill('SIGKILL');
      await exited;
    },
    pause() {
      child.kill('SIGSTOP');
    },
    resume() {
      child.kill('SIGCONT');
    },
    async stop() {
      if (gone()) return;
      child.kill('SIGCONT');
      const client = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      await client.connect();
      // The connection closes as the server exits, so the reply may never come.
      await client.call('SHUTDOWN', 'SAVE').catch(() => undefined);
      client.disconnect();
      await exited;
    },
  };
}

/** A Redis that keeps every acknowledged write across a SIGKILL (see startRedis). */
export const startDurableRedis = (port: number, dir: string): Promise<RedisServer> => startRedis(port, dir, { durable: true });

/** What Redis holds for a developer today: input + output tokens and requests. */
export async function storedInRedis(port: number, developer: string): Promise<{ tokens: number; requests: number }> {
  const client = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await client.connect();
    const day = Math.floor(Date.now() / DAY_MS);
    const [input, output, requests] = await client.hmget(`svc-router:usage:${developer}:${day}`, 'in', 'out', 'n');
    return { tokens: Number(input ?? 0) + Number(output ?? 0), requests: Number(requests ?? 0) };
  } finally {
    client.disconnect();
  }
}
