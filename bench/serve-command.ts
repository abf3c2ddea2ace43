import { spawnSync } from 'node:child_process';

/**
 * `serve --port 0`, plus `--quiet` when every build given has it: a request log would be charged to
 * the router. With a baseline build, both routers get only the flags both understand.
 */
export function serveArgs(...bins: string[]): string[] {
  const quiet = bins.every((bin) => (spawnSync(process.execPath, [bin, 'serve', '--help'], { encoding: 'utf8' }).stdout ?? '').includes('--quiet'));
  return ['serve', '--port', '0', ...(quiet ? ['--quiet'] : [])];
}
