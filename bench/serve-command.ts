import { spawnSync } from 'node:child_process';

/** `serve --port 0`, plus `--quiet` when this build has it: a request log would be charged to the router. */
export function serveArgs(bin: string): string[] {
  const help = spawnSync(process.execPath, [bin, 'serve', '--help'], { encoding: 'utf8' }).stdout ?? '';
  return ['serve', '--port', '0', ...(help.includes('--quiet') ? ['--quiet'] : [])];
}
