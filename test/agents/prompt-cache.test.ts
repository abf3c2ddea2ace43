import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendOnlyRecords, type CacheProvider } from '../fakes/append-only-share.js';
import { cachedShare, firstChangedPart, prefixChange, type PromptRecord } from '../fakes/prompt-cache.js';
import { claudeScript, codexScript, FINAL, geminiScript, HOOK_CONTEXT, runClaudeSession, runCodexSession, runGeminiSession, workspace, type ClaudeExtras, type SessionRun, type Workspace } from './cache-agents.js';
import { CACHE_RESULTS_FILE, renderCacheTables, TOLERANCE, type CacheCell, type CacheResults, type DirectSession, type Measured } from './cache-results.js';
import { CACHE_ROUTES, routerInFrontOf, startCacheSessionUpstream, UPSTREAM_MODELS, type CacheRoute, type CacheUpstream } from './cache-session.js';
import { AGENT_PACKAGES, agentsUnavailable, installAgents, type AgentName } from './install-agents.js';
import { cleanupsAfterEach, describeRun } from './run-agent.js';
import { describeRequests } from './shell-tool-script.js';

/**
 * The same bill as going direct, with the real agents: Claude Code (plain, with a PostToolUse
 * hook, with an image read), Codex and Gemini CLI each run a session of four tool turns and a final answer
 * through the router to each upstream kind, against fakes that cache prompts as the provider does
 * (test/fakes/*-prompt-cache.ts). The cached share of the session's prompt tokens (cached / all,
 * over its main requests) must be at least the baseline's, within one percentage point:
 *
 * - `direct`: the same client talking to the same fake itself, where it can: Claude Code to the
 *   Anthropic fake, Codex to the OpenAI Responses fake (same model name, same catalog), Gemini CLI
 *   to the Gemini fake.
 * - `append-only`, where no such client can go direct (Claude Code to OpenAI or Gemini, Codex to
 *   Anthropic, Chat or Gemini, Gemini CLI to Anthropic or OpenAI): the best a client can get from that provider, which is the share
 *   the fake reports for the same prompt sizes when each request's prompt extends the one before
 *   it by appending only (test/fakes/append-only-share.ts; on Anthropic with a breakpoint on the
 *   last block).
 *
 * Every session gets fresh fakes, so none inherits another's cache. The results go to
 * test/agents/.results/prompt-cache.json; `npm run docs:cache` renders them into docs/compatibility.md.
 */

/**
 * Cells short of their baseline today, with why. Each is still run and measured; its test asserts
 * that it is still short, so a fix shows up as a failure here: take the cell off this list then.
 */
const EXPECTED_SHORTFALLS: Record<string, string> = {};

interface ClientCase {
  agent: AgentName;
  client: string;
  session: string;
  /** Where this client can go directly, and what it asks the router for on each route. */
  directRoute: CacheRoute;
  extras: ClaudeExtras;
}

const claude = `Claude Code ${AGENT_PACKAGES.claude.version}`;
const CASES: ClientCase[] = [
  { agent: 'claude', client: claude, session: 'Bash', directRoute: 'anthropic', extras: {} },
  { agent: 'claude', client: claude, session: 'Bash + PostToolUse hook', directRoute: 'anthropic', extras: { hook: true } },
  { agent: 'claude', client: claude, session: 'Bash + image Read', directRoute: 'anthropic', extras: { image: true } },
  { agent: 'codex', client: `Codex ${AGENT_PACKAGES.codex.version}`, session: 'exec_command', directRoute: 'openai-responses', extras: {} },
];

/** The model name the client asks for: Claude Code's and Gemini CLI's own on their provider's route, the SKU elsewhere (and always for Codex). */
const clientModel = (agent: AgentName, route: CacheRoute) =>
  (agent === 'claude' && route === 'anthropic') || (agent === 'gemini' && route === 'gemini') ? UPSTREAM_MODELS[route].main : 'svc.intelligent-pro';

const PROVIDER: Record<CacheRoute, CacheProvider> = { anthropic: 'anthropic', 'openai-chat': 'openai', 'openai-responses': 'openai', gemini: 'gemini' };

/** How each wire format carries an image, to check the image Read reached the upstream. */
const IMAGE_MARK: Record<CacheRoute, string> = { anthropic: '"type":"image"', 'openai-chat': '"image_url"', 'openai-responses': '"input_image"', gemini: '"inlineData"' };

const unavailable = await agentsUnavailable();
let binaries: Record<AgentName, string>;
const started = performance.now();
const results: CacheResults = {
  agents: { claude: AGENT_PACKAGES.claude.version, codex: AGENT_PACKAGES.codex.version, gemini: AGENT_PACKAGES.gemini.version },
  direct: [],
  cells: [],
  runMs: 0,
};

beforeAll(async () => {
  if (unavailable) return;
  binaries = await installAgents();
}, 10 * 60_000);

afterAll(() => {
  if (results.cells.length === 0 && results.direct.length === 0) return;
  results.runMs = Math.round(performance.now() - started);
  fs.mkdirSync(path.dirname(CACHE_RESULTS_FILE), { recursive: true });
  fs.writeFileSync(CACHE_RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`\nPrompt cache through the router against going direct (${(results.runMs / 1000).toFixed(0)} s):\n\n${renderCacheTables(results)}\n`);
});

const cleanups = cleanupsAfterEach();

interface Session {
  run: SessionRun;
  upstream: CacheUpstream;
  records: PromptRecord[];
  why: string;
}

/** Runs the case's session against `route`'s fake, straight or through a router, and checks that it really happened. */
async function session(one: ClientCase, route: CacheRoute, via: 'direct' | 'router'): Promise<Session> {
  const dirs: Workspace = workspace(cleanups, `svc-cache-${one.agent}-`);
  const script = one.agent === 'claude' ? claudeScript(dirs.cwd, one.extras) : one.agent === 'gemini' ? geminiScript() : codexScript();
  const asked = clientModel(one.agent, route);
  // Straight to the fake, it sees the model the client asks for; through the router, the route's.
  const upstreamModel = via === 'direct' ? asked : UPSTREAM_MODELS[route].main;
  const upstream = await startCacheSessionUpstream(cleanups, route, script, [upstreamModel]);
  let run: SessionRun;
  // Claude Code and Gemini CLI take an origin (they add the version path), Codex a base URL.
  const target = via === 'direct' ? { origin: new URL(upstream.url).origin, baseURL: upstream.url, key: 'sk-cache-direct' } : await routerInFrontOf(cleanups, upstream, asked);
  if (one.agent === 'claude') run = await runClaudeSession(binaries.claude, dirs, target.origin, target.key, asked, one.extras);
  else if (one.agent === 'gemini') run = await runGeminiSession(binaries.gemini, dirs, target.origin, target.key, asked);
  else run = await runCodexSession(binaries.codex, dirs, target.baseURL, target.key, asked);
  const why = [...describeRun(run), `--- last message ---\n${run.lastMessage ?? '(none)'}`, describeRequests(upstream.fake)].join('\n');
  const records = upstream.mainPrompts(upstreamModel);

  expect(run.code, why).toBe(0);
  expect(run.stdout, why).toContain(FINAL);
  // Four tool turns and the answer, each one request the fake recorded the prompt of.
  expect(upstream.mainRequests(), why).toBe(script.steps.length + 1);
  expect(records.length, why).toBe(upstream.mainRequests());
  const sent = JSON.stringify(upstream.fake.requests.map((request) => request.body));
  if (one.extras.hook) expect(sent, why).toContain(HOOK_CONTEXT);
  if (one.extras.image) expect(sent, why).toContain(IMAGE_MARK[route]);
  return { run, upstream, records, why };
}

function measure(records: readonly PromptRecord[], route: CacheRoute): Measured {
  const keys = new Set(records.map((record) => record.cacheKey));
  const promptCacheKey = keys.size > 1 ? 'changes' : keys.has(undefined) ? 'none' : 'one key';
  return {
    requests: records.length,
    inputTokens: records.reduce((sum, record) => sum + record.inputTokens, 0),
    cachedTokens: records.reduce((sum, record) => sum + record.cachedTokens, 0),
    share: cachedShare(records),
    ...(PROVIDER[route] === 'openai' ? { promptCacheKey } : {}),
  };
}

/**
 * The first request that read less than appending only would have, and why: where its prompt
 * stopped repeating the one before it, or that it repeated it whole and still was not read.
 */
function firstBreak(records: readonly PromptRecord[], best: readonly PromptRecord[]): string | undefined {
  const index = records.findIndex((record, i) => i > 0 && record.cachedTokens < best[i]!.cachedTokens);
  if (index < 0) return undefined;
  const [before, after] = [records[index - 1]!, records[index]!];
  const read = `request ${index + 1} read ${after.cachedTokens.toLocaleString('en-US')} of the ${best[index]!.cachedTokens.toLocaleString('en-US')} tokens appending only would`;
  return firstChangedPart(before, after) < before.parts.length
    ? `${read}: its prompt stops repeating request ${index}'s at \`${prefixChange(before, after)}\``
    : `${read}, though its prompt repeats request ${index}'s whole`;
}

/** Each case's direct session, run once, whichever of its tests asks first. */
const directRuns = new Map<ClientCase, Promise<Measured>>();
function direct(one: ClientCase): Promise<Measured> {
  let measured = directRuns.get(one);
  if (!measured) {
    measured = session(one, one.directRoute, 'direct').then(({ records }) => {
      const result = measure(records, one.directRoute);
      results.direct.push({ client: one.client, session: one.session, route: one.directRoute, ...result } satisfies DirectSession);
      return result;
    });
    directRuns.set(one, measured);
  }
  return measured;
}

describe.skipIf(unavailable)('the cached share through the router against going direct', () => {
  for (const one of CASES) describe(`${one.client}, ${one.session}`, () => cases(one));
});

function cases(one: ClientCase): void {
  it(`straight to the ${one.directRoute} fake, the direct baseline`, async () => {
    const measured = await direct(one);
    expect(measured.cachedTokens).toBeGreaterThan(0);
  }, 120_000);

  it.each(CACHE_ROUTES)('through the router to %s: at least the baseline, within 1 point', async (route) => {
    const key = `${one.agent}|${one.session}|${route}`;
    const known = EXPECTED_SHORTFALLS[key];
    const baseline = route === one.directRoute ? await direct(one) : undefined;
    const { records, why } = await session(one, route, 'router');
    const measured = measure(records, route);
    const best = appendOnlyRecords(PROVIDER[route], UPSTREAM_MODELS[route].main, records.map((record) => record.inputTokens));
    const appendOnly = cachedShare(best);
    const baselineShare = baseline?.share ?? appendOnly;
    const outcome = measured.share >= baselineShare - TOLERANCE ? 'pass' : 'short';
    const breakAt = firstBreak(records, best);
    results.cells.push({
      client: one.client,
      session: one.session,
      route,
      ...measured,
      baseline: baseline ? 'direct' : 'append-only',
      baselineShare,
      appendOnlyShare: appendOnly,
      outcome,
      ...(known ? { knownShortfall: known } : {}),
      ...(breakAt ? { firstBreak: breakAt } : {}),
    } satisfies CacheCell);

    const summary = `${key}: ${(measured.share * 100).toFixed(1)}% cached through the router, baseline ${(baselineShare * 100).toFixed(1)}%${breakAt ? `; ${breakAt}` : ''}`;
    if (known) expect(outcome, `${summary}\nno longer short: take '${key}' off EXPECTED_SHORTFALLS\n${why}`).toBe('short');
    else expect(outcome, `${summary}\n${why}`).toBe('pass');
  }, 120_000);
}
