import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CODEX_BASE_INSTRUCTIONS } from '../../src/handlers/models.js';
import { runCli, type CliResult } from '../cli/run-cli.js';
import { startAnthropicUpstream } from '../fakes/anthropic-upstream.js';
import type { FakeUpstream, RecordedRequest } from '../fakes/fake-server.js';
import type { ScriptedTurn } from '../fakes/scripted-turn.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { AGENT_PACKAGES, installAgents } from './install-agents.js';

/**
 * `svc-router connect codex|claude --write`, then the real client run with nothing but what
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
const RUN_TIMEOUT_MS = 90_000;

let agents: { codex: string; claude: string };

beforeAll(async () => {
  agents = await installAgents();
}, 10 * 60_000);

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface AgentRun {
  name: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** A fresh root with `home` (the client's HOME) and `work` (its working directory). */
function tempRoot(prefix: string): { root: string; home: string; cwd: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }));
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'work');
  for (const dir of [home, cwd]) fs.mkdirSync(dir, { recursive: true });
  return { root, home, cwd };
}

/** Only what a client needs to run, so no real config, credentials or outer agent session leak in. */
function baseEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    USER: os.userInfo().username,
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    TMPDIR: os.tmpdir(),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
  };
}

/** Runs an agent CLI with stdin closed; a hung run is killed after RUN_TIMEOUT_MS. */
async function runAgent(name: string, binary: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<AgentRun> {
  const started = performance.now();
  const child = spawn(binary, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
  }).finally(() => clearTimeout(timer));
  return { name, code, signal, stdout, stderr, ms: Math.round(performance.now() - started) };
}

/** Everything needed to tell why a run failed, for assertion messages. */
function report(connect: CliResult, written: string, run: AgentRun | undefined, upstream: FakeUpstream, extra: string[] = []): string {
  const requests = upstream.requests.map((request, index) => `#${index} ${request.method} ${request.path}\n${summarise(request)}`).join('\n');
  return [
    `--- svc-router connect exited ${connect.code} ---\n${connect.stdout}${connect.stderr ? `\n(stderr)\n${connect.stderr}` : ''}`,
    `--- written file ---\n${written}`,
    ...(run
      ? [`${run.name} exited with code ${run.code} (signal ${run.signal}) after ${run.ms} ms`, `--- stdout ---\n${run.stdout}`, `--- stderr ---\n${run.stderr}`]
      : ['(the client did not run)']),
    ...extra,
    `--- ${upstream.requests.length} upstream request(s) ---\n${requests}`,
  ].join('\n');
}

/** The request without its long system prompt and tool schemas. */
function summarise(request: RecordedRequest): string {
  const body = request.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return String(body);
  const brief: Record<string, unknown> = { ...body };
  if (Array.isArray(body.tools)) brief.tools = body.tools.map((tool: any) => tool.name ?? tool.function?.name);
  if (body.system !== undefined) brief.system = `${JSON.stringify(body.system).length} chars`;
  return JSON.stringify(brief, (_key, value: unknown) => (typeof value === 'string' && value.length > 400 ? `${value.slice(0, 400)}…` : value), 1);
}

/**
 * An Anthropic upstream that, on requests carrying the client's shell tool, asks for COMMAND once
 * and answers FINAL after the result; anything else (titles, helper calls) gets a short answer.
 */
async function scriptedUpstream(shellTool: string, callId: string, input: object): Promise<FakeUpstream> {
  const side: ScriptedTurn = { text: 'ok' };
  const upstream = await startAnthropicUpstream((body) => {
    if (!hasTool(body.tools, shellTool)) return side;
    if (!lastUserToolResultIds(body.messages).includes(callId)) return { toolCalls: [{ id: callId, name: shellTool, arguments: input }] };
    return { text: FINAL };
  });
  cleanups.push(() => upstream.close());
  return upstream;
}

/** A router whose svc.intelligent-pro goes to the upstream; nothing else is routed to it. */
async function routerFor(upstream: FakeUpstream): Promise<TestRouter> {
  const router = await startRouter();
  cleanups.push(() => router.close());
  router.config.update((settings) => {
    settings.backends.anth = { type: 'anthropic', baseUrl: upstream.url, apiKey: 'k' };
    settings.routes[MODEL] = [`anth:${UPSTREAM_MODEL}`];
  });
  return router;
}

/** The shell round trip happened: the command asked for, its output sent back, all through svc.intelligent-pro. */
function expectToolRoundTrip(upstream: FakeUpstream, shellTool: string, callId: string, why: string): RecordedRequest[] {
  const main = upstream.requests.filter((request) => hasTool(request.body?.tools, shellTool));
  expect(main.length, why).toBeGreaterThanOrEqual(2);
  // Only svc.intelligent-pro is routed to this upstream, so the client used the configured model.
  expect(main.every((request) => request.body.model === UPSTREAM_MODEL), why).toBe(true);
  const after = main.find((request) => lastUserToolResultIds(request.body.messages).includes(callId));
  expect(after, why).toBeDefined();
  expect(main.indexOf(after!), why).toBeGreaterThan(0);
  const result = lastUserMessage(after!.body.messages)!.content.find((block: any) => block.type === 'tool_result');
  expect(result, why).toMatchObject({ type: 'tool_result', tool_use_id: callId });
  expect(JSON.stringify(result.content), why).toContain('done');
  return main;
}

function expectMarker(cwd: string, why: string): void {
  const marker = path.join(cwd, 'marker.txt');
  expect(fs.existsSync(marker), why).toBe(true);
  expect(fs.readFileSync(marker, 'utf8').trim(), why).toBe(MARKER);
}

const readIfThere = (file: string): string => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '(no file)');

describe(`connect, then the real client: Codex ${AGENT_PACKAGES.codex.version} and Claude Code ${AGENT_PACKAGES.claude.version}`, () => {
  it('codex: `connect codex --write` gives a config.toml that codex exec runs as written, with the SKU first-class', async () => {
    const shellTool = 'exec_command';
    const callId = 'toolu_01ConnectCodexShell';
    const upstream = await scriptedUpstream(shellTool, callId, { cmd: COMMAND });
    const router = await routerFor(upstream);
    const { root, home, cwd } = tempRoot('svc-connect-codex-');
    const codexHome = path.join(home, '.codex');
    const configFile = path.join(codexHome, 'config.toml');

    // The router's own home is the CLI's: its stored key is the one connect prints.
    const connect = await runCli(['connect', 'codex', '--write', '--base-url', router.origin], { home: router.home, env: { CODEX_HOME: codexHome } });
    const written = readIfThere(configFile);
    const exported = /^export SVC_ROUTER_KEY=(\S+)$/m.exec(connect.stdout)?.[1];
    let why = report(connect, written, undefined, upstream);
    expect(connect.code, why).toBe(0);
    expect(exported, why).toBe(router.key);
    expect(written, why).toContain('[model_providers.svc.auth]');
    expect(written, why).not.toContain('env_key');
    expect(written, why).not.toContain(router.key);

    const lastMessageFile = path.join(root, 'last-message.txt');
    const args = [
      'exec',
      '--skip-git-repo-check',
      '--ephemeral',
      '--color',
      'never',
      // The scripted command only touches the temporary directory; Codex's own sandbox needs
      // kernel features (Landlock, seccomp, namespaces) that not every CI container offers.
      '--dangerously-bypass-approvals-and-sandbox',
      '--output-last-message',
      lastMessageFile,
      'Write the marker file with the shell tool, then report the final answer.',
    ];
    const run = await runAgent('codex', agents.codex, args, cwd, { ...baseEnv(home), CODEX_HOME: codexHome, SVC_ROUTER_KEY: exported });
    const lastMessage = readIfThere(lastMessageFile);
    why = report(connect, written, run, upstream, [`--- last message ---\n${lastMessage}`]);

    expect(run.code, why).toBe(0);
    expectMarker(cwd, why);
    expect(lastMessage, why).toContain(FINAL);
    expect(run.stdout, why).toContain(FINAL);
    // Codex fetched the router's catalog: no fallback metadata, apply_patch offered, the catalog's prompt sent.
    expect(run.stdout + run.stderr, why).not.toMatch(/model metadata/i);
    const main = expectToolRoundTrip(upstream, shellTool, callId, why);
    const applyPatch = main[0]!.body.tools.find((tool: any) => tool.name === 'apply_patch');
    expect(applyPatch?.input_schema, why).toMatchObject({ type: 'object', properties: { input: { type: 'string' } }, required: ['input'] });
    expect(JSON.stringify(main[0]!.body.system), why).toContain(JSON.stringify(CODEX_BASE_INSTRUCTIONS).slice(1, 80));
  }, 120_000);

  it('claude: `connect claude --write` gives a ~/.claude/settings.json that claude -p runs on, with no ANTHROPIC_* of its own', async () => {
    const callId = 'toolu_01ConnectClaudeBash';
    const upstream = await scriptedUpstream('Bash', callId, { command: COMMAND, description: 'write marker' });
    const router = await routerFor(upstream);
    const { home, cwd } = tempRoot('svc-connect-claude-');
    const settingsFile = path.join(home, '.claude', 'settings.json');

    const connect = await runCli(['connect', 'claude', '--write', '--base-url', router.origin], {
      home: router.home,
      env: { HOME: home, USERPROFILE: home, CLAUDE_CONFIG_DIR: undefined },
    });
    const written = readIfThere(settingsFile);
    let why = report(connect, written, undefined, upstream);
    expect(connect.code, why).toBe(0);
    expect(JSON.parse(written), why).toEqual({ env: { ANTHROPIC_BASE_URL: router.origin, ANTHROPIC_AUTH_TOKEN: router.key, ANTHROPIC_MODEL: MODEL } });

    // No ANTHROPIC_* variables, no CLAUDE_CONFIG_DIR and no --model: the settings file is the only configuration.
    const env: NodeJS.ProcessEnv = {
      ...baseEnv(home),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
    };
    const args = ['-p', 'Write the marker file with the Bash tool, then report the final answer.', '--allowedTools', 'Bash', '--max-turns', '4', '--output-format', 'text'];
    const run = await runAgent('claude', agents.claude, args, cwd, env);
    why = report(connect, written, run, upstream);

    expect(run.code, why).toBe(0);
    expectMarker(cwd, why);
    expect(run.stdout, why).toContain(FINAL);
    const main = expectToolRoundTrip(upstream, 'Bash', callId, why);
    const assistant = main.at(-1)!.body.messages.findLast((message: any) => message.role === 'assistant');
    const toolUse = (Array.isArray(assistant?.content) ? assistant.content : []).find((block: any) => block.type === 'tool_use');
    expect(toolUse, why).toMatchObject({ type: 'tool_use', id: callId, name: 'Bash', input: { command: COMMAND } });
  }, 120_000);
});

function hasTool(tools: unknown, name: string): boolean {
  return Array.isArray(tools) && tools.some((tool: any) => tool?.name === name || tool?.function?.name === name);
}

function lastUserMessage(messages: any[]): any {
  return messages.findLast((message) => message.role === 'user');
}

/** tool_use_ids answered by tool_result blocks in the last user message. */
function lastUserToolResultIds(messages: any[]): string[] {
  const content = lastUserMessage(messages)?.content;
  if (!Array.isArray(content)) return [];
  return content.filter((block: any) => block?.type === 'tool_result').map((block: any) => block.tool_use_id);
}
