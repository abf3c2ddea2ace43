import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import readline from 'node:readline';

export interface Server {
  name: string;
  pid: number;
  /** http://127.0.0.1:PORT */
  origin: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export interface StartOptions {
  name: string;
  command: string[];
  env?: NodeJS.ProcessEnv;
  /** Adds an IPC channel (the child can then use process.send). */
  ipc?: boolean;
  /** A stdout line that carries the listening port in its first group. */
  ready?: RegExp;
  /** For a server that prints no such line: ready once this port on 127.0.0.1 accepts a connection. */
  port?: number;
}

const PORT_POLL_MS = 50;

const READY_LINE = /^READY (\d+)$/;
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5_000;

const running = new Set<ChildProcess>();
// Never leave a server behind, however the bench ends.
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

/** Spawns a server process and waits for the line that says which port it listens on. */
export function startServer(options: StartOptions): Promise<Server> {
  const [file, ...args] = options.command;
  const child = spawn(file!, args, {
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe', ...(options.ipc ? (['ipc'] as const) : [])],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const pattern = options.ready ?? READY_LINE;

  return new Promise((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => fail(new Error(`${options.name} did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    const onExit = (code: number | null) => fail(new Error(`${options.name} exited (${code}) before listening:\n${stderr}`));
    child.once('exit', onExit);
    child.once('error', (error) => fail(error));
    // Keep draining stdout after the ready line so the child never blocks on a full pipe.
    const lines = readline.createInterface({ input: child.stdout! });
    if (options.port === undefined) {
      lines.on('line', (line) => {
        const port = pattern.exec(line)?.[1];
        if (port !== undefined) ready(Number(port));
      });
    } else {
      lines.on('line', () => {});
      const port = options.port;
      const probe = () => {
        if (settled) return;
        const socket = net.connect(port, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          ready(port);
        });
        socket.once('error', () => {
          socket.destroy();
          setTimeout(probe, PORT_POLL_MS);
        });
      };
      probe();
    }
    function ready(port: number) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve({ name: options.name, pid: child.pid!, origin: `http://127.0.0.1:${port}`, child, stop: () => stop(child) });
    }
    function fail(error: Error) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    }
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
