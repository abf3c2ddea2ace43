import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { Redis } from 'ioredis';
import { findFreePort } from './ports.js';

export interface RedisServer {
  url: string;
  /** Request ids the shared ledger has counted (each marked once, by the Lua script that applies it). */
  appliedRequestIds(): Promise<Set<string>>;
  stop(): Promise<void>;
}

/** The shared ledger's per-request mark (src/usage/redis-ledger.ts appliedKey). */
const APPLIED_PREFIX = 'svc-router:applied:';

/** Every request id the ledger marked as counted (its once-keys), read with SCAN so a large set does not block the server. */
export async function appliedRequestIds(client: Redis): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${APPLIED_PREFIX}*`, 'COUNT', 1000);
    for (const key of keys) ids.add(key.slice(APPLIED_PREFIX.length));
    cursor = next;
  } while (cursor !== '0');
  return ids;
}

/** A throwaway redis-server on a free loopback port, without persistence. */
export async function startRedis(): Promise<RedisServer> {
  const port = await findFreePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (/Ready to accept connections/.test(line)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready`)));
  });
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
  await client.connect();
  return {
    url: `redis://127.0.0.1:${port}`,
    appliedRequestIds: () => appliedRequestIds(client),
    async stop() {
      client.disconnect();
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
