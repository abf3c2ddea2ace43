import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Settings } from '../../src/config/settings.js';
import { createRequestLog } from '../../src/server/request-log.js';
import { startFakeServer, sendJson } from '../fakes/fake-server.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { AGENT_PACKAGES, agentsUnavailable, installAgents, type AgentName } from './install-agents.js';
import { baseEnv, CLAUDE_QUIET_ENV, cleanupsAfterEach, describeRun, readIfExists, runAgent, tempRoot, type AgentRun } from './run-agent.js';

/**
 * What the real Claude Code (`claude -p`) shows its user when the router refuses. It retries every
 * 5xx and 401 on its own schedule (eleven tries over about three minutes) unless the answer says
 * `x-should-retry: false`, so a refusal no retry can fix must say so; and it reads every 404 on
 * /v1/messages as "There's an issue with the selected model", so a wrong base URL must come as a
 * status it shows word for word (a 400).
 */

let binaries: Record<AgentName, string>;
const unavailable = await agentsUnavailable();
beforeAll(async () => {
  if (unavailable) return;
  binaries = await installAgents();
}, 10 * 60_000);

const cleanups = cleanupsAfterEach();
const MODEL = 'claude-sonnet-4-6';
/**
 * The bound: the router's refusal is on the user's screen within 5 s. Counted from the
 * refusal (the first /v1/messages answered) to Claude Code's exit, which is what the router
 * decides: Claude Code's own start-up before its first request (about 2.5 s on a quiet machine,
 * three times that on a loaded one) is the same with or without the router. Without
 * `x-should-retry: false` the same span is Claude Code's three-minute retry loop.
 */
const SHOWN_WITHIN_MS = 5_000;

/** A router that notes the path of every request it answers, and when (performance.now()). */
async function loggingRouter(): Promise<{ router: TestRouter; paths: string[]; answeredAt: number[] }> {
  const paths: string[] = [];
  const answeredAt: number[] = [];
  const requestLog = createRequestLog({
    format: 'json',
    write: (text) => {
      for (const line of text.split('\n').filter(Boolean)) {
        const { path: seen } = JSON.parse(line) as { path: string };
        paths.push(seen);
        if (seen === '/v1/messages') answeredAt.push(performance.now());
      }
    },
  });
  const router = await startRouter({ http: { requestLog } });
  cleanups.push(() => router.close());
  return { router, paths, answeredAt };
}

interface ClaudeRun extends AgentRun {
  debugLog?: string;
  /** performance.now() when the process exited. */
  exitedAt: number;
}

async function runClaude(agent: AgentName, baseUrl: string, key: string): Promise<ClaudeRun> {
  const { root, home, cwd } = tempRoot(cleanups, 'svc-agent-claude-errors-');
  const env: NodeJS.ProcessEnv = { ...baseEnv(home), CLAUDE_CONFIG_DIR: path.join(home, '.claude'), ANTHROPIC_BASE_URL: baseUrl, ANTHROPIC_API_KEY: key, ...CLAUDE_QUIET_ENV };
  const args = ['-p', 'hello', '--model', MODEL, '--output-format', 'text'];
  const debugFile = process.env.SVC_AGENT_DEBUG ? path.join(root, 'claude-debug.log') : undefined;
  if (debugFile) args.push('--debug-file', debugFile);
  const run = await runAgent('claude', binaries[agent], args, cwd, env);
  return { ...run, exitedAt: performance.now(), debugLog: debugFile && readIfExists(debugFile) };
}

/** Milliseconds from the router's first answer on /v1/messages to Claude Code's exit. */
const shownAfter = (run: ClaudeRun, answeredAt: number[]): number => Math.round(run.exitedAt - (answeredAt[0] ?? Number.NaN));

const why = (run: ClaudeRun, paths: string[]): string =>
  [...describeRun(run), `--- router saw ---\n${paths.join('\n')}`, run.debugLog === undefined ? "(set SVC_AGENT_DEBUG=1 for Claude Code's debug log)" : `--- debug log ---\n${run.debugLog.slice(-20_000)}`].join('\n');

const VERSIONS = (['claude', 'claude-previous'] as const).map((agent) => ({ agent, version: AGENT_PACKAGES[agent].version }));

describe.skipIf(unavailable).each(VERSIONS)('Claude Code $version shows what the router says', ({ agent }) => {
  it("a wrong key: the router's message, after one request, in under 5 s", async () => {
    const { router, paths, answeredAt } = await loggingRouter();
    const run = await runClaude(agent, router.origin, 'svc-wrong-key-0000000000000000000000');
    const text = why(run, paths);
    expect(run.code, text).not.toBe(0);
    expect(run.stdout + run.stderr, text).toContain('Invalid API key. Check the key you were issued');
    expect(paths.filter((seen) => seen === '/v1/messages'), text).toHaveLength(1);
    expect(shownAfter(run, answeredAt), text).toBeLessThan(SHOWN_WITHIN_MS);
    process.stderr.write(`claude ${AGENT_PACKAGES[agent].version}, wrong key: shown ${shownAfter(run, answeredAt)} ms after the refusal, ${run.ms} ms after start\n`);
  }, 60_000);

  it("a backend the router cannot use (no key variable, no AWS credentials, a key its upstream refuses): the router's message, after one request", async () => {
    const upstream = await startFakeServer(async (_request, res) => sendJson(res, 401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }));
    cleanups.push(() => upstream.close());
    const backends: Array<[Settings['backends'][string], string]> = [
      [{ type: 'anthropic', baseUrl: upstream.origin, apiKeyEnv: 'SVC_ROUTER_TEST_NEVER_SET_KEY' }, "takes its key from $SVC_ROUTER_TEST_NEVER_SET_KEY, which is not set where svc-router runs"],
      [{ type: 'bedrock', baseUrl: upstream.origin, region: 'us-east-1', awsProfile: 'svc-router-test-no-such-profile' }, "has no AWS credentials: the AWS profile 'svc-router-test-no-such-profile'"],
      [{ type: 'anthropic', baseUrl: upstream.origin, apiKey: 'sk-ant-test-backend-key-0000' }, 'rejected its API key (HTTP 401)'],
    ];
    for (const [backend, said] of backends) {
      const { router, paths, answeredAt } = await loggingRouter();
      router.config.update((settings) => {
        settings.backends.b = backend;
        settings.routes['claude-*'] = ['b'];
      });
      const run = await runClaude(agent, router.origin, router.key);
      const text = why(run, paths);
      expect(run.code, text).not.toBe(0);
      expect(run.stdout + run.stderr, text).toContain(`Backend 'b' ${said}`);
      // One try: no retry loop before the message.
      expect(paths.filter((seen) => seen === '/v1/messages'), text).toHaveLength(1);
      expect(shownAfter(run, answeredAt), text).toBeLessThan(SHOWN_WITHIN_MS);
      process.stderr.write(`claude ${AGENT_PACKAGES[agent].version}, ${backend.type} backend refused: shown ${shownAfter(run, answeredAt)} ms after the refusal, ${run.ms} ms after start\n`);
    }
  }, 120_000);

  it('a base URL ending in /v1: the router\'s fix, not "an issue with the selected model"', async () => {
    const { router, paths } = await loggingRouter();
    const run = await runClaude(agent, `${router.origin}/v1`, router.key);
    const text = why(run, paths);
    expect(run.code, text).not.toBe(0);
    const shown = run.stdout + run.stderr;
    expect(shown, text).toContain('The base URL has /v1 twice; remove one');
    expect(shown, text).toContain(`Claude Code (ANTHROPIC_BASE_URL) and Anthropic's SDKs take ${router.origin}, without /v1`);
    expect(shown, text).not.toContain('issue with the selected model');
  }, 60_000);
});
