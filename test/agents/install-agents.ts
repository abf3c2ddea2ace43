import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The agent CLIs the suite drives, pinned. They are test tools, not package dependencies. */
export const AGENT_PACKAGES = {
  claude: { name: '@anthropic-ai/claude-code', version: '2.1.197' },
  codex: { name: '@openai/codex', version: '0.169.0' },
} as const;

export type AgentName = keyof typeof AGENT_PACKAGES;

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Ignored by git (`.cache/` in .gitignore). */
export const AGENTS_DIR = path.join(REPO_ROOT, '.cache', 'agents');

const LOCK_FILE = path.join(AGENTS_DIR, 'install.lock');
/** Written only once an install has finished, so a reader never takes a half-done install for a whole one. */
const STAMP_FILE = path.join(AGENTS_DIR, 'installed.json');
const SPECS = Object.values(AGENT_PACKAGES).map(({ name, version }) => `${name}@${version}`);
const INSTALL_TIMEOUT_MS = 8 * 60_000;
/** A lock older than this is from an install that died; it is taken over. */
const STALE_LOCK_MS = INSTALL_TIMEOUT_MS + 60_000;

export function agentBinary(agent: AgentName): string {
  return path.join(AGENTS_DIR, 'node_modules', '.bin', agent);
}

function installedVersion(agent: AgentName): string | undefined {
  try {
    const manifest = path.join(AGENTS_DIR, 'node_modules', ...AGENT_PACKAGES[agent].name.split('/'), 'package.json');
    return (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

function allInstalled(): boolean {
  let stamped: unknown;
  try {
    stamped = JSON.parse(fs.readFileSync(STAMP_FILE, 'utf8'));
  } catch {
    return false;
  }
  if (JSON.stringify(stamped) !== JSON.stringify(SPECS)) return false;
  return (Object.keys(AGENT_PACKAGES) as AgentName[]).every(
    (agent) => installedVersion(agent) === AGENT_PACKAGES[agent].version && fs.existsSync(agentBinary(agent)),
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the install lock (an exclusively created file holding our pid), waiting while another process holds it. */
async function acquireLock(): Promise<() => void> {
  const deadline = Date.now() + STALE_LOCK_MS + 60_000;
  for (;;) {
    try {
      const fd = fs.openSync(LOCK_FILE, 'wx');
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      return () => fs.rmSync(LOCK_FILE, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let stale = false;
    try {
      const holder = Number(fs.readFileSync(LOCK_FILE, 'utf8'));
      const age = Date.now() - fs.statSync(LOCK_FILE).mtimeMs;
      stale = age > STALE_LOCK_MS || (Number.isInteger(holder) && holder > 0 && !processAlive(holder));
    } catch {
      // The holder removed it between our checks; try again.
    }
    if (stale) fs.rmSync(LOCK_FILE, { force: true });
    else if (Date.now() > deadline) throw new Error(`timed out waiting for the agent install lock ${LOCK_FILE}`);
    else await sleep(250);
  }
}

let pending: Promise<Record<AgentName, string>> | undefined;

/**
 * Installs the pinned agent CLIs into .cache/agents on first use and returns their binaries.
 * Safe to call from several test files at once: one process installs under a lock file while the
 * others wait, then all see the finished install. A no-op when the pinned versions are present.
 */
export function installAgents(): Promise<Record<AgentName, string>> {
  pending ??= install().catch((error: unknown) => {
    pending = undefined;
    throw error;
  });
  return pending;
}

async function install(): Promise<Record<AgentName, string>> {
  const binaries = { claude: agentBinary('claude'), codex: agentBinary('codex') };
  if (allInstalled()) return binaries;
  fs.mkdirSync(AGENTS_DIR, { recursive: true });
  const release = await acquireLock();
  try {
    if (allInstalled()) return binaries;
    fs.rmSync(STAMP_FILE, { force: true });
    // Said once, before the wait: a first `npm test` otherwise looks hung for minutes.
    process.stderr.write(`agent tests: downloading ${SPECS.join(' and ')} (about 640 MB) into ${AGENTS_DIR}; once only, later runs reuse them.\n`);
    try {
      await run('npm', ['install', '--no-audit', '--no-fund', '--prefix', AGENTS_DIR, ...SPECS], {
        cwd: AGENTS_DIR,
        // Under `npm test`, npm's own npm_* variables would leak this project's config into the install.
        env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name))),
        timeout: INSTALL_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (error) {
      const failed = error as Error & { stdout?: string; stderr?: string };
      if (/ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ECONNRESET/.test(`${failed.message}${failed.stderr ?? ''}`)) {
        throw new Error(`the npm registry cannot be reached, so the agent CLIs (${SPECS.join(', ')}) cannot be downloaded for the agent tests; run again online, or leave test/agents out.`);
      }
      throw new Error(`npm install of ${SPECS.join(' ')} into ${AGENTS_DIR} failed: ${failed.message}\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`);
    }
    fs.writeFileSync(STAMP_FILE, JSON.stringify(SPECS));
    if (!allInstalled()) throw new Error(`npm install finished but ${SPECS.join(' ')} are not all in ${AGENTS_DIR}`);
    return binaries;
  } finally {
    release();
  }
}
