import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { codexModelCatalogJson } from '../../src/cli/codex-model-catalog.js';
import { CODEX_BASE_INSTRUCTIONS } from '../../src/handlers/models.js';
import type { FakeUpstream } from '../fakes/fake-server.js';
import { startRouter, type TestRouter } from '../helpers/router.js';
import { AGENT_PACKAGES, agentsUnavailable, installAgents } from './install-agents.js';
import { baseEnv, cleanupsAfterEach, codexExecArgs, describeRun, readIfExists, runAgent, tempRoot, type AgentRun } from './run-agent.js';
import { expectAnthropicToolResult, expectChatToolResult, expectMarkerWritten, expectSignedThinkingReplayed } from './round-trip-expectations.js';
import { describeRequests, hasTool, routerFor, startShellToolUpstream } from './shell-tool-script.js';

/**
 * The real Codex CLI (`codex exec`) against the router's Responses endpoint, with scripted fake
 * upstreams behind it: the model asks for a shell command through Codex's exec_command tool, Codex
 * really runs it, sends the output back, and the model answers. Everything runs on loopback in
 * temporary directories.
 */

const MODEL = 'svc.intelligent-pro';
const MARKER = 'svc-codex-marker-123';
const COMMAND = `echo ${MARKER} > marker.txt && echo done`;
const FINAL = 'FINAL-ANSWER-42';
const PROMPT = 'Write the marker file with the shell tool, then report the final answer.';
const SHELL_TOOL = 'exec_command';
const METADATA_WARNING = `Model metadata for \`${MODEL}\` not found`;

let codex: string;

/** Set when the CLIs can be neither found nor downloaded: the suite is skipped, saying why. */
const unavailable = await agentsUnavailable();

beforeAll(async () => {
  if (unavailable) return;
  codex = (await installAgents()).codex;
}, 10 * 60_000);

interface CodexRun extends AgentRun {
  /** What `--output-last-message` wrote, if anything. */
  lastMessage?: string;
  cwd: string;
}

const cleanups = cleanupsAfterEach();

/**
 * How Codex learns about the SKUs: from a `model_catalog_json` file next to an `env_key` provider,
 * or from the router's own GET /v1/models for a provider whose key comes from an `auth` command
 * (the only kind of custom provider Codex asks for models).
 */
type CatalogSource = 'file' | 'router';

/**
 * Runs `codex exec` with stdin closed, in a fresh temporary CODEX_HOME and working directory,
 * with the router as a custom Responses provider. The key is SVC_TEST_KEY in the environment.
 */
async function runCodex(router: TestRouter, catalog: CatalogSource): Promise<CodexRun> {
  const { root, home, cwd } = tempRoot(cleanups, 'svc-agent-codex-');
  const codexHome = path.join(home, '.codex');
  fs.mkdirSync(codexHome);

  const provider = [
    '[model_providers.svc]',
    'name = "svc-router"',
    `base_url = ${JSON.stringify(`${router.origin}/v1`)}`,
    'wire_api = "responses"',
    // A failed request should fail the run at once, not after Codex's backoff.
    'request_max_retries = 0',
    'stream_max_retries = 0',
  ];
  const top = [`model_provider = "svc"`, `model = ${JSON.stringify(MODEL)}`];
  if (catalog === 'file') {
    const catalogFile = path.join(codexHome, 'svc-models.json');
    fs.writeFileSync(catalogFile, codexModelCatalogJson());
    top.push(`model_catalog_json = ${JSON.stringify(catalogFile)}`);
    provider.push('env_key = "SVC_TEST_KEY"');
  } else {
    provider.push('', '[model_providers.svc.auth]', 'command = "printenv"', 'args = ["SVC_TEST_KEY"]');
  }
  fs.writeFileSync(path.join(codexHome, 'config.toml'), [...top, '', ...provider, ''].join('\n'));

  const env: NodeJS.ProcessEnv = { ...baseEnv(home), CODEX_HOME: codexHome, SVC_TEST_KEY: router.key };
  const lastMessageFile = path.join(root, 'last-message.txt');
  const run = await runAgent('codex', codex, codexExecArgs(lastMessageFile, PROMPT), cwd, env);
  return { ...run, lastMessage: readIfExists(lastMessageFile), cwd };
}

/** Everything needed to tell why a run failed, for assertion messages. */
function report(run: CodexRun, upstream: FakeUpstream): string {
  return [...describeRun(run), `--- last message ---\n${run.lastMessage ?? '(none written)'}`, describeRequests(upstream)].join('\n');
}

/** Checks shared by every run: it finished, the command ran, the answer came out, the SKU was first-class. */
function expectCompletedRun(run: CodexRun, why: string): void {
  expect(run.code, why).toBe(0);
  expectMarkerWritten(run.cwd, MARKER, why);
  expect(run.lastMessage, why).toContain(FINAL);
  expect(run.stdout, why).toContain(FINAL);
  expect(run.stdout + run.stderr, why).not.toContain(METADATA_WARNING);
}

describe.skipIf(unavailable)(`Codex ${AGENT_PACKAGES.codex.version} through the router`, () => {
  it('runs a shell tool round trip against an Anthropic upstream, replaying signed thinking through encrypted_content', async () => {
    const callId = 'toolu_01CodexSuiteShellCall';
    const thinking = 'The user wants the marker written; I will run the command.';
    const signature = 'sig-codex-suite-thinking-1';
    const upstream = await startShellToolUpstream(cleanups, 'anthropic', {
      tool: SHELL_TOOL,
      callId,
      input: { cmd: COMMAND },
      final: FINAL,
      reasoning: { call: { text: thinking, signature }, answer: { text: 'The command ran.', signature: 'sig-codex-suite-thinking-2' } },
    });
    const router = await routerFor(cleanups, upstream, 'anthropic', { [MODEL]: ['anth:claude-sonnet-4-5'] });

    const run = await runCodex(router, 'file');
    const why = report(run, upstream);

    expectCompletedRun(run, why);
    const main = upstream.requests.filter((request) => hasTool(request.body?.tools, SHELL_TOOL));
    expect(main.every((request) => request.body.model === 'claude-sonnet-4-5'), why).toBe(true);
    // The catalog made the SKU first-class: Codex sent apply_patch (a custom tool, one string in) and our prompt.
    const applyPatch = main[0]?.body.tools.find((tool: any) => tool.name === 'apply_patch');
    expect(applyPatch?.input_schema, why).toMatchObject({ type: 'object', properties: { input: { type: 'string' } }, required: ['input'] });
    expect(JSON.stringify(main[0]?.body.system), why).toContain(JSON.stringify(CODEX_BASE_INSTRUCTIONS).slice(1, 80));

    const after = expectAnthropicToolResult(main, callId, why);
    // Codex replayed the reasoning item's encrypted_content, so the thinking block comes back signed.
    expectSignedThinkingReplayed(after, { thinking, signature }, { id: callId, name: SHELL_TOOL, input: { cmd: COMMAND } }, why);
  }, 120_000);

  it('runs a shell tool round trip against an OpenAI Chat upstream', async () => {
    const callId = 'call_codexsuiteshell01';
    const upstream = await startShellToolUpstream(cleanups, 'openai-chat', { tool: SHELL_TOOL, callId, input: { cmd: COMMAND }, final: FINAL });
    const router = await routerFor(cleanups, upstream, 'openai-chat', { [MODEL]: ['oa:gpt-4o-mini'] });

    const run = await runCodex(router, 'file');
    const why = report(run, upstream);

    expectCompletedRun(run, why);
    const main = upstream.requests.filter((request) => hasTool(request.body?.tools, SHELL_TOOL));
    expect(main.every((request) => request.body.model === 'gpt-4o-mini'), why).toBe(true);
    expect(hasTool(main[0]?.body.tools, 'apply_patch'), why).toBe(true);

    expectChatToolResult(main, { id: callId, name: SHELL_TOOL, input: { cmd: COMMAND } }, why);
  }, 120_000);

  it('learns the SKUs from the router\'s GET /v1/models when the provider key comes from an auth command', async () => {
    const callId = 'call_codexsuitecatalog1';
    const upstream = await startShellToolUpstream(cleanups, 'openai-chat', { tool: SHELL_TOOL, callId, input: { cmd: COMMAND }, final: FINAL });
    const router = await routerFor(cleanups, upstream, 'openai-chat', { [MODEL]: ['oa:gpt-4o-mini'] });

    const run = await runCodex(router, 'router');
    const why = report(run, upstream);

    expectCompletedRun(run, why);
    const main = upstream.requests.filter((request) => hasTool(request.body?.tools, SHELL_TOOL));
    expect(hasTool(main[0]?.body.tools, 'apply_patch'), why).toBe(true);
    // The only place Codex could have found this prompt is the router's catalog.
    const system = main[0]?.body.messages.filter((message: any) => message.role === 'system').map((message: any) => message.content);
    expect(JSON.stringify(system), why).toContain(JSON.stringify(CODEX_BASE_INSTRUCTIONS).slice(1, 80));
  }, 120_000);

  it('serves Codex its catalog shape on GET /v1/models and everyone else the OpenAI list', async () => {
    const router = await startRouter();
    cleanups.push(() => router.close());
    const get = async (headers: Record<string, string>) => {
      const response = await fetch(`${router.baseURL}/models?client_version=${AGENT_PACKAGES.codex.version}`, {
        headers: { authorization: `Bearer ${router.key}`, ...headers },
      });
      expect(response.status).toBe(200);
      return (await response.json()) as any;
    };
    const codexHeaders = { originator: 'codex_exec', 'user-agent': `codex_exec/${AGENT_PACKAGES.codex.version} (Linux; x86_64) dumb (codex_exec; ${AGENT_PACKAGES.codex.version})` };
    const forCodex = await get(codexHeaders);
    expect(forCodex.object).toBeUndefined();
    expect(forCodex.models.map((model: any) => model.slug)).toEqual(['svc.intelligent-pro', 'svc.intelligent-basic', 'svc.intelligent-lite']);
    expect(forCodex.models[0]).toMatchObject({ apply_patch_tool_type: 'freeform', visibility: 'list', supported_in_api: true, base_instructions: CODEX_BASE_INSTRUCTIONS });
    // The same JSON goes into the client-side catalog file.
    expect(JSON.parse(codexModelCatalogJson())).toEqual(forCodex);

    const forOthers = await get({ 'user-agent': 'OpenAI/JS 6.49.0' });
    expect(forOthers.object).toBe('list');
    expect(forOthers.data.map((model: any) => model.id)).toContain(MODEL);
  });
});
