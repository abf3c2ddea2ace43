import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./router-process.ts', import.meta.url));

export interface RouterProcess {
  child: ChildProcess;
  origin: string;
  exited: Promise<unknown>;
  /** Everything the router wrote to stderr so far. */
  stderr(): string;
}

/** Every router process started here, so a suite's afterAll can make sure none outlives it. */
export const routerChildren: ChildProcess[] = [];

/** Starts a router process on `home` (router-process.ts) and resolves once it listens. */
export async function startRouterProcess(home: string, usageStore: string): Promise<RouterProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, home, usageStore], { stdio: ['ignore', 'pipe', 'pipe'] });
  routerChildren.push(child);
  const exited = once(child, 'exit');
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the router did not start within 20 s:\n${stderr}`)), 20_000);
    lines.on('line', (line) => {
      const match = /^listening (\d+)$/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the router exited (${code}) before it listened:\n${stderr}`));
    });
  });
  return { child, origin: `http://127.0.0.1:${port}`, exited, stderr: () => stderr };
}

/** SIGKILLs every router process still running. */
export function killRouterProcesses(): void {
  for (const child of routerChildren) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
