import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../fakes/fake-server.js';
import type { TestRouter } from '../helpers/router.js';
import { AGENT_PACKAGES, agentsUnavailable, installAgents, type AgentName } from './install-agents.js';
import { baseEnv, CLAUDE_QUIET_ENV, cleanupsAfterEach, describeRun, readIfExists, runAgent, tempRoot, type AgentRun } from './run-agent.js';
import { expectAnthropicToolResult, expectChatToolResult, expectMarkerWritten, expectSignedThinkingReplayed } from './round-trip-expectations.js';
import { describeRequests, hasTool, routerFor, startShellToolUpstream } from './shell-tool-script.js';

/**
 * The real Claude Code CLI (`claude -p`) against the router, with scripted fake upstreams behind
 * it: the model asks for a Bash call, Claude Code really runs it, sends the result back, and the
 * model answers. Everything runs on loopback in temporary directories.
 */

const MARKER = 'svc-marker-123';
const COMMAND = `echo ${MARKER} > marker.txt && echo done`;
const FINAL = 'FINAL-ANSWER-42';
const PROMPT = 'Write the marker file with the Bash tool, then report the final answer.';

let binaries: Record<AgentName, string>;

/** Set when the CLIs can be neither found nor downloaded: the suite is skipped, saying why. */
const unavailable = await agentsUnavailable();

beforeAll(async () => {
  if (unavailable) return;
  binaries = await installAgents();
}, 10 * 60_000);

interface ClaudeRun extends AgentRun {
  cwd: string;
  debugLog?: string;
}

const cleanups = cleanupsAfterEach();

/**
 * Runs `claude -p` with stdin closed, in a fresh temporary HOME and working directory. The router
 * key goes in as ANTHROPIC_API_KEY (sent as x-api-key) or ANTHROPIC_AUTH_TOKEN (Authorization:
 * Bearer). SVC_AGENT_DEBUG=1 adds Claude Code's debug log to failure reports.
 */
async function runClaude(claude: string, router: TestRouter, model: string, auth: 'api-key' | 'auth-token'): Promise<ClaudeRun> {
  const { root, home, cwd } = tempRoot(cleanups, 'svc-agent-claude-');
  const env: NodeJS.ProcessEnv = {
    ...baseEnv(home),
    CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
    ANTHROPIC_BASE_URL: router.origin,
    ...(auth === 'api-key' ? { ANTHROPIC_API_KEY: router.key } : { ANTHROPIC_AUTH_TOKEN: router.key }),
    ...CLAUDE_QUIET_ENV,
  };
  const args = ['-p', PROMPT, '--model', model, '--allowedTools', 'Bash', '--max-turns', '4', '--output-format', 'text'];
  const debugFile = process.env.SVC_AGENT_DEBUG ? path.join(root, 'claude-debug.log') : undefined;
  if (debugFile) args.push('--debug-file', debugFile);

  const run = await runAgent('claude', claude, args, cwd, env);
  return { ...run, cwd, debugLog: debugFile && readIfExists(debugFile) };
}

/** Everything needed to tell why a run failed, for assertion messages. */
function report(run: ClaudeRun, upstream: FakeUpstream): string {
  return [
    ...describeRun(run),
    describeRequests(upstream),
    run.debugLog === undefined ? '(set SVC_AGENT_DEBUG=1 for Claude Code\'s debug log)' : `--- claude debug log (last 20000 chars) ---\n${run.debugLog.slice(-20_000)}`,
  ].join('\n');
}

/** The newest Claude Code and the one before it. */
const VERSIONS = (['claude', 'claude-previous'] as const).map((agent) => ({ agent, version: AGENT_PACKAGES[agent].version }));

describe.skipIf(unavailable).each(VERSIONS)('Claude Code $version through the router', ({ agent }) => {
  it('runs a Bash tool round trip against an Anthropic upstream, replaying signed thinking (claude-sonnet-4-5)', async () => {
    const callId = 'toolu_01AgentSuiteBashCall';
    const thinking = 'The user wants the marker written; I will run the command.';
    const signature = 'sig-agent-suite-thinking-1';
    const upstream = await startShellToolUpstream(cleanups, 'anthropic', {
      tool: 'Bash',
      callId,
      input: { command: COMMAND, description: 'write marker' },
      final: FINAL,
      // Claude Code's side requests (titles, quota probes, helper models) carry no Bash tool or use
      // another model; they get a short answer.
      model: 'claude-sonnet-4-5',
      reasoning: { call: { text: thinking, signature }, answer: { text: 'The command ran.', signature: 'sig-agent-suite-thinking-2' } },
    });
    const router = await routerFor(cleanups, upstream, 'anthropic', { 'claude-*': ['anth'] });

    const run = await runClaude(binaries[agent], router, 'claude-sonnet-4-5', 'api-key');
    const why = report(run, upstream);

    expect(run.code, why).toBe(0);
    expectMarkerWritten(run.cwd, MARKER, why);
    expect(run.stdout, why).toContain(FINAL);

    const main = upstream.requests.filter((request) => request.body?.model === 'claude-sonnet-4-5' && hasTool(request.body?.tools, 'Bash'));
    const after = expectAnthropicToolResult(main, callId, why);
    expectSignedThinkingReplayed(after, { thinking, signature }, { id: callId, name: 'Bash', input: { command: COMMAND } }, why);
  }, 120_000);

  it('runs a Bash tool round trip against an OpenAI Chat upstream, authenticating with a bearer token (svc.intelligent-basic)', async () => {
    const callId = 'call_agentsuitebash01';
    const upstream = await startShellToolUpstream(cleanups, 'openai-chat', { tool: 'Bash', callId, input: { command: COMMAND, description: 'write marker' }, final: FINAL });
    const router = await routerFor(cleanups, upstream, 'openai-chat', { 'svc.intelligent-basic': ['oa:gpt-4o-mini'] });

    const run = await runClaude(binaries[agent], router, 'svc.intelligent-basic', 'auth-token');
    const why = report(run, upstream);

    expect(run.code, why).toBe(0);
    expectMarkerWritten(run.cwd, MARKER, why);
    expect(run.stdout, why).toContain(FINAL);

    const main = upstream.requests.filter((request) => hasTool(request.body?.tools, 'Bash'));
    expect(main.every((request) => request.body.model === 'gpt-4o-mini'), why).toBe(true);
    expectChatToolResult(main, { id: callId, name: 'Bash', input: { command: COMMAND } }, why);
  }, 120_000);

  it('runs a Bash tool round trip against an OpenAI Responses upstream (svc.intelligent-pro)', async () => {
    const callId = 'call_agentsuiteresp01';
    const upstream = await startShellToolUpstream(cleanups, 'openai-responses', { tool: 'Bash', callId, input: { command: COMMAND, description: 'write marker' }, final: FINAL });
    const router = await routerFor(cleanups, upstream, 'openai-responses', { 'svc.intelligent-pro': ['oar:gpt-5-mini'] });

    const run = await runClaude(binaries[agent], router, 'svc.intelligent-pro', 'auth-token');
    const why = report(run, upstream);

    expect(run.code, why).toBe(0);
    expectMarkerWritten(run.cwd, MARKER, why);
    expect(run.stdout, why).toContain(FINAL);
    const main = upstream.requests.filter((request) => hasTool(request.body?.tools, 'Bash'));
    expect(main.every((request) => request.body.model === 'gpt-5-mini'), why).toBe(true);
    const output = main.at(-1)!.body.input.find((item: any) => item.type === 'function_call_output' && item.call_id === callId);
    expect(output?.output, why).toContain('done');
  }, 120_000);
});
