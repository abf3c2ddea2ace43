import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicUpstream } from '../fakes/anthropic-upstream.js';
import type { FakeUpstream } from '../fakes/fake-server.js';
import { startGeminiUpstream } from '../fakes/gemini-upstream.js';
import type { ScriptedTurn } from '../fakes/scripted-turn.js';
import { startRouter } from '../helpers/router.js';
import { closedPortUrl } from '../helpers/unused-port.js';
import { shellQuote, until } from '../cli/pty.js';
import { askedCall, CLASSIFIER, startScriptedClassifier, type ClassifierAnswer } from '../server/safety-verdicts-support.js';
import { AGENT_PACKAGES, agentsUnavailable, installAgent } from './install-agents.js';
import { baseEnv, CLAUDE_QUIET_ENV, cleanupsAfterEach, readIfExists, tempRoot, type Cleanups } from './run-agent.js';
import { describeRequests, hasTool, lastUserToolResultIds, routerFor, startShellToolUpstream } from './shell-tool-script.js';

const exec = promisify(execFile);

/**
 * Claude Code's auto mode through the router. In auto mode Claude Code sends `safeguards` and
 * expects a verdict per tool call in `message_delta.delta.safeguard_results`; without one it
 * cannot check a risky action. The command writes outside the working directory, which auto mode
 * never runs unchecked. On an Anthropic route the upstream's own verdict is relayed; on an OpenAI
 * Chat or Gemini route the router asks its classifier route (a scripted classifier here) and
 * writes the verdict, or, with the classifier down, the answer that has Claude Code ask the user.
 */

const MARKER = 'svc-auto-mode-marker';
const FINAL = 'FINAL-AUTO-MODE';
const CALL_ID = 'toolu_01AutoModeOutside';
const MODEL = 'claude-sonnet-4-5';
/** What Claude Code asks for: auto mode is offered for models it does not know (as through a gateway), not for Sonnet 4.5. */
const SKU = 'svc.intelligent-pro';
const PROMPT = 'Write the marker file with the Bash tool, then report the final answer.';
/** How the scripted classifier's explanation of a flagged call ends (safety-verdicts-support.ts). */
const EXPLANATION = 'is dangerous.';

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

/** A Gemini upstream that asks for the command once, then answers FINAL once its result is back. */
async function geminiShellUpstream(command: string): Promise<FakeUpstream> {
  const upstream = await startGeminiUpstream((body: any): ScriptedTurn => {
    const offersBash = (body.tools ?? []).some((tool: any) => (tool.functionDeclarations ?? []).some((declaration: any) => declaration.name === 'Bash'));
    if (!offersBash) return { text: 'ok' };
    const answered = (body.contents ?? []).some((content: any) => (content.parts ?? []).some((part: any) => part.functionResponse?.name === 'Bash'));
    return answered ? { text: FINAL } : { toolCalls: [{ name: 'Bash', arguments: { command, description: 'write the marker outside the project' } }] };
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

interface Session {
  /** The screen once `done` held for it. */
  seen: string;
  screen(): Promise<string>;
  keys(...keys: string[]): Promise<unknown>;
}

/**
 * Runs Claude Code interactively in a tmux terminal of its own, as a user does: auto mode sends
 * `safeguards` only in an interactive session. Onboarding and the folder-trust question are
 * answered in its config beforehand. Resolves once `done` holds for the screen.
 */
async function runInteractive(cwd: string, home: string, env: NodeJS.ProcessEnv, upstream: FakeUpstream, done: (screen: string) => boolean): Promise<Session> {
  const configDir = path.join(home, '.claude');
  fs.mkdirSync(configDir, { recursive: true });
  fs.writeFileSync(
    path.join(configDir, '.claude.json'),
    JSON.stringify({ hasCompletedOnboarding: true, theme: 'dark', projects: { [cwd]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } } }),
  );
  const socket = `svc-auto-${process.pid}-${Date.now()}`;
  const tmux = (...args: string[]) => exec('tmux', ['-L', socket, ...args], { env: { ...env, TERM: 'xterm-256color' } });
  const screen = async () => (await tmux('capture-pane', '-p', '-t', 'auto').catch(() => ({ stdout: '' }))).stdout;
  const command = [claude, '--model', SKU, '--permission-mode', 'auto', PROMPT].map(shellQuote).join(' ');
  await tmux('new-session', '-d', '-s', 'auto', '-x', '200', '-y', '50', '-c', cwd, `cd ${shellQuote(cwd)} && exec ${command}`);
  const panePid = Number((await tmux('list-panes', '-t', 'auto', '-F', '#{pane_pid}').catch(() => ({ stdout: '' }))).stdout.trim());
  // Claude Code goes on writing into its home for a moment after its terminal closes: the temp
  // root is removed only once it has exited (SIGKILL if it lingers).
  cleanups.push(async () => {
    await tmux('kill-server').catch(() => undefined);
    await until(async () => !isRunning(panePid), 10_000, 'Claude Code to exit').catch(() => isRunning(panePid) && process.kill(panePid, 'SIGKILL'));
  });
  const session: Session = { seen: '', screen, keys: (...keys) => tmux('send-keys', '-t', 'auto', ...keys) };
  await waitFor(session, upstream, done, 'the screen Claude Code was to reach');
  return session;
}

async function waitFor(session: Session, upstream: FakeUpstream, done: (screen: string) => boolean, what: string): Promise<void> {
  try {
    await until(async () => done((session.seen = await session.screen())), 100_000, what);
  } catch (error) {
    (error as Error).message += `\n--- screen ---\n${await session.screen()}\n${describeRequests(upstream)}`;
    throw error;
  }
}

/**
 * Answers the permission question Yes and waits for the final answer. A question still asked after
 * Enter (a key Claude Code dropped while it redrew: the choice is back on No) is answered again.
 */
async function approve(session: Session, upstream: FakeUpstream): Promise<void> {
  const asked = (screen: string) => screen.includes('Do you want to proceed?') && screen.includes('❯ No');
  for (let answer = 0; answer < 5; answer++) {
    await choose(session, '❯ Yes', 'Down');
    await session.keys('Enter');
    const after = await until(async () => {
      const screen = (session.seen = await session.screen());
      return screen.includes(FINAL) || asked(screen);
    }, 30_000, 'the final answer or the question again').then(() => session.seen, () => session.seen);
    if (after.includes(FINAL)) return;
  }
  await waitFor(session, upstream, (screen) => screen.includes(FINAL), 'the command to run once approved');
}

/** Presses `key` until the screen shows `shown`, giving the terminal a moment to redraw between presses. */
async function choose(session: Session, shown: string, key: string): Promise<void> {
  for (let press = 0; press < 20; press++) {
    await session.keys(key);
    const moved = await until(async () => (await session.screen()).includes(shown), 1_500, `${shown} on screen`).then(
      () => true,
      () => false,
    );
    if (moved) return;
  }
  throw new Error(`${shown} never showed:\n${await session.screen()}`);
}

function claudeEnv(home: string, origin: string, key: string): NodeJS.ProcessEnv {
  return { ...baseEnv(home), CLAUDE_CONFIG_DIR: path.join(home, '.claude'), ANTHROPIC_BASE_URL: origin, ANTHROPIC_AUTH_TOKEN: key, ...CLAUDE_QUIET_ENV };
}

describe.skipIf(unavailable)(`Claude Code ${AGENT_PACKAGES.claude.version} in auto mode`, () => {
  it('runs a command outside the working directory on the verdict the Anthropic route forwards, with no "can\'t check actions" stop', async () => {
    const { root, home, cwd } = tempRoot(cleanups, 'svc-agent-auto-');
    const outsideFile = path.join(root, 'outside', 'marker.txt');
    fs.mkdirSync(path.dirname(outsideFile));
    const upstream = await autoModeUpstream(outsideFile);
    const router = await routerFor(cleanups, upstream, 'anthropic', { [SKU]: [`anth:${MODEL}`] });
    const { seen } = await runInteractive(cwd, home, claudeEnv(home, router.origin, router.key), upstream, (screen) => screen.includes(FINAL) || CANT_CHECK.test(screen));
    const why = [`--- screen ---\n${seen}`, describeRequests(upstream)].join('\n');

    const main = upstream.requests.filter((request) => hasTool(request.body?.tools, 'Bash') && request.body.model === MODEL);
    expect(main.length, why).toBeGreaterThanOrEqual(2);
    // Auto mode asked for a verdict, and the upstream saw the same `safeguards` Claude Code sent.
    expect(main[0]!.body.safeguards, why).toEqual([expect.objectContaining({ type: 'dangerous_tool_use', classifier_context: expect.any(Object) })]);
    expect(seen, why).not.toMatch(CANT_CHECK);
    expect(readIfExists(outsideFile), why).toBe(`${MARKER}\n`);
    expect(seen, why).toContain(FINAL);
  }, 150_000);

  for (const kind of ['openai-chat', 'gemini'] as const) {
    describe(`on ${kind === 'gemini' ? 'a Gemini' : 'an OpenAI Chat'} route, with the router's classifier`, () => {
      /** The main route on `kind`, the classifier route on a scripted classifier (or a closed port: down). */
      async function setUp(classifier: ClassifierAnswer | 'down', prefix: string) {
        const { root, home, cwd } = tempRoot(cleanups, prefix);
        const outsideFile = path.join(root, 'outside', 'marker.txt');
        fs.mkdirSync(path.dirname(outsideFile));
        const command = `echo ${MARKER} > ${outsideFile} && echo done`;
        const upstream =
          kind === 'gemini'
            ? await geminiShellUpstream(command)
            : await startShellToolUpstream(cleanups, 'openai-chat', { tool: 'Bash', callId: 'call_automodechat01', input: { command, description: 'write the marker outside the project' }, final: FINAL });
        const router = await startRouter();
        cleanups.push(() => router.close());
        const judged = classifier === 'down' ? undefined : await scriptedClassifier(cleanups, classifier);
        const judgeUrl = judged?.url ?? (await closedPortUrl());
        router.config.update((settings) => {
          if (kind === 'gemini') {
            settings.backends.gem = { type: 'gemini', baseUrl: upstream.url, apiKey: 'k' };
            settings.routes[SKU] = ['gem:gemini-2.5-flash'];
          } else {
            settings.backends.oa = { type: 'openai-chat', baseUrl: upstream.url, apiKey: 'k' };
            settings.routes[SKU] = ['oa:gpt-4o'];
          }
          settings.backends.judge = { type: 'openai-chat', baseUrl: judgeUrl, apiKey: 'k' };
          settings.routes[CLASSIFIER] = ['judge:judge-model'];
          settings.safeguards.classifier = CLASSIFIER;
        });
        return { home, cwd, outsideFile, upstream, router, judged };
      }

      it('runs a command outside the working directory after a not_flagged verdict', async () => {
        const { home, cwd, outsideFile, upstream, router, judged } = await setUp('not_flagged', 'svc-agent-auto-ok-');
        const { seen } = await runInteractive(cwd, home, claudeEnv(home, router.origin, router.key), upstream, (screen) => screen.includes(FINAL) || CANT_CHECK.test(screen));
        const why = [`--- screen ---\n${seen}`, describeRequests(upstream)].join('\n');
        expect(seen, why).not.toMatch(CANT_CHECK);
        expect(readIfExists(outsideFile), why).toBe(`${MARKER}\n`);
        expect(seen, why).toContain(FINAL);
        // The classifier was asked about exactly that command, and the upstream never saw `safeguards`.
        expect(judged!.requests.map((request) => askedCall(request.body)?.input.command), why).toContain(`echo ${MARKER} > ${outsideFile} && echo done`);
        expect(JSON.stringify(upstream.requests.map((request) => request.body)), why).not.toContain('dangerous_tool_use');
      }, 150_000);

      it("blocks a flagged command with Claude Code's own message", async () => {
        const { home, cwd, outsideFile, upstream, router } = await setUp('flagged', 'svc-agent-auto-flag-');
        const { seen } = await runInteractive(cwd, home, claudeEnv(home, router.origin, router.key), upstream, (screen) => screen.includes(FINAL) || CANT_CHECK.test(screen));
        const why = [`--- screen ---\n${seen}`, describeRequests(upstream)].join('\n');
        expect(seen, why).toContain('Blocked by auto mode');
        expect(seen, why).toContain(EXPLANATION);
        expect(readIfExists(outsideFile), why).toBeUndefined();
      }, 150_000);

      it('asks the user when the classifier is down, and runs the command once the user says yes', async () => {
        const { home, cwd, outsideFile, upstream, router } = await setUp('down', 'svc-agent-auto-down-');
        const session = await runInteractive(cwd, home, claudeEnv(home, router.origin, router.key), upstream, (screen) => screen.includes('Do you want to proceed?'));
        const why = () => [`--- screen ---\n${session.seen}`, describeRequests(upstream)].join('\n');
        expect(session.seen, why()).toContain("Auto mode can't check actions in this session, so this one needs your approval");
        expect(readIfExists(outsideFile), why()).toBeUndefined();
        // The question defaults to No; the user picks Yes. Claude Code ignores keys for a moment
        // after it shows a permission question (no approval by a stray key), so Down is pressed
        // until the choice moves.
        await approve(session, upstream);
        expect(readIfExists(outsideFile), why()).toBe(`${MARKER}\n`);
      }, 150_000);
    });
  }
});

/** The scripted classifier: the marker command gets `answer`, every other call `not_flagged`. */
async function scriptedClassifier(cleanups: Cleanups, answer: ClassifierAnswer) {
  const classifier = await startScriptedClassifier((input) => (String(input?.command ?? '').includes(MARKER) ? answer : 'not_flagged'), {});
  cleanups.push(() => classifier.close());
  return classifier;
}
