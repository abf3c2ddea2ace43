import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../fakes/fake-server.js';
import type { TestRouter } from '../helpers/router.js';
import { AGENT_PACKAGES, agentsUnavailable, installAgent } from './install-agents.js';
import { runGeminiSession, workspace, type SessionRun, type Workspace } from './cache-agents.js';
import { cleanupsAfterEach, describeRun } from './run-agent.js';
import { expectMarkerWritten } from './round-trip-expectations.js';
import { describeRequests, hasTool, routerFor, startShellToolUpstream, type UpstreamKind } from './shell-tool-script.js';

/**
 * The real Gemini CLI (`gemini -p … --yolo`) against the router's Gemini API door, with scripted
 * fake upstreams of every kind behind it: the model asks for a `run_shell_command` call, Gemini CLI
 * really runs it, sends the result back as a functionResponse, and the model answers. Gemini CLI
 * streams every turn (`:streamGenerateContent?alt=sse`) with its key in `x-goog-api-key`.
 */

const MARKER = 'svc-gemini-marker-123';
const COMMAND = `echo ${MARKER} > marker.txt && echo done`;
const FINAL = 'FINAL-ANSWER-42';
const SHELL_TOOL = 'run_shell_command';

let gemini: string;

const unavailable = await agentsUnavailable();

beforeAll(async () => {
  if (unavailable) return;
  gemini = await installAgent('gemini');
}, 10 * 60_000);

const cleanups = cleanupsAfterEach();

/** Runs `gemini -p` with stdin closed, in a fresh temporary HOME and working directory. */
async function runGemini(router: TestRouter, model: string): Promise<SessionRun & Workspace> {
  const dirs = workspace(cleanups, 'svc-agent-gemini-');
  return { ...(await runGeminiSession(gemini, dirs, router.origin, router.key, model)), ...dirs };
}

function report(run: SessionRun, upstream: FakeUpstream): string {
  return [...describeRun(run), describeRequests(upstream)].join('\n');
}

/** The upstream request that carried the command's result back, in that upstream's own shape. */
function resultReachedUpstream(kind: UpstreamKind, upstream: FakeUpstream): boolean {
  const main = upstream.requests.filter((request) => hasTool(request.body?.tools, SHELL_TOOL));
  return main.some((request) => {
    const text = JSON.stringify(
      kind === 'gemini' ? request.body.contents : kind === 'openai-responses' ? request.body.input : request.body.messages,
    );
    return text.includes('done') && (kind !== 'gemini' || text.includes('functionResponse'));
  });
}

const ROUTES: Array<{ kind: UpstreamKind; model: string; target: string }> = [
  { kind: 'gemini', model: 'svc.intelligent-pro', target: 'gem:gemini-2.5-pro' },
  { kind: 'openai-chat', model: 'svc.intelligent-basic', target: 'oa:gpt-4o-mini' },
  { kind: 'openai-responses', model: 'svc.intelligent-pro', target: 'oar:gpt-5-mini' },
  { kind: 'anthropic', model: 'svc.intelligent-pro', target: 'anth:claude-sonnet-4-5' },
];

describe.skipIf(unavailable)(`Gemini CLI ${AGENT_PACKAGES.gemini.version} through the router`, () => {
  it.each(ROUTES)('runs a shell tool round trip against a $kind upstream ($model)', async ({ kind, model, target }) => {
    const callId = `call_gemini_${kind.replace(/-/g, '_')}`;
    const upstream = await startShellToolUpstream(cleanups, kind, { tool: SHELL_TOOL, callId, input: { command: COMMAND, description: 'write marker' }, final: FINAL });
    const router = await routerFor(cleanups, upstream, kind, { [model]: [target] });

    const run = await runGemini(router, model);
    const why = report(run, upstream);

    expect(run.code, why).toBe(0);
    expectMarkerWritten(run.cwd, MARKER, why);
    expect(run.stdout, why).toContain(FINAL);
    expect(resultReachedUpstream(kind, upstream), why).toBe(true);
    const upstreamModel = target.slice(target.indexOf(':') + 1);
    const main = upstream.requests.filter((request) => hasTool(request.body?.tools, SHELL_TOOL));
    if (kind === 'gemini') expect(main.every((request) => request.path.includes(`/models/${upstreamModel}:`)), why).toBe(true);
    else expect(main.every((request) => request.body.model === upstreamModel), why).toBe(true);
  }, 120_000);
});
