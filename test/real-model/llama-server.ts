import { spawn } from 'node:child_process';
import { once } from 'node:events';

/** A running `llama-server`, on 127.0.0.1 at a port it chose. */
export interface LlamaServer {
  /** http://127.0.0.1:PORT */
  origin: string;
  /** From spawn to the server saying it listens with the model loaded. */
  startupMs: number;
  /** Slots (parallel sequences) and the context each one has. */
  slots: number;
  slotContext: number;
  /** The last of what it logged (stderr), for failure messages. */
  log(): string;
  /** Ends it at once (SIGKILL), as a crash would. */
  kill(): Promise<void>;
  close(): Promise<void>;
}

export interface LlamaServerOptions {
  model: string;
  /** The whole context, shared out between the slots (`-c`). */
  context?: number;
  slots?: number;
  extraArgs?: string[];
}

const LOG_KEPT = 64 * 1024;
const START_TIMEOUT_MS = 60_000;

/**
 * Starts `llama-server` on port 0 with one thread, the Jinja template engine (tool calls), the
 * given context and slots, and Prometheus metrics; resolves once it says where it listens, which it
 * does only after the model has loaded.
 */
export async function startLlamaServer(binary: string, options: LlamaServerOptions): Promise<LlamaServer> {
  const slots = options.slots ?? 2;
  const context = options.context ?? 4096;
  const args = ['-m', options.model, '--host', '127.0.0.1', '--port', '0', '-t', '1', '--jinja', '-c', String(context), '-np', String(slots), '--no-webui', '--metrics', '--no-warmup', ...(options.extraArgs ?? [])];
  const started = performance.now();
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const append = (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-LOG_KEPT);
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  const exited = once(child, 'exit');

  const origin = await new Promise<string>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => fail(new Error(`llama-server did not start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${error.message}\n${args.join(' ')}\n--- log ---\n${log.slice(-4000)}`));
    };
    const look = () => {
      const listening = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(log);
      if (!listening || settled) return;
      settled = true;
      clearTimeout(timer);
      child.stderr!.off('data', look);
      child.stdout!.off('data', look);
      resolve(listening[1]!);
    };
    child.stderr!.on('data', look);
    child.stdout!.on('data', look);
    void exited.then(([code, signal]) => fail(new Error(`llama-server exited (${signal ?? `code ${code}`}) before listening`)));
  });
  const startupMs = performance.now() - started;

  const stop = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    await exited;
  };
  return {
    origin,
    startupMs,
    slots,
    slotContext: Math.floor(context / slots),
    log: () => log,
    kill: () => stop('SIGKILL'),
    close: () => stop('SIGTERM'),
  };
}

/** The server's own slots (GET /slots): which are busy. */
export async function busySlots(server: LlamaServer): Promise<number[]> {
  const response = await fetch(`${server.origin}/slots`);
  const slots = (await response.json()) as Array<{ id: number; is_processing: boolean }>;
  return slots.filter((slot) => slot.is_processing).map((slot) => slot.id);
}
