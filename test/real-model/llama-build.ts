import { execFile, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { acquireFileLock } from '../helpers/file-lock.js';

const run = promisify(execFile);

/**
 * llama.cpp's `llama-server`, built from the llama.cpp source that the pinned `node-llama-cpp` npm
 * tarball carries as a git bundle (`llama/gitRelease.bundle`), so the build needs the npm registry
 * and a compiler but nothing else from the network. The integrity is the registry's, checked again
 * here so a changed tarball is a build error, not a different server.
 */
export const LLAMA_PACKAGE = {
  name: 'node-llama-cpp',
  version: '3.21.1',
  integrity: 'sha512-E3N0Ev2Va0wzydvXYFwM9Hvyo07PoWjt8T/9GMc43Cvt8YkV/NU/tYUgEMC1grTPv2o9PRjQi0G3Wb5P/awiMg==',
} as const;

/**
 * The CPU the binary may assume. `GGML_NATIVE=OFF` alone still compiles for AVX2/FMA/F16C/BMI2
 * (x86-64-v3), which a cache moved to an older or emulated CPU would die on with SIGILL. The models
 * the suite serves are tiny (a few hundred thousand multiply-adds a token), so vector width does not
 * matter here: x86-64 is built for SSE4.2 alone (x86-64-v2, every x86-64 CPU since 2009), which runs
 * wherever CI lands, as one static binary (no per-CPU backend libraries to load). No OpenMP either:
 * the server runs with one thread, and the binary then needs no libgomp.
 */
const CPU_FLAGS: Record<string, string[]> = {
  x64: ['-DGGML_SSE42=ON', '-DGGML_AVX=OFF', '-DGGML_AVX2=OFF', '-DGGML_FMA=OFF', '-DGGML_F16C=OFF', '-DGGML_BMI2=OFF', '-DGGML_AVX512=OFF'],
};
const CPU_BASELINE: Record<string, string> = { x64: 'x86-64-v2' };

/** `llama-server` alone: no tests, examples, web UI (whose prebuilt copy would be downloaded), TLS or OpenMP. */
export const CMAKE_FLAGS = [
  '-DCMAKE_BUILD_TYPE=Release',
  '-DBUILD_SHARED_LIBS=OFF',
  '-DGGML_NATIVE=OFF',
  '-DGGML_OPENMP=OFF',
  '-DGGML_CCACHE=OFF',
  '-DLLAMA_BUILD_TESTS=OFF',
  '-DLLAMA_BUILD_EXAMPLES=OFF',
  '-DLLAMA_BUILD_APP=OFF',
  '-DLLAMA_BUILD_TOOLS=ON',
  '-DLLAMA_BUILD_SERVER=ON',
  '-DLLAMA_USE_PREBUILT_UI=OFF',
  '-DLLAMA_BUILD_UI=OFF',
  '-DLLAMA_OPENSSL=OFF',
  ...(CPU_FLAGS[process.arch] ?? []),
];

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Ignored by git (`.cache/` in .gitignore): one directory per package version, platform and CPU
 * baseline. SVC_REAL_MODEL_DIR puts it elsewhere (a build kept outside the checkout).
 */
export const LLAMA_DIR =
  process.env.SVC_REAL_MODEL_DIR || path.join(REPO_ROOT, '.cache', 'real-model', `${LLAMA_PACKAGE.name}-${LLAMA_PACKAGE.version}-${process.platform}-${CPU_BASELINE[process.arch] ?? process.arch}`);
export const LLAMA_SERVER = path.join(LLAMA_DIR, 'llama-server');
/** From the same source tree: the tokenizer vocabularies and chat templates the generated models use. */
export const LLAMA_VOCAB_DIR = path.join(LLAMA_DIR, 'vocab');
export const LLAMA_TEMPLATE_DIR = path.join(LLAMA_DIR, 'templates');
/** The vocabularies kept from the source's `models/`: small ones only (a generated model's embedding rows scale with them). */
const KEPT_VOCABS = ['ggml-vocab-llama-spm.gguf'];
const STAMP = path.join(LLAMA_DIR, 'built.json');

/** What the stamp records about a finished build, for the note a run prints. */
export interface BuildStamp {
  package: string;
  llamaCommit: string;
  cmakeFlags: string[];
  seconds: number;
  bytes: number;
}

const BUILD_TIMEOUT_MS = 3 * 60 * 60_000;
/** For a suite's beforeAll: the first run may build the server (or wait for another file's build). */
export const BUILD_HOOK_TIMEOUT_MS = BUILD_TIMEOUT_MS + 5 * 60_000;
/** A lock older than this is from a build that died; it is taken over. */
const STALE_LOCK_MS = BUILD_TIMEOUT_MS + 60_000;

const specOf = () => `${LLAMA_PACKAGE.name}@${LLAMA_PACKAGE.version}`;

/** Without npm's own npm_* variables, which under `npm test` would leak this project's config into `npm pack`. */
const cleanEnv = (): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

export function readStamp(): BuildStamp | undefined {
  try {
    const stamp = JSON.parse(fs.readFileSync(STAMP, 'utf8')) as BuildStamp;
    return stamp.package === specOf() && stamp.cmakeFlags.join(' ') === CMAKE_FLAGS.join(' ') ? stamp : undefined;
  } catch {
    return undefined;
  }
}

let runsHere: boolean | undefined;

/** Built, stamped, and it runs on this machine (a cache copied from another CPU may not). */
function built(): boolean {
  if (!readStamp() || !fs.existsSync(LLAMA_SERVER)) return false;
  runsHere ??= spawnSync(LLAMA_SERVER, ['--version'], { stdio: 'ignore', timeout: 30_000 }).status === 0;
  return runsHere;
}

function onPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** The build's tools, or the names of those missing. */
function missingTools(): string[] {
  const missing = ['cmake', 'git', 'tar', 'npm'].filter((tool) => !onPath(tool));
  if (!onPath('c++') && !onPath('g++') && !onPath('clang++')) missing.push('a C++ compiler (g++ or clang++)');
  if (!onPath('ninja') && !onPath('make')) missing.push('ninja or make');
  return missing;
}

let warned = false;

/**
 * Why the real-model suite cannot run here, or undefined when it can: `llama-server` is built
 * already, or the tools to build it are on the PATH and the npm registry answers. The suite skips
 * with this reason, printed once, as the agent suites do.
 */
export async function realModelUnavailable(): Promise<string | undefined> {
  if (built()) return undefined;
  let reason: string | undefined;
  const missing = missingTools();
  if (missing.length > 0) {
    reason = `real-model tests skipped: llama-server is not built in ${LLAMA_DIR} and cannot be built here: ${missing.join(', ')} not found (install cmake, ninja-build and g++, then run \`npm run real-model:build\`).`;
  } else {
    const registry = process.env.npm_config_registry || 'https://registry.npmjs.org/';
    try {
      await fetch(registry, { method: 'HEAD', signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      reason = `real-model tests skipped: llama-server is not built and the npm registry (${registry}) cannot be reached for ${specOf()} (${(error as Error).message}); run again online, or \`npm run real-model:build\`.`;
    }
  }
  if (reason && !warned) process.stderr.write(`${reason}\n`);
  warned = true;
  return reason;
}

let pending: Promise<string> | undefined;

/**
 * The path of a `llama-server` built from the pinned package, building it first when there is
 * none (20-40 minutes on two cores, once; said on stderr). Safe to call from several test files at
 * once: one process builds under a lock file while the others wait.
 */
export function ensureLlamaServer(options: { echo?: boolean } = {}): Promise<string> {
  pending ??= buildOnce(options).catch((error: unknown) => {
    pending = undefined;
    throw error;
  });
  return pending;
}

async function buildOnce(options: { echo?: boolean }): Promise<string> {
  if (built()) return LLAMA_SERVER;
  fs.mkdirSync(LLAMA_DIR, { recursive: true });
  const release = await acquireFileLock(path.join(LLAMA_DIR, 'build.lock'), STALE_LOCK_MS, 'llama-server build');
  try {
    runsHere = undefined;
    if (built()) return LLAMA_SERVER;
    await build(options.echo ?? false);
    runsHere = undefined;
    if (!built()) throw new Error(`llama-server was built into ${LLAMA_SERVER} but does not run here`);
    return LLAMA_SERVER;
  } finally {
    release();
  }
}

async function build(echo: boolean): Promise<void> {
  const started = Date.now();
  // Beside the cache so an interrupted build resumes where it stopped; removed once the binary is in place.
  const work = path.join(LLAMA_DIR, 'work');
  const source = path.join(work, 'llama.cpp');
  const buildDir = path.join(work, 'build');
  const log = path.join(work, 'build.log');
  fs.rmSync(STAMP, { force: true });
  fs.mkdirSync(work, { recursive: true });
  process.stderr.write(`real-model tests: building llama-server from ${specOf()} in ${work} (20-40 minutes on two cores; once, later runs reuse it). Progress: ${log}\n`);

  const bundle = path.join(work, 'package', 'llama', 'gitRelease.bundle');
  if (!fs.existsSync(bundle)) {
    const tarball = await packTarball(work);
    await run('tar', ['-xzf', tarball, '-C', work, 'package/llama/gitRelease.bundle'], { timeout: 10 * 60_000 });
    fs.rmSync(tarball, { force: true });
  }
  if (!fs.existsSync(path.join(source, 'CMakeLists.txt'))) {
    fs.rmSync(source, { recursive: true, force: true });
    await run('git', ['-c', 'advice.detachedHead=false', 'clone', '--quiet', bundle, source], { timeout: 10 * 60_000 });
  }
  const { stdout: commit } = await run('git', ['-C', source, 'rev-parse', 'HEAD']);

  const generator = onPath('ninja') ? ['-G', 'Ninja'] : [];
  const jobs = Number(process.env.REAL_MODEL_BUILD_JOBS) || os.availableParallelism();
  await logged(log, echo, 'cmake', ['-S', source, '-B', buildDir, ...generator, ...CMAKE_FLAGS]);
  await logged(log, echo, 'cmake', ['--build', buildDir, '--target', 'llama-server', '--parallel', String(jobs)]);

  const binary = path.join(buildDir, 'bin', 'llama-server');
  fs.copyFileSync(binary, `${LLAMA_SERVER}.tmp`);
  fs.chmodSync(`${LLAMA_SERVER}.tmp`, 0o755);
  fs.renameSync(`${LLAMA_SERVER}.tmp`, LLAMA_SERVER);
  for (const dir of [LLAMA_VOCAB_DIR, LLAMA_TEMPLATE_DIR]) fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(LLAMA_VOCAB_DIR, { recursive: true });
  for (const vocab of KEPT_VOCABS) fs.copyFileSync(path.join(source, 'models', vocab), path.join(LLAMA_VOCAB_DIR, vocab));
  fs.cpSync(path.join(source, 'models', 'templates'), LLAMA_TEMPLATE_DIR, { recursive: true });

  const stamp: BuildStamp = {
    package: specOf(),
    llamaCommit: commit.trim(),
    cmakeFlags: CMAKE_FLAGS,
    seconds: Math.round((Date.now() - started) / 1000),
    bytes: fs.statSync(LLAMA_SERVER).size,
  };
  fs.writeFileSync(STAMP, `${JSON.stringify(stamp, null, 2)}\n`);
  fs.rmSync(work, { recursive: true, force: true });
  process.stderr.write(`real-model tests: llama-server built in ${stamp.seconds} s (${(stamp.bytes / 1e6).toFixed(1)} MB): ${LLAMA_SERVER}\n`);
}

/** `npm pack` of the pinned version (the ordinary client, with its cache and registry settings), checked against the pinned integrity. */
async function packTarball(work: string): Promise<string> {
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work, specOf()], { cwd: work, env: cleanEnv(), timeout: 10 * 60_000, maxBuffer: 16 * 1024 * 1024 });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; integrity: string }>;
  if (!packed) throw new Error(`npm pack ${specOf()} printed no tarball`);
  if (packed.integrity !== LLAMA_PACKAGE.integrity) throw new Error(`npm pack ${specOf()} gave integrity ${packed.integrity}, not the pinned ${LLAMA_PACKAGE.integrity}`);
  return path.join(work, packed.filename);
}

/** Runs a build step at a lower priority (a build must not starve the tests around it), its output appended to the log. */
async function logged(log: string, echo: boolean, command: string, args: string[]): Promise<void> {
  const out = fs.openSync(log, 'a');
  try {
    const viaNice = onPath('nice');
    const child = spawn(viaNice ? 'nice' : command, viaNice ? ['-n', '10', command, ...args] : args, { stdio: ['ignore', echo ? 'pipe' : out, echo ? 'pipe' : out] });
    if (echo) {
      for (const stream of [child.stdout!, child.stderr!]) {
        stream.on('data', (chunk: Buffer) => {
          fs.writeSync(out, chunk);
          process.stdout.write(chunk);
        });
      }
    }
    const timer = setTimeout(() => child.kill('SIGTERM'), BUILD_TIMEOUT_MS);
    const [code, signal] = (await new Promise((resolve) => child.on('close', (...result) => resolve(result)))) as [number | null, NodeJS.Signals | null];
    clearTimeout(timer);
    if (code !== 0) {
      const tail = fs.readFileSync(log, 'utf8').split('\n').slice(-30).join('\n');
      throw new Error(`${command} ${args.join(' ')} failed (${signal ?? `exit ${code}`}); the end of ${log}:\n${tail}`);
    }
  } finally {
    fs.closeSync(out);
  }
}

// `npm run real-model:build`: build (or find) the server and say where it is.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const missing = missingTools();
  if (missing.length > 0 && !built()) {
    process.stderr.write(`cannot build llama-server: ${missing.join(', ')} not found\n`);
    process.exit(1);
  }
  const binary = await ensureLlamaServer({ echo: true });
  process.stdout.write(`${binary}\n${JSON.stringify(readStamp(), null, 2)}\n`);
}
