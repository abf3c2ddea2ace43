/**
 * `--peers`: other LLM gateways measured in the same run, on the same fake upstream, next to the
 * bare proxy and svc-router, so the README can state the ratio to them from one run. Each peer is
 * installed with npm into a temporary directory (never into this project) and removed afterwards.
 *
 * Portkey's gateway (@portkey-ai/gateway) serves OpenAI Chat Completions at /v1/chat/completions
 * and forwards to the host named in `x-portkey-custom-host`. Its build meets a known fault with
 * @hono/node-server newer than 1.14.2 (Portkey-AI/gateway#1389, TypeError: immutable): the
 * install pins that version, as the issue suggests.
 *
 * claude-code-router (@musistudio/claude-code-router) serves Anthropic Messages at /v1/messages and
 * translates to an OpenAI-compatible provider named in ~/.claude-code-router/config.json
 * (`Providers[].api_base_url` is the full Chat Completions URL, `Router.default` is
 * "provider,model"); it is measured on messages->openai-chat. 2.0.0 is its newest release that runs
 * on Node 20 (3.x declares engines node >= 22). `ccr start` serves in the foreground and prints
 * nothing once listening, so readiness is its port accepting a connection. Its HOME is a temporary
 * directory holding only that config, with logging off (`LOG: false`) so no log file is charged to it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SUT_CPU, type Pinning } from './cpu-pinning.js';
import type { LoadGenerator } from './load.js';
import { measureThroughput, type ThroughputSample } from './measure.js';
import { ANTHROPIC_VERSION, PATHS, upstreamRequest, type PathSpec, type RequestSpec } from './paths.js';
import { startServer, type Server } from './processes.js';
import { median, spreadPct } from './stats.js';

interface PeerSpec {
  name: string;
  /** npm package and exact version: a fixed version keeps rows comparable between runs. */
  packageName: string;
  version: string;
  overrides?: Record<string, string>;
  /** The server's entry, under node_modules. */
  entry: string;
  /** The router path this peer is measured beside (its client format to the openai-chat upstream). */
  path: 'chat->openai-chat' | 'messages->openai-chat';
  args(port: number): string[];
  /** Files and environment the peer needs before it starts (its config), in `home`, a directory of its own. */
  prepare?(home: string, port: number, upstreamOrigin: string): NodeJS.ProcessEnv;
  /** Ready on a stdout line naming the port (default), or once the port accepts a connection. */
  ready: 'line' | 'port';
  /** The bench's request on `path`, as this peer expects it. */
  request(peerOrigin: string, upstreamOrigin: string, stream: boolean): RequestSpec;
}

const CCR_PROMPT = 'Say hello in twenty words.';

export const PEERS: readonly PeerSpec[] = [
  {
    name: 'portkey',
    packageName: '@portkey-ai/gateway',
    version: '1.15.2',
    overrides: { '@hono/node-server': '1.14.2' },
    entry: '@portkey-ai/gateway/build/start-server.js',
    path: 'chat->openai-chat',
    args: (port) => [`--port=${port}`, '--headless'],
    ready: 'line',
    request: (peerOrigin, upstreamOrigin, stream) => {
      const request = upstreamRequest(peerOrigin, 'openai-chat', stream);
      return { ...request, headers: { ...request.headers, 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${upstreamOrigin}/v1` } };
    },
  },
  {
    name: 'claude-code-router',
    packageName: '@musistudio/claude-code-router',
    version: '2.0.0',
    entry: '@musistudio/claude-code-router/dist/cli.js',
    path: 'messages->openai-chat',
    args: () => ['start'],
    ready: 'port',
    prepare: (home, port, upstreamOrigin) => {
      const config = {
        LOG: false,
        HOST: '127.0.0.1',
        PORT: port,
        NON_INTERACTIVE_MODE: true,
        Providers: [{ name: 'bench', api_base_url: `${upstreamOrigin}/v1/chat/completions`, api_key: 'sk-bench-openai', models: ['m'] }],
        Router: { default: 'bench,m' },
      };
      fs.mkdirSync(path.join(home, '.claude-code-router'), { recursive: true });
      fs.writeFileSync(path.join(home, '.claude-code-router', 'config.json'), JSON.stringify(config, null, 2));
      return { HOME: home, USERPROFILE: home };
    },
    // The same Messages request the router gets on messages->openai-chat, with a Claude model name as Claude Code sends.
    request: (peerOrigin, _upstreamOrigin, stream) => ({
      origin: peerOrigin,
      path: '/v1/messages',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-bench-peer', 'anthropic-version': ANTHROPIC_VERSION },
      body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: CCR_PROMPT }], ...(stream ? { stream: true } : {}) }),
    }),
  },
];

export interface PeerRow {
  peer: string;
  version: string;
  path: string;
  stream: boolean;
  rps: number;
  cpu_us_per_req: number;
  /** peer req/s ÷ bare proxy req/s, paired by round */
  x_bare: number;
  /** svc-router req/s ÷ peer req/s on the same path, paired by round */
  router_x_peer: number;
  spread_pct: number;
  failures: number;
  error?: string;
}

/** Installs the peers into one temporary directory; undefined (with a line in the log) when npm cannot. */
export function installPeers(log: (line: string) => void): { dir: string; remove(): void } | undefined {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-router-bench-peers-'));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  process.on('exit', remove);
  const dependencies = Object.fromEntries(PEERS.map((peer) => [peer.packageName, peer.version]));
  const overrides = Object.assign({}, ...PEERS.map((peer) => peer.overrides ?? {}));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ private: true, dependencies, overrides }, null, 2));
  log(`peers: npm install ${Object.entries(dependencies).map(([name, version]) => `${name}@${version}`).join(' ')} into a temporary directory…`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const install = spawnSync(npm, ['install', '--no-audit', '--no-fund', '--omit=dev', '--loglevel=error'], { cwd: dir, encoding: 'utf8' });
  if (install.status !== 0) {
    log(`peers: npm install failed, no peer row (${(install.stderr || install.error?.message || '').trim().split('\n').at(-1)})`);
    remove();
    return undefined;
  }
  return { dir, remove };
}

export interface PeerRun {
  load: LoadGenerator;
  pinning: Pinning;
  dir: string;
  upstream: string;
  bare: Server;
  router: { origin: string; pid: number; request(path: PathSpec, stream: boolean): RequestSpec };
  rounds: number;
  seconds: number;
}

/**
 * Each peer, pinned where the router runs, on its path to the openai-chat upstream, JSON and
 * stream: per round the bare proxy, svc-router on the same path and the peer back to back, so both
 * ratios are paired.
 */
export async function measurePeers(run: PeerRun, log: (line: string) => void): Promise<PeerRow[]> {
  const rows: PeerRow[] = [];
  for (const peer of PEERS) {
    const port = await freePort();
    const spec = PATHS.find((candidate) => candidate.name === peer.path)!;
    const home = fs.mkdtempSync(path.join(os.tmpdir(), `svc-router-bench-${peer.name}-`));
    let server: Server;
    try {
      server = await startServer({
        name: peer.name,
        command: [...run.pinning.prefix(SUT_CPU), process.execPath, path.join(run.dir, 'node_modules', peer.entry), ...peer.args(port)],
        ...(peer.prepare ? { env: peer.prepare(home, port, run.upstream) } : {}),
        ...(peer.ready === 'port' ? { port } : { ready: new RegExp(`(?:localhost|127\\.0\\.0\\.1):(${port})\\b`) }),
      });
    } catch (error) {
      log(`peers: ${peer.name} did not start (${(error as Error).message.split('\n')[0]})`);
      fs.rmSync(home, { recursive: true, force: true });
      continue;
    }
    try {
      for (const stream of [false, true]) {
        const request = peer.request(`http://127.0.0.1:${port}`, run.upstream, stream);
        const bareRequest = upstreamRequest(run.bare.origin, 'openai-chat', stream);
        // One short warm-up each, so the first round does not measure a cold JIT.
        await measureThroughput(run.load, request, server.pid, 1, SUT_CPU);
        const samples: { bare: ThroughputSample; router: ThroughputSample; peer: ThroughputSample }[] = [];
        for (let round = 0; round < run.rounds; round++) {
          const bare = await measureThroughput(run.load, bareRequest, run.bare.pid, run.seconds, SUT_CPU);
          const router = await measureThroughput(run.load, run.router.request(spec, stream), run.router.pid, run.seconds, SUT_CPU);
          const measured = await measureThroughput(run.load, request, server.pid, run.seconds, SUT_CPU);
          samples.push({ bare, router, peer: measured });
        }
        const failures = samples.reduce((sum, sample) => sum + sample.peer.failures, 0);
        const xBare = samples.map((sample) => sample.peer.rps / sample.bare.rps);
        rows.push({
          peer: peer.name,
          version: peer.version,
          path: peer.path,
          stream,
          rps: median(samples.map((sample) => sample.peer.rps)),
          cpu_us_per_req: median(samples.map((sample) => sample.peer.cpuUsPerReq)),
          x_bare: median(xBare),
          router_x_peer: median(samples.map((sample) => sample.router.rps / sample.peer.rps)),
          spread_pct: spreadPct(xBare),
          failures,
          ...(failures ? { error: `${failures} failed requests (non-2xx or socket errors): the row does not measure a working path` } : {}),
        });
        log(`peers: ${peer.name} ${stream ? 'stream' : 'json'} ${Math.round(rows.at(-1)!.rps)} req/s${failures ? `, ${failures} failures` : ''}`);
      }
    } finally {
      await server.stop();
      fs.rmSync(home, { recursive: true, force: true });
    }
  }
  return rows;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
