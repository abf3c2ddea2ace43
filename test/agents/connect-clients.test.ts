import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { until } from '../cli/pty.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { CODEX_BASE_INSTRUCTIONS } from '../../src/handlers/models.js';
import { runCli, type CliResult } from '../cli/run-cli.js';
import type { FakeUpstream, RecordedRequest } from '../fakes/fake-server.js';
import { AGENT_PACKAGES, agentsUnavailable, installAgents } from './install-agents.js';
import { baseEnv, CLAUDE_QUIET_ENV, cleanupsAfterEach, codexExecArgs, describeRun, readIfExists, runAgent, tempRoot, type AgentRun } from './run-agent.js';
import { expectAnthropicToolResult, expectMarkerWritten } from './round-trip-expectations.js';
import { describeRequests, hasTool, routerFor, startShellToolUpstream } from './shell-tool-script.js';

/**
 * `svc-router connect codex|claude|gemini --write`, then the real client run with nothing but what
 * connect wrote (and, for Codex, the key's printed export line): the router, a scripted Anthropic
 * upstream behind svc.intelligent-pro, a shell tool round trip and a final answer. The SDK
 * snippets `connect openai-sdk|anthropic-sdk` print are run against a live router in
 * test/cli/connect.test.ts.
 */

const MODEL = 'svc.intelligent-pro';
const UPSTREAM_MODEL = 'claude-sonnet-4-5';
const MARKER = 'svc-connect-marker-7';
const COMMAND = `echo ${MARKER} > marker.txt && echo done`;
const FINAL = 'FINAL-ANSWER-CONNECTED';

let agents: { codex: string; claude: string; gemini: string };

/** Set when the CLIs can be neither found nor downloaded: the suite is skipped, saying why. */
const unavailable = await agentsUnavailable();

beforeAll(async () => {
  if (unavailable) return;
  agents = await installAgents();
}, 10 * 60_000);

const cleanups = cleanupsAfterEach();

/** Everything needed to tell why a run failed, for assertion messages. */
function report(connect: CliResult, written: string, run: AgentRun | undefined, upstream: FakeUpstream, extra: string[] = []): string {
  return [
    `--- svc-router connect exited ${connect.code} ---\n${connect.stdout}${connect.stderr ? `\n(stderr)\n${connect.stderr}` : ''}`,
    `--- written file ---\n${written}`,
    ...(run ? describeRun(run) : ['(the client did not run)']),
    ...extra,
    describeRequests(upstream),
  ].join('\n');
}

/** The shell round trip happened: the command asked for, its output sent back, all through svc.intelligent-pro. */
function expectToolRoundTrip(upstream: FakeUpstream, shellTool: string, callId: string, why: string): RecordedRequest[] {
  const main = upstream.requests.filter((request) => hasTool(request.body?.tools, shellTool));
  expect(main.length, why).toBeGreaterThanOrEqual(2);
  // Only svc.intelligent-pro is routed to this upstream, so the client used the configured model.
  expect(main.every((request) => request.body.model === UPSTREAM_MODEL), why).toBe(true);
  expectAnthropicToolResult(main, callId, why);
  return main;
}

const readIfThere = (file: string): string => readIfExists(file) ?? '(no file)';

describe.skipIf(unavailable)(`connect, then the real client: Codex ${AGENT_PACKAGES.codex.version}, Claude Code ${AGENT_PACKAGES.claude.version} and Gemini CLI ${AGENT_PACKAGES.gemini.version}`, () => {
  it('codex: `connect codex --write` gives a config.toml that codex exec runs as written, with the SKU first-class', async () => {
    const shellTool = 'exec_command';
    const callId = 'toolu_01ConnectCodexShell';
    const upstream = await startShellToolUpstream(cleanups, 'anthropic', { tool: shellTool, callId, input: { cmd: COMMAND }, final: FINAL });
    const router = await routerFor(cleanups, upstream, 'anthropic', { [MODEL]: [`anth:${UPSTREAM_MODEL}`] });
    const { root, home, cwd } = tempRoot(cleanups, 'svc-connect-codex-');
    const codexHome = path.join(home, '.codex');
    const configFile = path.join(codexHome, 'config.toml');

    // The router's own home is the CLI's: its stored key is the one connect prints.
    const connect = await runCli(['connect', 'codex', '--write', '--base-url', router.origin], { home: router.home, env: { CODEX_HOME: codexHome } });
    const written = readIfThere(configFile);
    const exported = /^export SVC_ROUTER_KEY=(\S+)$/m.exec(connect.stdout + connect.stderr)?.[1];
    let why = report(connect, written, undefined, upstream);
    expect(connect.code, why).toBe(0);
    expect(exported, why).toBe(router.key);
    expect(written, why).toContain('[model_providers.svc.auth]');
    expect(written, why).not.toContain('env_key');
    expect(written, why).not.toContain(router.key);

    const lastMessageFile = path.join(root, 'last-message.txt');
    const args = codexExecArgs(lastMessageFile, 'Write the marker file with the shell tool, then report the final answer.');
    const run = await runAgent('codex', agents.codex, args, cwd, { ...baseEnv(home), CODEX_HOME: codexHome, SVC_ROUTER_KEY: exported });
    const lastMessage = readIfThere(lastMessageFile);
    why = report(connect, written, run, upstream, [`--- last message ---\n${lastMessage}`]);

    expect(run.code, why).toBe(0);
    expectMarkerWritten(cwd, MARKER, why);
    expect(lastMessage, why).toContain(FINAL);
    expect(run.stdout, why).toContain(FINAL);
    // Codex fetched the router's catalog: no fallback metadata, apply_patch offered, the catalog's prompt sent.
    expect(run.stdout + run.stderr, why).not.toMatch(/model metadata/i);
    const main = expectToolRoundTrip(upstream, shellTool, callId, why);
    const applyPatch = main[0]!.body.tools.find((tool: any) => tool.name === 'apply_patch');
    expect(applyPatch?.input_schema, why).toMatchObject({ type: 'object', properties: { input: { type: 'string' } }, required: ['input'] });
    expect(JSON.stringify(main[0]!.body.system), why).toContain(JSON.stringify(CODEX_BASE_INSTRUCTIONS).slice(1, 80));
  }, 120_000);

  it('codex: without SVC_ROUTER_KEY, the failure names the variable and how to set it', async () => {
    const upstream = await startShellToolUpstream(cleanups, 'anthropic', { tool: 'exec_command', callId: 'toolu_01Unused', input: { cmd: 'true' }, final: FINAL });
    const router = await routerFor(cleanups, upstream, 'anthropic', { [MODEL]: [`anth:${UPSTREAM_MODEL}`] });
    const { root, home, cwd } = tempRoot(cleanups, 'svc-connect-codex-nokey-');
    const codexHome = path.join(home, '.codex');
    const connect = await runCli(['connect', 'codex', '--write', '--base-url', router.origin], { home: router.home, env: { CODEX_HOME: codexHome } });
    expect(connect.code, connect.stderr).toBe(0);

    // Codex retries a failing auth command with backoff for minutes: watch its output, then stop it.
    // Its own process group: codex's launcher runs a native binary, and both must be gone before
    // the home is removed, or the binary is still writing into it.
    const child = spawn(agents.codex, codexExecArgs(path.join(root, 'last.txt'), 'hi'), { cwd, env: { ...baseEnv(home), CODEX_HOME: codexHome }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const closed = new Promise((resolve) => child.once('close', resolve));
    cleanups.push(async () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // The group is already gone.
      }
      await closed;
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    await until(() => /SVC_ROUTER_KEY is not set/.test(output) || child.exitCode !== null, 60_000, 'codex naming the missing variable').catch((error: Error) => {
      error.message += `\n--- codex output ---\n${output}`;
      throw error;
    });
    expect(output).toMatch(/SVC_ROUTER_KEY is not set where codex runs: export SVC_ROUTER_KEY=/);
    expect(upstream.requests.filter((request) => hasTool(request.body?.tools, 'exec_command'))).toEqual([]);
  }, 90_000);

  it('claude: `connect claude --write` gives a ~/.claude/settings.json that claude -p runs on, with no ANTHROPIC_* of its own', async () => {
    const callId = 'toolu_01ConnectClaudeBash';
    const upstream = await startShellToolUpstream(cleanups, 'anthropic', { tool: 'Bash', callId, input: { command: COMMAND, description: 'write marker' }, final: FINAL });
    const router = await routerFor(cleanups, upstream, 'anthropic', { [MODEL]: [`anth:${UPSTREAM_MODEL}`] });
    const { home, cwd } = tempRoot(cleanups, 'svc-connect-claude-');
    const settingsFile = path.join(home, '.claude', 'settings.json');

    const connect = await runCli(['connect', 'claude', '--write', '--base-url', router.origin], {
      home: router.home,
      env: { HOME: home, USERPROFILE: home, CLAUDE_CONFIG_DIR: undefined },
    });
    const written = readIfThere(settingsFile);
    let why = report(connect, written, undefined, upstream);
    expect(connect.code, why).toBe(0);
    // Only svc.intelligent-pro is routed to a real model, so every tier is it; the window is Claude's 200k.
    const tiers = ['ANTHROPIC_MODEL', 'ANTHROPIC_DEFAULT_OPUS_MODEL', 'ANTHROPIC_DEFAULT_SONNET_MODEL', 'ANTHROPIC_DEFAULT_HAIKU_MODEL', 'ANTHROPIC_DEFAULT_FABLE_MODEL', 'ANTHROPIC_SMALL_FAST_MODEL', 'CLAUDE_CODE_SUBAGENT_MODEL', 'CLAUDE_CODE_AUTO_MODE_MODEL'];
    expect(JSON.parse(written), why).toEqual({
      env: { ANTHROPIC_BASE_URL: router.origin, ANTHROPIC_AUTH_TOKEN: router.key, ...Object.fromEntries(tiers.map((name) => [name, MODEL])), CLAUDE_CODE_MAX_CONTEXT_TOKENS: '200000' },
    });

    // No ANTHROPIC_* variables, no CLAUDE_CONFIG_DIR and no --model: the settings file is the only configuration.
    const env: NodeJS.ProcessEnv = { ...baseEnv(home), ...CLAUDE_QUIET_ENV };
    const args = ['-p', 'Write the marker file with the Bash tool, then report the final answer.', '--allowedTools', 'Bash', '--max-turns', '4', '--output-format', 'text'];
    const run = await runAgent('claude', agents.claude, args, cwd, env);
    why = report(connect, written, run, upstream);

    expect(run.code, why).toBe(0);
    expectMarkerWritten(cwd, MARKER, why);
    expect(run.stdout, why).toContain(FINAL);
    // Claude Code knows the window it was told, and no side request fell to the offline backend.
    expect(run.stdout + run.stderr, why).not.toMatch(/doesn't recognize the model|isn't recognized/i);
    const served = await router.app.ledger.breakdown();
    expect(served.length, why).toBeGreaterThan(0);
    expect(served.filter((row) => row.backend === 'offline'), why).toEqual([]);
    const main = expectToolRoundTrip(upstream, 'Bash', callId, why);
    const assistant = main.at(-1)!.body.messages.findLast((message: any) => message.role === 'assistant');
    const toolUse = (Array.isArray(assistant?.content) ? assistant.content : []).find((block: any) => block.type === 'tool_use');
    expect(toolUse, why).toMatchObject({ type: 'tool_use', id: callId, name: 'Bash', input: { command: COMMAND } });
  }, 120_000);

  it('gemini: `connect gemini --write` gives a ~/.gemini (settings.json and .env) that gemini -p runs on, with no GEMINI_* variables of its own', async () => {
    const shellTool = 'run_shell_command';
    const upstream = await startShellToolUpstream(cleanups, 'anthropic', { tool: shellTool, callId: 'toolu_01ConnectGeminiShell', input: { command: COMMAND, description: 'write marker' }, final: FINAL });
    const router = await routerFor(cleanups, upstream, 'anthropic', { [MODEL]: [`anth:${UPSTREAM_MODEL}`] });
    const { home, cwd } = tempRoot(cleanups, 'svc-connect-gemini-');
    const settingsFile = path.join(home, '.gemini', 'settings.json');
    const envFile = path.join(home, '.gemini', '.env');
    // Settings of the user's own, which connect keeps: no update checks or statistics from a test.
    const own = { general: { disableAutoUpdate: true, disableUpdateNag: true }, privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } };
    fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
    fs.writeFileSync(settingsFile, `${JSON.stringify(own, null, 2)}\n`);

    const connect = await runCli(['connect', 'gemini', '--write', '--base-url', `${router.origin}/v1`], {
      home: router.home,
      env: { HOME: home, USERPROFILE: home, GEMINI_CLI_HOME: undefined, GEMINI_API_KEY: undefined, GOOGLE_GEMINI_BASE_URL: undefined },
    });
    const written = `${readIfThere(settingsFile)}\n--- ${envFile} ---\n${readIfThere(envFile)}`;
    let why = report(connect, written, undefined, upstream);
    expect(connect.code, why).toBe(0);
    expect(JSON.parse(readIfThere(settingsFile)), why).toEqual({ ...own, model: { name: MODEL }, security: { auth: { selectedType: 'gemini-api-key' } } });
    expect(readIfThere(envFile), why).toBe(`GOOGLE_GEMINI_BASE_URL=${router.origin}\nGEMINI_API_KEY=${router.key}\n`);
    expect(fs.statSync(envFile).mode & 0o777, why).toBe(0o600);
    expect(connect.stdout + connect.stderr, why).not.toContain(router.key);

    // No GEMINI_* or GOOGLE_* variables and no --model: the two files are the only configuration.
    // A headless run needs the folder trusted, and Gemini CLI reads ~/.gemini/.env only then.
    const env: NodeJS.ProcessEnv = { ...baseEnv(home), GEMINI_CLI_TRUST_WORKSPACE: 'true' };
    const args = ['-p', 'Write the marker file with the shell tool, then report the final answer.', '--yolo', '--output-format', 'text'];
    const run = await runAgent('gemini', agents.gemini, args, cwd, env);
    why = report(connect, written, run, upstream);

    expect(run.code, why).toBe(0);
    expectMarkerWritten(cwd, MARKER, why);
    expect(run.stdout, why).toContain(FINAL);
    // Only svc.intelligent-pro reaches this upstream, so Gemini CLI asked for the model connect wrote.
    const main = upstream.requests.filter((request) => hasTool(request.body?.tools, shellTool));
    expect(main.length, why).toBeGreaterThanOrEqual(2);
    expect(main.every((request) => request.body.model === UPSTREAM_MODEL), why).toBe(true);
    expect(JSON.stringify(main.at(-1)!.body.messages), why).toContain('tool_result');
    const served = await router.app.ledger.breakdown();
    expect(served.filter((row) => row.backend === 'offline'), why).toEqual([]);
  }, 120_000);
});
