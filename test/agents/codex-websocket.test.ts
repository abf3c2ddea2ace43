import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { codexConfigToml, KEY_ENV } from '../../src/cli/client-settings.js';
import { codexModelCatalogJson } from '../../src/cli/codex-model-catalog.js';
import type { RequestLogEntry } from '../../src/core/request-record.js';
import type { FakeUpstream } from '../fakes/fake-server.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { AGENT_PACKAGES, agentsUnavailable, installAgents } from './install-agents.js';
import { baseEnv, cleanupsAfterEach, codexExecArgs, describeRun, readIfExists, runAgent, tempRoot, type AgentRun } from './run-agent.js';
import { expectAnthropicToolResult, expectChatToolResult, expectMarkerWritten, expectSignedThinkingReplayed } from './round-trip-expectations.js';
import { describeRequests, hasTool, startShellToolUpstream } from './shell-tool-script.js';

/**
 * The real Codex CLI with `supports_websockets = true` on its router provider: its turns go over
 * one Responses WebSocket (a warm-up, then each turn continuing the last with previous_response_id),
 * and a router with the socket switched off sends it to HTTP at once.
 */

const MODEL = 'svc.intelligent-pro';
const MARKER = 'svc-codex-ws-marker-7';
const COMMAND = `echo ${MARKER} > marker.txt && echo done`;
const FINAL = 'FINAL-ANSWER-WS';
const PROMPT = 'Write the marker file with the shell tool, then report the final answer.';
const SHELL_TOOL = 'exec_command';
const FALLBACK_WARNING = 'Falling back from WebSockets to HTTPS transport';

let codex: string;
const unavailable = await agentsUnavailable();
beforeAll(async () => {
  if (unavailable) return;
  codex = (await installAgents()).codex;
}, 10 * 60_000);

const cleanups = cleanupsAfterEach();

type Kind = 'anthropic' | 'openai-chat';

/** A router whose one route goes to the upstream, recording every request (HTTP or socket turn) it serves. */
async function loggingRouter(kind: Kind, upstream: FakeUpstream): Promise<{ router: TestRouter; log: RequestLogEntry[] }> {
  const log: RequestLogEntry[] = [];
  const router = await startRouter({ http: { requestLog: { logBodies: false, record: (entry) => log.push(entry), flush() {} } } });
  cleanups.push(() => router.close());
  router.config.update((settings) => {
    if (kind === 'anthropic') settings.backends.anth = { type: 'anthropic', baseUrl: upstream.url, apiKey: 'k' };
    else settings.backends.oa = { type: 'openai-chat', baseUrl: upstream.url, apiKey: 'k' };
    settings.routes[MODEL] = [kind === 'anthropic' ? 'anth:claude-sonnet-4-5' : 'oa:gpt-4o-mini'];
  });
  return { router, log };
}

interface CodexRun extends AgentRun {
  lastMessage?: string;
  cwd: string;
}

/** `codex exec` with the router as a Responses provider that says it supports WebSockets; no retries, so a failure shows at once. */
async function runCodex(router: TestRouter, asConnectWrites = false, key: string | undefined = router.key): Promise<CodexRun> {
  const { root, home, cwd } = tempRoot(cleanups, 'svc-agent-codex-ws-');
  const codexHome = path.join(home, '.codex');
  fs.mkdirSync(codexHome);
  const lastMessageFile = path.join(root, 'last-message.txt');
  if (asConnectWrites) {
    // Exactly what `svc-router connect codex` writes: the key from an auth command, supports_websockets on.
    fs.writeFileSync(path.join(codexHome, 'config.toml'), codexConfigToml(router.origin));
    const env: NodeJS.ProcessEnv = { ...baseEnv(home), CODEX_HOME: codexHome, ...(key ? { [KEY_ENV]: key } : {}) };
    const run = await runAgent('codex', codex, codexExecArgs(lastMessageFile, PROMPT), cwd, env);
    return { ...run, lastMessage: readIfExists(lastMessageFile), cwd };
  }
  const catalogFile = path.join(codexHome, 'svc-models.json');
  fs.writeFileSync(catalogFile, codexModelCatalogJson());
  const config = [
    `model_provider = "svc"`,
    `model = ${JSON.stringify(MODEL)}`,
    `model_catalog_json = ${JSON.stringify(catalogFile)}`,
    '',
    '[model_providers.svc]',
    'name = "svc-router"',
    `base_url = ${JSON.stringify(`${router.origin}/v1`)}`,
    'wire_api = "responses"',
    'env_key = "SVC_TEST_KEY"',
    'supports_websockets = true',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
  ];
  fs.writeFileSync(path.join(codexHome, 'config.toml'), config.join('\n'));
  const env: NodeJS.ProcessEnv = { ...baseEnv(home), CODEX_HOME: codexHome, SVC_TEST_KEY: router.key, RUST_LOG: 'codex_core=info,codex_api=info' };
  const run = await runAgent('codex', codex, codexExecArgs(lastMessageFile, PROMPT), cwd, env);
  return { ...run, lastMessage: readIfExists(lastMessageFile), cwd };
}

const responsesTraffic = (log: RequestLogEntry[]) => log.filter((entry) => entry.path.startsWith('/v1/responses')).map((entry) => `${entry.method} ${entry.status}`);

function report(run: CodexRun, upstream: FakeUpstream, log: RequestLogEntry[]): string {
  return [...describeRun(run), `--- router log ---\n${responsesTraffic(log).join('\n')}`, `--- last message ---\n${run.lastMessage ?? '(none written)'}`, describeRequests(upstream)].join('\n');
}

function expectCompletedRun(run: CodexRun, why: string): void {
  expect(run.code, why).toBe(0);
  expectMarkerWritten(run.cwd, MARKER, why);
  expect(run.lastMessage, why).toContain(FINAL);
}

/** Every model turn went over the socket: no POST, no fallback. */
function expectSocketOnly(run: CodexRun, log: RequestLogEntry[], why: string): void {
  const traffic = responsesTraffic(log);
  expect(traffic.length, why).toBeGreaterThanOrEqual(2);
  expect(traffic.every((line) => line === 'WS 200'), why).toBe(true);
  expect(run.stdout + run.stderr, why).not.toContain(FALLBACK_WARNING);
}

describe.skipIf(unavailable)(`Codex ${AGENT_PACKAGES.codex.version} over the router's Responses WebSocket`, () => {
  it('runs a shell tool round trip over the socket against an OpenAI Chat upstream', async () => {
    const callId = 'call_codexwsshell01';
    const upstream = await startShellToolUpstream(cleanups, 'openai-chat', { tool: SHELL_TOOL, callId, input: { cmd: COMMAND }, final: FINAL });
    const { router, log } = await loggingRouter('openai-chat', upstream);

    const run = await runCodex(router);
    const why = report(run, upstream, log);

    expectCompletedRun(run, why);
    expectSocketOnly(run, log, why);
    const main = upstream.requests.filter((request) => hasTool(request.body?.tools, SHELL_TOOL));
    // Codex 0.169 sends the turn after the call as previous_response_id plus the call's output; the upstream still gets the whole conversation.
    expectChatToolResult(main, { id: callId, name: SHELL_TOOL, input: { cmd: COMMAND } }, why);
  }, 120_000);

  it('runs a shell tool round trip over the socket against an Anthropic upstream, signed thinking replayed from the socket\'s memory', async () => {
    const callId = 'toolu_01CodexWsShellCall';
    const thinking = 'The user wants the marker written; I will run the command.';
    const signature = 'sig-codex-ws-thinking-1';
    const upstream = await startShellToolUpstream(cleanups, 'anthropic', {
      tool: SHELL_TOOL,
      callId,
      input: { cmd: COMMAND },
      final: FINAL,
      reasoning: { call: { text: thinking, signature }, answer: { text: 'The command ran.', signature: 'sig-codex-ws-thinking-2' } },
    });
    const { router, log } = await loggingRouter('anthropic', upstream);

    const run = await runCodex(router);
    const why = report(run, upstream, log);

    expectCompletedRun(run, why);
    expectSocketOnly(run, log, why);
    const main = upstream.requests.filter((request) => hasTool(request.body?.tools, SHELL_TOOL));
    const after = expectAnthropicToolResult(main, callId, why);
    expectSignedThinkingReplayed(after, { thinking, signature }, { id: callId, name: SHELL_TOOL, input: { cmd: COMMAND } }, why);
  }, 120_000);

  it('stays on the socket with the config `connect codex` writes', async () => {
    const callId = 'call_codexwsconnect01';
    const upstream = await startShellToolUpstream(cleanups, 'openai-chat', { tool: SHELL_TOOL, callId, input: { cmd: COMMAND }, final: FINAL });
    const { router, log } = await loggingRouter('openai-chat', upstream);

    const run = await runCodex(router, true);
    const why = report(run, upstream, log);

    expectCompletedRun(run, why);
    expectSocketOnly(run, log, why);
  }, 120_000);

  it('goes over HTTP at once when the router refuses the socket (server.websockets off: 426)', async () => {
    const callId = 'call_codexwsfallback1';
    const upstream = await startShellToolUpstream(cleanups, 'openai-chat', { tool: SHELL_TOOL, callId, input: { cmd: COMMAND }, final: FINAL });
    const { router, log } = await loggingRouter('openai-chat', upstream);
    router.config.update((settings) => void (settings.server.websockets = false));

    const run = await runCodex(router);
    const why = report(run, upstream, log);

    expectCompletedRun(run, why);
    const traffic = responsesTraffic(log);
    // One refused upgrade, no retry of it, and every turn over HTTP after it.
    expect(traffic[0], why).toBe('GET 426');
    expect(traffic.filter((line) => line.startsWith('GET')), why).toEqual(['GET 426']);
    expect(traffic.slice(1).length, why).toBeGreaterThanOrEqual(2);
    expect(traffic.slice(1).every((line) => line === 'POST 200'), why).toBe(true);
  }, 120_000);
});
