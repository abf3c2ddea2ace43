import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { DAY_MS } from '../../src/usage/ledger.js';

const REDIS_BINARY = 'redis-server';
export const redisAvailable = spawnSync(REDIS_BINARY, ['--version'], { stdio: 'ignore' }).status === 0;

export interface DurableRedis {
  port: number;
  url: string;
  /** SIGKILL: no save, no goodbye; what the append-only file holds comes back on the next start. */
  kill(): Promise<void>;
  /** Saves and exits. */
  stop(): Promise<void>;
}

/**
 * Starts redis-server on `port` with an append-only file in `dir`, synced on every write, as a
 * Redis that must not lose acknowledged writes would run: a SIGKILL then loses nothing Redis
 * answered, and may keep writes whose answer never left. Resolves once it accepts connections.
 */
export async function startDurableRedis(port: number, dir: string): Promise<DurableRedis> {
  const child: ChildProcess = spawn(
    REDIS_BINARY,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
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
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const client = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      await client.connect();
      await client.call('SHUTDOWN', 'SAVE').catch(() => undefined);
      client.disconnect();
      await exited;
    },
  };
}

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
