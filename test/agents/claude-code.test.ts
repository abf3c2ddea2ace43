import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicUpstream } from '../fakes/anthropic-upstream.js';
import type { FakeUpstream, RecordedRequest } from '../fakes/fake-server.js';
import { startOpenAIChatUpstream } from '../fakes/openai-chat-upstream.js';
import type { ScriptedTurn } from '../fakes/scripted-turn.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { AGENT_PACKAGES, installAgents } from './install-agents.js';

/**
 * The real Claude Code CLI (`claude -p`) against the router, with scripted fake upstreams behind
 * it: the model asks for a Bash call, Claude Code really runs it, sends the result back, and the
 * model answers. Everything runs on loopback in temporary directories.
 */

const MARKER = 'svc-marker-123';
const COMMAND = `echo ${MARKER} > marker.txt && echo done`;
const FINAL = 'FINAL-ANSWER-42';
const PROMPT = 'Write the marker file with the Bash tool, then report the final answer.';
const RUN_TIMEOUT_MS = 90_000;

let claude: string;

beforeAll(async () => {
  claude = (await installAgents()).claude;
}, 10 * 60_000);

interface AgentRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  cwd: string;
  debugLog?: string;
  ms: number;
}

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * Runs `claude -p` with stdin closed, in a fresh temporary HOME and working directory. The router
 * key goes in as ANTHROPIC_API_KEY (sent as x-api-key) or ANTHROPIC_AUTH_TOKEN (Authorization:
 * Bearer). SVC_AGENT_DEBUG=1 adds Claude Code's debug log to failure reports.
 */
async function runClaude(router: TestRouter, model: string, auth: 'api-key' | 'auth-token'): Promise<AgentRun> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-agent-claude-'));
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }));
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'work');
  for (const dir of [home, cwd]) fs.mkdirSync(dir, { recursive: true });

  // Built from scratch so no real config, credentials or outer agent session leak in.
  const env: NodeJS.ProcessEnv = {
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
    CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
    ANTHROPIC_BASE_URL: router.origin,
    ...(auth === 'api-key' ? { ANTHROPIC_API_KEY: router.key } : { ANTHROPIC_AUTH_TOKEN: router.key }),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
  };
  const args = ['-p', PROMPT, '--model', model, '--allowedTools', 'Bash', '--max-turns', '4', '--output-format', 'text'];
  const debugFile = process.env.SVC_AGENT_DEBUG ? path.join(root, 'claude-debug.log') : undefined;
  if (debugFile) args.push('--debug-file', debugFile);

  const started = performance.now();
  const child = spawn(claude, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
  }).finally(() => clearTimeout(timer));
  const debugLog = debugFile && fs.existsSync(debugFile) ? fs.readFileSync(debugFile, 'utf8') : undefined;
  return { code, signal, stdout, stderr, cwd, debugLog, ms: Math.round(performance.now() - started) };
}

/** Everything needed to tell why a run failed, for assertion messages. */
function report(run: AgentRun, upstream: FakeUpstream): string {
  const requests = upstream.requests.map((request, index) => `#${index} ${request.method} ${request.path}\n${summarise(request)}`).join('\n');
  return [
    `claude exited with code ${run.code} (signal ${run.signal}) after ${run.ms} ms`,
    `--- stdout ---\n${run.stdout}`,
    `--- stderr ---\n${run.stderr}`,
    `--- ${upstream.requests.length} upstream request(s) ---\n${requests}`,
    run.debugLog === undefined ? '(set SVC_AGENT_DEBUG=1 for Claude Code\'s debug log)' : `--- claude debug log (last 20000 chars) ---\n${run.debugLog.slice(-20_000)}`,
  ].join('\n');
}

/** The request without its long system prompt and tool schemas. */
function summarise(request: RecordedRequest): string {
  const body = request.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return String(body);
  const brief: Record<string, unknown> = { ...body };
  if (Array.isArray(body.tools)) brief.tools = body.tools.map((tool: any) => tool.name ?? tool.function?.name);
  if (body.system !== undefined) brief.system = `${JSON.stringify(body.system).length} chars`;
  if (Array.isArray(body.messages)) {
    brief.messages = body.messages.map((message: any) =>
      message.role === 'system' ? { role: 'system', content: `${JSON.stringify(message.content).length} chars` } : message,
    );
  }
  return JSON.stringify(brief, (_key, value: unknown) => (typeof value === 'string' && value.length > 400 ? `${value.slice(0, 400)}…` : value), 1);
}

const sideAnswer: ScriptedTurn = { text: 'ok' };

describe(`Claude Code ${AGENT_PACKAGES.claude.version} through the router`, () => {
  it('runs a Bash tool round trip against an Anthropic upstream, replaying signed thinking (claude-sonnet-4-5)', async () => {
    const callId = 'toolu_01AgentSuiteBashCall';
    const thinking = 'The user wants the marker written; I will run the command.';
    const signature = 'sig-agent-suite-thinking-1';
    const upstream = await startAnthropicUpstream((body) => {
      // Claude Code's side requests (titles, quota probes, helper models) carry no Bash tool.
      const hasBash = (body.tools ?? []).some((tool) => 'name' in tool && tool.name === 'Bash');
      if (!hasBash || body.model !== 'claude-sonnet-4-5') return sideAnswer;
      if (!lastUserToolResultIds(body.messages).includes(callId)) {
        return {
          reasoning: { text: thinking, signature },
          toolCalls: [{ id: callId, name: 'Bash', arguments: { command: COMMAND, description: 'write marker' } }],
        };
      }
      return { reasoning: { text: 'The command ran.', signature: 'sig-agent-suite-thinking-2' }, text: FINAL };
    });
    cleanups.push(() => upstream.close());
    const router = await startRouter();
    cleanups.push(() => router.close());
    router.config.update((settings) => {
      settings.backends.anth = { type: 'anthropic', baseUrl: upstream.url, apiKey: 'k' };
      settings.routes['claude-*'] = ['anth'];
    });

    const run = await runClaude(router, 'claude-sonnet-4-5', 'api-key');
    const why = report(run, upstream);

    expect(run.code, why).toBe(0);
    const marker = path.join(run.cwd, 'marker.txt');
    expect(fs.existsSync(marker), why).toBe(true);
    expect(fs.readFileSync(marker, 'utf8').trim(), why).toBe(MARKER);
    expect(run.stdout, why).toContain(FINAL);

    const main = upstream.requests.filter((request) => request.body?.model === 'claude-sonnet-4-5' && hasTool(request.body?.tools, 'Bash'));
    const after = main.find((request) => lastUserToolResultIds(request.body.messages).includes(callId));
    expect(after, why).toBeDefined();
    // The call was asked for by an earlier request that had no result yet.
    expect(main.indexOf(after!), why).toBeGreaterThan(0);
    const result = lastUserMessage(after!.body.messages)!.content.find((block: any) => block.type === 'tool_result');
    expect(result, why).toMatchObject({ type: 'tool_result', tool_use_id: callId });
    expect(JSON.stringify(result.content), why).toContain('done');

    // The assistant turn with the tool call comes back with its thinking block, signature intact.
    const assistant = after!.body.messages.findLast((message: any) => message.role === 'assistant');
    const blocks: any[] = Array.isArray(assistant?.content) ? assistant.content : [];
    expect(blocks.map((block) => block.type), why).toEqual(['thinking', 'tool_use']);
    expect(blocks[0], why).toMatchObject({ type: 'thinking', thinking, signature });
    expect(blocks[1], why).toMatchObject({ type: 'tool_use', id: callId, name: 'Bash', input: { command: COMMAND } });
  }, 120_000);

  it('runs a Bash tool round trip against an OpenAI Chat upstream, authenticating with a bearer token (svc.intelligent-basic)', async () => {
    const callId = 'call_agentsuitebash01';
    const upstream = await startOpenAIChatUpstream((body) => {
      const hasBash = (body.tools ?? []).some((tool) => tool.type === 'function' && tool.function.name === 'Bash');
      if (!hasBash) return sideAnswer;
      const answered = body.messages.some((message) => message.role === 'tool' && message.tool_call_id === callId);
      if (!answered) return { toolCalls: [{ id: callId, name: 'Bash', arguments: { command: COMMAND, description: 'write marker' } }] };
      return { text: FINAL };
    });
    cleanups.push(() => upstream.close());
    const router = await startRouter();
    cleanups.push(() => router.close());
    router.config.update((settings) => {
      settings.backends.oa = { type: 'openai-chat', baseUrl: upstream.url, apiKey: 'k' };
      settings.routes['svc.intelligent-basic'] = ['oa:gpt-4o-mini'];
    });

    const run = await runClaude(router, 'svc.intelligent-basic', 'auth-token');
    const why = report(run, upstream);

    expect(run.code, why).toBe(0);
    const marker = path.join(run.cwd, 'marker.txt');
    expect(fs.existsSync(marker), why).toBe(true);
    expect(fs.readFileSync(marker, 'utf8').trim(), why).toBe(MARKER);
    expect(run.stdout, why).toContain(FINAL);

    const main = upstream.requests.filter((request) => hasTool(request.body?.tools, 'Bash'));
    expect(main.every((request) => request.body.model === 'gpt-4o-mini'), why).toBe(true);
    const after = main.find((request) => request.body.messages.some((message: any) => message.role === 'tool'));
    expect(after, why).toBeDefined();
    const messages: any[] = after!.body.messages;
    const call = messages.findLast((message) => message.role === 'assistant' && message.tool_calls?.length);
    expect(call?.tool_calls, why).toMatchObject([{ id: callId, type: 'function', function: { name: 'Bash' } }]);
    expect(JSON.parse(call.tool_calls[0].function.arguments), why).toMatchObject({ command: COMMAND });
    const result = messages.find((message) => message.role === 'tool');
    expect(result, why).toMatchObject({ role: 'tool', tool_call_id: callId });
    expect(JSON.stringify(result.content), why).toContain('done');
    expect(messages.indexOf(result), why).toBe(messages.indexOf(call) + 1);
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
