import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findServer, type ServerState } from '../../src/cli/server-state.js';
import { OUTBOX_DIR } from '../../src/usage/open-ledger.js';
import { redisAvailable, startRedis, type RedisServer } from '../reliability/redis-process.js';
import { bodyFor, CLIENT_FORMATS, headersFor, PATHS, send, UPSTREAM_KINDS, type ClientFormatName, type FaultUpstream, type UpstreamKind } from '../reliability/support.js';
import { unusedPort } from '../helpers/unused-port.js';
import { startKeyEchoUpstream } from './key-echo-upstream.js';
import { hasScript, runInPty, until, within } from './pty.js';
import { initHome, makeHome, removeHome, runCli, runCliJson } from './run-cli.js';

/**
 * No secret lands in a file the router writes, other than the stores meant for it: config.json
 * (0600) holds the upstream keys and the CLI's own key, and issued keys only as hashes. A whole
 * session runs on the built binary, then every file under the config directory (logs, rotated
 * logs, the request store, serve.json, the ledger, Redis outboxes, an exported config) is read
 * and searched for every key in clear, and for any 12 characters of one.
 */

const homes: string[] = [];
const upstreams: FaultUpstream[] = [];
const redises: RedisServer[] = [];
afterEach(async () => {
  for (const home of homes) {
    const found = findServer({ dir: home });
    if (found.status === 'running') process.kill(found.state.pid, 'SIGKILL');
  }
  await Promise.all([...upstreams.splice(0).map((upstream) => upstream.close()), ...redises.splice(0).map((redis) => redis.kill())]);
  homes.splice(0).forEach(removeHome);
});

const alnum = (length: number): string => randomBytes(length * 2).toString('base64').replace(/[^A-Za-z0-9]/g, '').slice(0, length);

/** A secret and what may show of it: a router key's `svc_<slug>_` prefix is no secret, its random part is. */
interface Secret {
  name: string;
  value: string;
  /** The part no 12 characters of which may appear. */
  secretPart: string;
}

const routerKey = (name: string, value: string): Secret => ({ name, value, secretPart: value.replace(/^svc_[a-z0-9-]+_/, '') });
/** A provider key's published prefix is no secret either. */
const upstreamKey = (name: string, value: string): Secret => ({ name, value, secretPart: value.replace(/^(?:sk-ant-api03-|sk-proj-|AIza)/, '') });

/** Every file under `dir`, however deep. */
function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true }).filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

/** Every (file, secret, piece) found: the whole key, or any 12 characters of its secret part. */
function leaks(files: string[], secrets: Secret[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const text = fs.readFileSync(file, 'latin1') + fs.readFileSync(file, 'utf8');
    for (const secret of secrets) {
      if (text.includes(secret.value)) {
        found.push(`${file}: ${secret.name} in clear`);
        continue;
      }
      for (let i = 0; i + 12 <= secret.secretPart.length; i += 2) {
        const piece = secret.secretPart.slice(i, i + 12);
        if (text.includes(piece)) {
          found.push(`${file}: 12 characters of ${secret.name} (${piece})`);
          break;
        }
      }
    }
  }
  return found;
}

const SKU_OF: Record<UpstreamKind, string> = { 'openai-chat': 'svc.intelligent-pro', anthropic: 'svc.intelligent-basic', 'openai-responses': 'svc.intelligent-lite', gemini: 'svc.scan-gemini' };
/** The backend each kind's route names. */
const BACKEND_OF: Record<UpstreamKind, string> = { 'openai-chat': 'chat', anthropic: 'claude', 'openai-responses': 'responses', gemini: 'gemini' };

async function cli(home: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const result = await runCli(args, { home, env, killAfterMs: 60_000 });
  expect(result.code, `svc-router ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout + result.stderr;
}

const running = (home: string): ServerState => {
  const found = findServer({ dir: home });
  if (found.status !== 'running') throw new Error(`no serve running for ${home}`);
  return found.state;
};

/**
 * Traffic that gives the router every chance to write a key: each caller, each client format,
 * streamed and not, each upstream kind, answers that repeat the prompt (which quotes keys) and
 * errors that quote the upstream's key, plus refused keys and a key in the path.
 */
async function traffic(origin: string, callers: string[], quoted: string[], refused: string[]): Promise<void> {
  const router = { origin };
  const outcomes = ['ok', 'FAIL-STATUS', 'FAIL-STREAM'] as const;
  const calls: Array<Promise<unknown>> = [];
  for (const caller of callers) {
    for (const format of CLIENT_FORMATS) {
      for (const kind of UPSTREAM_KINDS) {
        for (const stream of [false, true]) {
          for (const outcome of outcomes) {
            if (outcome === 'FAIL-STREAM' && !stream) continue;
            const prompt = `${outcome}: my key is ${caller} and the team's keys are ${quoted.join(', ')}`;
            calls.push(send(router, PATHS[format as ClientFormatName], { headers: headersFor(format, caller), body: bodyFor(format, SKU_OF[kind], stream, prompt) }));
          }
        }
      }
    }
    calls.push(send(router, '/whoami', { headers: { authorization: `Bearer ${caller}` } }));
    calls.push(send(router, '/v1/models', { headers: { 'x-api-key': caller } }));
    calls.push(send(router, `/v1/${caller}/chat/completions`, { headers: { authorization: `Bearer ${caller}` } }));
  }
  for (const key of refused) {
    for (const format of CLIENT_FORMATS) calls.push(send(router, PATHS[format], { headers: headersFor(format, key), body: bodyFor(format, 'svc.intelligent-pro', false) }));
    calls.push(send(router, '/whoami', { headers: { authorization: `Bearer ${key}` } }));
  }
  const replies = (await Promise.all(calls)) as Array<{ status: number; text: string }>;
  // The traffic did reach the upstreams, so the files have something to hold.
  expect(replies.filter((reply) => reply.status === 200).length).toBeGreaterThanOrEqual(callers.length * 18);
}

describe('no key lands in a file the router writes', () => {
  it(
    'after keys, upstream keys and pools, --log-bodies traffic in every format, --detach, restart, rotated logs and serve.json',
    async () => {
      const home = makeHome();
      homes.push(home);
      const upstream = await startKeyEchoUpstream(UPSTREAM_KINDS);
      upstreams.push(upstream);

      const local = routerKey('the local key', await initHome(home));
      const bob = routerKey("bob's key", (await runCliJson<{ key: string }>(['keys', 'issue', '--developer', 'bob', '--json'], { home })).key);
      const carol = routerKey("carol's admin key", (await runCliJson<{ key: string }>(['keys', 'issue', '--developer', 'carol', '--tier', 'admin', '--json'], { home })).key);
      const chatKey = upstreamKey('the chat backend key', `sk-proj-${alnum(48)}`);
      const poolKeys = [upstreamKey('a pooled key without a known shape', randomBytes(20).toString('hex')), upstreamKey('a pooled Anthropic-shaped key', `sk-ant-api03-${alnum(40)}AA`)];
      const anthropicKey = upstreamKey('the anthropic backend key', alnum(40));
      const gatewayKey = upstreamKey('a gateway header', alnum(36));
      const environmentKey = upstreamKey('a key read from the environment', `AIza${alnum(35)}`);
      const spareKey = upstreamKey('a spare backend key no route has sent', alnum(44));
      const geminiKey = upstreamKey('the gemini backend key', `AIza${alnum(35)}`);
      const refused = [upstreamKey('an Anthropic key sent to the router', `sk-ant-api03-${alnum(40)}AA`), upstreamKey('an OpenAI key sent to the router', `sk-proj-${alnum(48)}`), routerKey('a forged router key', `svc_alice_${alnum(32)}`)];
      const env = { RESPONSES_UPSTREAM_KEY: environmentKey.value };

      await cli(home, ['backends', 'add', 'chat', '--type', 'openai-chat', '--base-url', upstream.url, '--api-key', chatKey.value]);
      await cli(home, ['backends', 'pool', 'chat', ...poolKeys.flatMap((key) => ['--key', key.value])]);
      await cli(home, ['backends', 'add', 'claude', '--type', 'anthropic', '--base-url', upstream.url, '--api-key', anthropicKey.value, '--header', `x-gateway-key=${gatewayKey.value}`]);
      await cli(home, ['backends', 'add', 'responses', '--type', 'openai-responses', '--base-url', upstream.url, '--api-key-env', 'RESPONSES_UPSTREAM_KEY']);
      await cli(home, ['backends', 'add', 'spare', '--type', 'openai-chat', '--base-url', upstream.url, '--api-key', spareKey.value]);
      await cli(home, ['backends', 'add', 'gemini', '--type', 'gemini', '--base-url', upstream.url, '--api-key', geminiKey.value]);
      for (const kind of UPSTREAM_KINDS) await cli(home, ['routes', 'set', SKU_OF[kind], `${BACKEND_OF[kind]}:echo-${kind}`, ...(SKU_OF[kind].startsWith('svc.intelligent-') ? [] : ['--new'])]);
      // Small bounds, so both the request store and the log file rotate during the session (and none is dropped).
      await cli(home, ['config', 'set', 'server.requestLogMaxBytes', '8192']);

      const serveArgs = ['serve', '--detach', '--port', '0', '--log-bodies', '--log-format', 'json', '--log-max-size', '65536', '--log-keep', '50'];
      const started = await cli(home, serveArgs, env);
      // The terminal says where the client settings are, without printing the key.
      expect(started).toContain('svc-router env');
      const callers = [local.value, bob.value, carol.value];
      // What a user may paste into a prompt, which --log-bodies logs and the upstream repeats.
      const quoted = [bob.value, carol.value, chatKey.value, poolKeys[0]!.value, anthropicKey.value, gatewayKey.value, spareKey.value, geminiKey.value];
      await traffic(running(home).url, callers, quoted, refused.map((key) => key.value));
      await cli(home, ['whoami', '--key', bob.value]);
      await cli(home, ['usage', '--json']);
      await cli(home, ['config', 'export', '--output', path.join(home, 'exported.json'), '--with-keys']);
      // A client's own settings file is a store meant for the key (HOME is the test's home).
      await cli(home, ['connect', 'claude', '--write']);
      await cli(home, ['connect', 'codex', '--write']);
      const claudeSettings = path.join(home, '.claude', 'settings.json');

      const secrets = [local, bob, carol, chatKey, ...poolKeys, anthropicKey, gatewayKey, environmentKey, spareKey, geminiKey, ...refused];
      const otherThanConfig = () => filesUnder(home).filter((file) => path.basename(file) !== 'config.json' && file !== claudeSettings);
      // While it runs: serve.json and the live logs.
      expect(fs.existsSync(path.join(home, 'serve.json'))).toBe(true);
      expect(leaks(otherThanConfig(), secrets)).toEqual([]);

      await cli(home, ['restart'], env);
      await traffic(running(home).url, [bob.value], quoted, []);
      await cli(home, ['stop']);

      // With Redis as the usage store, and Redis gone mid-session, records wait in outbox files.
      if (redisAvailable) {
        const redisDir = makeHome();
        homes.push(redisDir);
        const redis = await startRedis(await unusedPort(), redisDir);
        redises.push(redis);
        await cli(home, ['serve', '--detach', '--port', '0', '--log-bodies', '--usage-store', redis.url], env);
        await traffic(running(home).url, [bob.value], quoted, []);
        await redis.kill();
        await traffic(running(home).url, [local.value], quoted, []);
        await cli(home, ['stop']);
        expect(filesUnder(path.join(home, OUTBOX_DIR)).length).toBeGreaterThan(0);
      }

      const files = otherThanConfig();
      for (const expected of ['serve.log', 'serve.log.1', 'requests.jsonl', 'requests.1.jsonl', 'usage.jsonl', 'exported.json', 'config.toml', 'settings.json.svc-router-backup.json']) {
        expect(files.map((file) => path.basename(file))).toContain(expected);
      }
      expect(leaks(files, secrets)).toEqual([]);
      // The log says where the key is instead.
      expect(fs.readFileSync(path.join(home, 'serve.log'), 'utf8')).toMatch(/svc-router env/);

      // config.json is the store meant for keys: only its owner reads it; it holds the CLI's own
      // key and the upstream keys, and issued keys only as hashes.
      const config = path.join(home, 'config.json');
      expect(fs.statSync(config).mode & 0o777).toBe(0o600);
      expect(leaks([config], [bob, carol, ...refused, environmentKey])).toEqual([]);
      // Claude Code's settings hold the local key for it, readable by its owner alone.
      expect(fs.statSync(claudeSettings).mode & 0o777).toBe(0o600);
      expect(fs.readFileSync(claudeSettings, 'utf8')).toContain(local.value);
      expect(leaks([claudeSettings], secrets.filter((secret) => secret !== local))).toEqual([]);
    },
    240_000,
  );
});

describe('the banner', () => {
  it.skipIf(!hasScript)('with --log-file on a terminal: the terminal gets the export lines with the key, the log file the same lines without it', async () => {
    const home = makeHome();
    homes.push(home);
    const key = await initHome(home);
    const logFile = path.join(home, 'logs', 'router.log');
    const run = runInPty(['serve', '--port', '0', '--log-file', logFile], { home, cols: 200, rows: 50 });
    try {
      // The Log: line is the last the terminal gets, after the banner: it may arrive in a later read.
      await until(() => run.output().includes('export SVC_ROUTER_KEY=') && run.output().includes(`Log: ${logFile}`), 20_000, 'the banner on the terminal');
      const terminal = run.output().replace(/\r/g, '');
      expect(terminal).toContain(`export OPENAI_API_KEY=${key}`);
      expect(terminal).toContain(`Log: ${logFile}`);
      const origin = /listening on (http:\/\/\S+)/.exec(terminal)![1]!;
      await send({ origin }, '/whoami', { headers: { authorization: `Bearer ${key}` } });
      process.kill(await run.pid, 'SIGTERM');
      await within(run.exited, 20_000, 'serve to exit');

      const log = fs.readFileSync(logFile, 'utf8');
      expect(log).toContain(`svc-router listening on ${origin}`);
      expect(log).toMatch(/^# export OPENAI_API_KEY=svc_alice_[A-Za-z0-9_-]{4}…$/m);
      expect(log).toMatch(/^# export SVC_ROUTER_KEY=svc_alice_[A-Za-z0-9_-]{4}…$/m);
      expect(log).toMatch(/^# export GEMINI_API_KEY=svc_alice_[A-Za-z0-9_-]{4}…$/m);
      expect(log).toContain(`export GOOGLE_GEMINI_BASE_URL=${origin}\n`);
      expect(log).toContain(`export OPENAI_BASE_URL=${origin}/v1`);
      expect(log).toContain('svc-router env');
      expect(log).toMatch(/200 GET \/whoami/);
      expect(leaks([logFile], [routerKey('the local key', key)])).toEqual([]);
    } finally {
      run.kill();
    }
  }, 60_000);
});
