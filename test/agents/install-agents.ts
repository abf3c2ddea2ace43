import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { acquireFileLock } from '../helpers/file-lock.js';

const run = promisify(execFile);

/**
 * The agent CLIs the suite drives, pinned. They are test tools, not package dependencies. `claude`
 * is the newest Claude Code; `claude-previous` keeps the version before it covered.
 */
export const AGENT_PACKAGES = {
  claude: { name: '@anthropic-ai/claude-code', version: '2.1.337', bin: 'claude' },
  'claude-previous': { name: '@anthropic-ai/claude-code', version: '2.1.330', bin: 'claude' },
  codex: { name: '@openai/codex', version: '0.171.0', bin: 'codex' },
  gemini: { name: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
} as const;

export type AgentName = keyof typeof AGENT_PACKAGES;

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Ignored by git (`.cache/` in .gitignore); one npm prefix per pinned package, so two versions of one CLI can sit side by side. */
export const AGENTS_DIR = path.join(REPO_ROOT, '.cache', 'agent-installs');

const INSTALL_TIMEOUT_MS = 8 * 60_000;
/** A lock older than this is from an install that died; it is taken over. */
const STALE_LOCK_MS = INSTALL_TIMEOUT_MS + 60_000;

const specOf = (agent: AgentName): string => `${AGENT_PACKAGES[agent].name}@${AGENT_PACKAGES[agent].version}`;
/** `.cache/agent-installs/claude-code@2.1.337` */
const prefixOf = (agent: AgentName): string => path.join(AGENTS_DIR, specOf(agent).replace(/^@[^/]+\//, ''));

export function agentBinary(agent: AgentName): string {
  return path.join(prefixOf(agent), 'node_modules', '.bin', AGENT_PACKAGES[agent].bin);
}

function installedVersion(agent: AgentName): string | undefined {
  try {
    const manifest = path.join(prefixOf(agent), 'node_modules', ...AGENT_PACKAGES[agent].name.split('/'), 'package.json');
    return (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/** Written only once an install has finished, so a reader never takes a half-done install for a whole one. */
const stampOf = (agent: AgentName): string => path.join(prefixOf(agent), 'installed.json');

function installed(agent: AgentName): boolean {
  let stamped: unknown;
  try {
    stamped = JSON.parse(fs.readFileSync(stampOf(agent), 'utf8'));
  } catch {
    return false;
  }
  return stamped === specOf(agent) && installedVersion(agent) === AGENT_PACKAGES[agent].version && fs.existsSync(agentBinary(agent));
}

const pending = new Map<AgentName, Promise<string>>();

/**
 * Installs the pinned agent CLIs into .cache/agent-installs on first use and returns their
 * binaries. The first install downloads about 1 GB (each Claude Code is a ~380 MB native binary,
 * Codex ~250 MB, Gemini CLI ~100 MB); it says so on stderr. Safe to call from several test files at once: one process
 * installs each package under a lock file while the others wait. A no-op when the pins are there.
 */
export async function installAgents(): Promise<Record<AgentName, string>> {
  const agents = Object.keys(AGENT_PACKAGES) as AgentName[];
  const binaries = await Promise.all(agents.map(installAgent));
  return Object.fromEntries(agents.map((agent, index) => [agent, binaries[index]!])) as Record<AgentName, string>;
}

export function installAgent(agent: AgentName): Promise<string> {
  let install = pending.get(agent);
  if (!install) {
    install = installOne(agent).catch((error: unknown) => {
      pending.delete(agent);
      throw error;
    });
    pending.set(agent, install);
  }
  return install;
}

async function installOne(agent: AgentName): Promise<string> {
  const binary = agentBinary(agent);
  if (installed(agent)) return binary;
  const prefix = prefixOf(agent);
  const spec = specOf(agent);
  fs.mkdirSync(prefix, { recursive: true });
  const release = await acquireFileLock(path.join(prefix, 'install.lock'), STALE_LOCK_MS, 'agent install');
  try {
    if (installed(agent)) return binary;
    fs.rmSync(stampOf(agent), { force: true });
    // Said once, before the wait: a first `npm test` otherwise looks hung for minutes.
    process.stderr.write(`agent tests: downloading ${spec} into ${prefix} (a few hundred MB); once only, later runs reuse it.\n`);
    try {
      await run('npm', ['install', '--no-audit', '--no-fund', '--prefix', prefix, spec], {
        cwd: prefix,
        // Under `npm test`, npm's own npm_* variables would leak this project's config into the install.
        env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name))),
        timeout: INSTALL_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (error) {
      const failed = error as Error & { stdout?: string; stderr?: string };
      if (/ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ECONNRESET/.test(`${failed.message}${failed.stderr ?? ''}`)) {
        throw new Error(`the npm registry cannot be reached, so ${spec} cannot be downloaded for the agent tests; run again online, or leave test/agents out.`);
      }
      throw new Error(`npm install of ${spec} into ${prefix} failed: ${failed.message}\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`);
    }
    fs.writeFileSync(stampOf(agent), JSON.stringify(spec));
    if (!installed(agent)) throw new Error(`npm install finished but ${spec} is not in ${prefix}`);
    return binary;
  } finally {
    release();
  }
}

/**
 * Why the agent tests cannot run here, or undefined when they can: the pinned CLIs are installed
 * already, or the npm registry answers (any HTTP status) so they can be. The agent test files skip
 * with this reason, printed once, instead of failing a machine that is offline.
 */
export async function agentsUnavailable(): Promise<string | undefined> {
  if ((Object.keys(AGENT_PACKAGES) as AgentName[]).every(installed)) return undefined;
  const registry = process.env.npm_config_registry || 'https://registry.npmjs.org/';
  try {
    await fetch(registry, { method: 'HEAD', signal: AbortSignal.timeout(10_000) });
    return undefined;
  } catch (error) {
    const reason = `agent tests skipped: the agent CLIs are not installed and the npm registry (${registry}) cannot be reached (${(error as Error).message}); run again online to download them (about 1 GB, once).`;
    if (!warned) process.stderr.write(`${reason}\n`);
    warned = true;
    return reason;
  }
}
let warned = false;
