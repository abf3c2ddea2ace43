import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { DRIVER_CPU, type Pinning } from './cpu-pinning.js';
import type { LoadGenerator, LoadResult } from './load.js';
import type { RequestSpec } from './paths.js';

const run = promisify(execFile);

const hasWrk = () => !spawnSync('wrk', ['--version']).error;

/** `wrk` if on the PATH; as root, installs the Debian package first. Undefined means: fall back. */
export function findOrInstallWrk(log: (line: string) => void): string | undefined {
  if (hasWrk()) return 'wrk';
  if (process.getuid?.() === 0 && !spawnSync('apt-get', ['--version']).error) {
    log('wrk is missing: installing it with apt-get (Debian package wrk)…');
    const install = () => spawnSync('apt-get', ['install', '-y', '-q', 'wrk'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (install().status !== 0) {
      spawnSync('apt-get', ['update', '-q'], { stdio: 'ignore' });
      install();
    }
    if (hasWrk()) return 'wrk';
    log('apt-get could not install wrk.');
  } else {
    log('wrk is missing; install it for lower load-generator overhead: sudo apt-get install wrk (Debian/Ubuntu)');
  }
  return undefined;
}

/** A Lua script that POSTs the request's body and reports wrk's summary as one JSON line. */
function luaScript(request: RequestSpec): string {
  const headers = Object.entries(request.headers)
    .map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`)
    .join('\n');
  return `wrk.method = "POST"
wrk.path = ${JSON.stringify(request.path)}
wrk.body = [==[${request.body}]==]
${headers}

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('\\nWRK_SUMMARY {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout))
end
`;
}

export function wrkLoad(binary: string, pinning: Pinning): LoadGenerator {
  const scriptDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-router-bench-wrk-'));
  process.on('exit', () => fs.rmSync(scriptDir, { recursive: true, force: true }));
  let scripts = 0;
  return {
    name: 'wrk',
    async run(request, connections, seconds): Promise<LoadResult> {
      const script = path.join(scriptDir, `request-${scripts++}.lua`);
      fs.writeFileSync(script, luaScript(request));
      const args = ['-t1', `-c${connections}`, `-d${Math.max(1, Math.round(seconds))}s`, '--timeout', '10s', '-s', script, request.origin];
      const command = [...pinning.prefix(DRIVER_CPU), binary, ...args];
      const { stdout } = await run(command[0]!, command.slice(1), { maxBuffer: 1 << 20 });
      const line = stdout.split('\n').find((text) => text.startsWith('WRK_SUMMARY '));
      if (!line) throw new Error(`wrk printed no summary:\n${stdout}`);
      const summary = JSON.parse(line.slice('WRK_SUMMARY '.length)) as Record<string, number>;
      const secondsRun = summary.duration_us! / 1e6;
      return {
        requests: summary.requests!,
        seconds: secondsRun,
        rps: summary.requests! / secondsRun,
        failures: summary.connect! + summary.read! + summary.write! + summary.status! + summary.timeout!,
      };
    },
  };
}
