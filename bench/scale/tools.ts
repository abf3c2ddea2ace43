import { spawnSync } from 'node:child_process';

/** A program the scale test runs, and the Debian package that brings it. */
interface Tool {
  command: string;
  versionArgs: string[];
  aptPackage: string;
}

const TOOLS: Tool[] = [
  { command: 'nginx', versionArgs: ['-v'], aptPackage: 'nginx' },
  { command: 'redis-server', versionArgs: ['--version'], aptPackage: 'redis-server' },
  { command: 'wrk', versionArgs: ['--version'], aptPackage: 'wrk' },
  { command: 'openssl', versionArgs: ['version'], aptPackage: 'openssl' },
];
/** `--ha` adds Sentinel (Debian packages it apart from redis-server). */
const SENTINEL: Tool = { command: 'redis-sentinel', versionArgs: ['--version'], aptPackage: 'redis-sentinel' };

/** nginx lives in /usr/sbin, which a non-login root shell may not have on its PATH. */
const SEARCH_PATH = [process.env.PATH ?? '', '/usr/sbin', '/usr/local/sbin', '/sbin'].join(':');

const found = (tool: Tool): boolean => !spawnSync(tool.command, tool.versionArgs, { stdio: 'ignore', env: { ...process.env, PATH: SEARCH_PATH } }).error;

/**
 * Makes sure nginx, redis-server, wrk and openssl can be run: missing ones are installed with
 * apt-get as root (Debian/Ubuntu); otherwise it stops and names the command to run.
 */
export function ensureTools(log: (line: string) => void, sentinel = false): void {
  process.env.PATH = SEARCH_PATH;
  const missing = [...TOOLS, ...(sentinel ? [SENTINEL] : [])].filter((tool) => !found(tool));
  if (missing.length === 0) return;
  const packages = missing.map((tool) => tool.aptPackage);
  if (process.getuid?.() !== 0 || spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).error) {
    throw new Error(`missing ${missing.map((tool) => tool.command).join(', ')}: install them first (sudo apt-get install -y ${packages.join(' ')})`);
  }
  log(`installing ${packages.join(', ')} with apt-get…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => spawnSync('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...packages], { stdio: ['ignore', 'ignore', 'inherit'], env });
  if (install().status !== 0) {
    spawnSync('apt-get', ['update', '-q'], { stdio: 'ignore', env });
    install();
  }
  const still = missing.filter((tool) => !found(tool));
  if (still.length > 0) throw new Error(`apt-get could not install ${still.map((tool) => tool.aptPackage).join(', ')}`);
  // The Debian packages start their own services; this test runs its own instances on free ports.
  spawnSync('sh', ['-c', 'service nginx stop; service redis-server stop'], { stdio: 'ignore' });
}
