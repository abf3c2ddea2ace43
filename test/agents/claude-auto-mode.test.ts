import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicUpstream } from '../fakes/anthropic-upstream.js';
import type { FakeUpstream } from '../fakes/fake-server.js';
import type { ScriptedTurn } from '../fakes/scripted-turn.js';
import { AGENT_PACKAGES, agentsUnavailable, installAgent } from './install-agents.js';
import { baseEnv, CLAUDE_QUIET_ENV, cleanupsAfterEach, describeRun, readIfExists, tempRoot } from './run-agent.js';
import { describeRequests, hasTool, lastUserToolResultIds, routerFor, startShellToolUpstream } from './shell-tool-script.js';
import { promisify } from 'node:util';
import { shellQuote, until } from '../cli/pty.js';

const exec = promisify(execFile);

/**
 * Claude Code's auto mode through the router. In auto mode Claude Code sends `safeguards` and
 * expects a verdict per tool call in `message_delta.delta.safeguard_results`; without one it
 * cannot check a risky action and stops to ask. The fake upstream answers as Anthropic does: every
 * tool call of a turn evaluated, none flagged. The command writes outside the working directory,
 * which auto mode never runs unchecked.
 */

const MARKER = 'svc-auto-mode-marker';
const FINAL = 'FINAL-AUTO-MODE';
const CALL_ID = 'toolu_01AutoModeOutside';
const MODEL = 'claude-sonnet-4-5';
/** What Claude Code asks for: auto mode is offered for models it does not know (as through a gateway), not for Sonnet 4.5. */
const SKU = 'svc.intelligent-pro';

let claude: string;

/** Set when the CLIs can be neither found nor downloaded: the suite is skipped, saying why. */
const unavailable = await agentsUnavailable();

beforeAll(async () => {
  if (unavailable) return;
  claude = await installAgent('claude');
}, 10 * 60_000);

const cleanups = cleanupsAfterEach();

/** Anthropic's verdict for a turn's tool calls: each evaluated, none flagged. */
const notFlagged = (toolUseIds: string[]) => ({
  safeguard_results: [
    {
      type: 'dangerous_tool_use',
      status: { type: 'available', tool_uses: Object.fromEntries(toolUseIds.map((id) => [id, { type: 'evaluated', outcome: 'not_flagged' }])) },
    },
  ],
});

async function autoModeUpstream(outsideFile: string): Promise<FakeUpstream> {
  const command = `echo ${MARKER} > ${outsideFile} && echo done`;
  const upstream = await startAnthropicUpstream((body): ScriptedTurn => {
    const verdict = (body as { safeguards?: unknown }).safeguards === undefined ? undefined : notFlagged;
    if (!hasTool(body.tools, 'Bash') || body.model !== MODEL) return { text: 'ok', anthropicExtra: verdict };
    if (!lastUserToolResultIds(body.messages).includes(CALL_ID)) {
      return { toolCalls: [{ id: CALL_ID, name: 'Bash', arguments: { command, description: 'write the marker outside the project' } }], anthropicExtra: verdict };
    }
    return { text: FINAL, anthropicExtra: verdict };
  });
  cleanups.push(() => upstream.close());
  return upstream;
}

function isRunning(pid: number): boolean {
  if (!(pid > 0)) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const CANT_CHECK = /can't check actions|check isn't getting through/i;

/**
 * Runs Claude Code interactively in a tmux terminal of its own, as a user does: auto mode sends
 * `safeguards` only in an interactive session. Onboarding and the folder-trust question are
 * answered in its config beforehand. Returns the screen once `done` holds for it or auto mode
 * says it cannot check actions.
 */
async function runInteractive(cwd: string, home: string, env: NodeJS.ProcessEnv, upstream: FakeUpstream, done: (screen: string) => boolean): Promise<string> {
  const configDir = path.join(home, '.claude');
  fs.mkdirSync(configDir, { recursive: true });
  fs.writeFileSync(
    path.join(configDir, '.claude.json'),
    JSON.stringify({ hasCompletedOnboarding: true, theme: 'dark', projects: { [cwd]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } } }),
  );
  const socket = `svc-auto-${process.pid}-${Date.now()}`;
  const tmux = (...args: string[]) => exec('tmux', ['-L', socket, ...args], { env: { ...env, TERM: 'xterm-256color' } });
  const screen = async () => (await tmux('capture-pane', '-p', '-t', 'auto').catch(() => ({ stdout: '' }))).stdout;
  const prompt = 'Write the marker file with the Bash tool, then report the final answer.';
  const command = [claude, '--model', SKU, '--permission-mode', 'auto', prompt].map(shellQuote).join(' ');
  await tmux('new-session', '-d', '-s', 'auto', '-x', '200', '-y', '50', '-c', cwd, `cd ${shellQuote(cwd)} && exec ${command}`);
  const panePid = Number((await tmux('list-panes', '-t', 'auto', '-F', '#{pane_pid}').catch(() => ({ stdout: '' }))).stdout.trim());
  // Claude Code goes on writing into its home for a moment after its terminal closes: the temp
  // root is removed only once it has exited (SIGKILL if it lingers).
  cleanups.push(async () => {
    await tmux('kill-server').catch(() => undefined);
    await until(async () => !isRunning(panePid), 10_000, 'Claude Code to exit').catch(() => isRunning(panePid) && process.kill(panePid, 'SIGKILL'));
  });
  let seen = '';
  try {
    await until(async () => done((seen = await screen())) || CANT_CHECK.test(seen), 100_000, 'the end of the task, or the auto-mode stop');
  } catch (error) {
    (error as Error).message += `\n--- screen ---\n${await screen()}\n${describeRequests(upstream)}`;
    throw error;
  }
  return seen;
}

describe.skipIf(unavailable)(`Claude Code ${AGENT_PACKAGES.claude.version} in auto mode`, () => {
  it('runs a command outside the working directory on the verdict the Anthropic route forwards, with no "can\'t check actions" stop', async () => {
    const { root, home, cwd } = tempRoot(cleanups, 'svc-agent-auto-');
    const outsideFile = path.join(root, 'outside', 'marker.txt');
    fs.mkdirSync(path.dirname(outsideFile));
    const upstream = await autoModeUpstream(outsideFile);
    const router = await routerFor(cleanups, upstream, 'anthropic', { [SKU]: [`anth:${MODEL}`] });
    const env: NodeJS.ProcessEnv = {
      ...baseEnv(home),
      CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
      ANTHROPIC_BASE_URL: router.origin,
      ANTHROPIC_AUTH_TOKEN: router.key,
      ...CLAUDE_QUIET_ENV,
    };
    const seen = await runInteractive(cwd, home, env, upstream, (screen) => screen.includes(FINAL));
    const run = { name: 'claude', code: 0, signal: null, stdout: seen, stderr: '', ms: 0 };
    const why = [...describeRun(run), describeRequests(upstream)].join('\n');

    const main = upstream.requests.filter((request) => hasTool(request.body?.tools, 'Bash') && request.body.model === MODEL);
    expect(main.length, why).toBeGreaterThanOrEqual(2);
    // Auto mode asked for a verdict, and the upstream saw the same `safeguards` Claude Code sent.
    expect(main[0]!.body.safeguards, why).toEqual([expect.objectContaining({ type: 'dangerous_tool_use', classifier_context: expect.any(Object) })]);
    expect(run.stdout, why).not.toMatch(CANT_CHECK);
    expect(readIfExists(outsideFile), why).toBe(`${MARKER}\n`);
    expect(run.stdout, why).toContain(FINAL);
  }, 150_000);

  /**
   * The documented behaviour of translated routes (docs/compatibility.md): a Chat upstream has no
   * safety classifier, and the router invents no verdict. Claude Code says auto mode cannot check
   * actions and offers to approve each one; nothing risky runs unchecked.
   */
  it('on an OpenAI Chat route: no verdict is invented; Claude Code stops the risky action and offers to approve it', async () => {
    const { root, home, cwd } = tempRoot(cleanups, 'svc-agent-auto-chat-');
    const outsideFile = path.join(root, 'outside', 'marker.txt');
    fs.mkdirSync(path.dirname(outsideFile));
    const command = `echo ${MARKER} > ${outsideFile} && echo done`;
    const upstream = await startShellToolUpstream(cleanups, 'openai-chat', { tool: 'Bash', callId: 'call_automodechat01', input: { command, description: 'write the marker outside the project' }, final: FINAL });
    const router = await routerFor(cleanups, upstream, 'openai-chat', { [SKU]: ['oa:gpt-4o'] });
    const env: NodeJS.ProcessEnv = {
      ...baseEnv(home),
      CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
      ANTHROPIC_BASE_URL: router.origin,
      ANTHROPIC_AUTH_TOKEN: router.key,
      ...CLAUDE_QUIET_ENV,
    };
    const seen = await runInteractive(cwd, home, env, upstream, (screen) => screen.includes(FINAL));
    const why = [`--- screen ---\n${seen}`, describeRequests(upstream)].join('\n');
    expect(seen, why).toMatch(CANT_CHECK);
    expect(readIfExists(outsideFile), why).toBeUndefined();
    // The Chat upstream was asked once, with no Anthropic-only field, and nothing answered the check.
    expect(upstream.requests.length, why).toBe(1);
    expect(upstream.requests[0]!.body, why).not.toHaveProperty('safeguards');
  }, 150_000);
});
